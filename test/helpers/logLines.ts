/** n8n's log as the node writes to it: its lines, and the summary a run logs when it ends. */
import { Container } from '@n8n/di';
// The logger alone: the package's index loads modules that keep timers running.
import { Logger } from '@n8n/backend-common/dist/logging/logger';

/**
 * n8n's logger below level info is a no-op: from now on the runs log into the returned list
 * instead. It stays for the rest of the test file (Container.reset() would leave n8n's services
 * holding the process open).
 */
export function captureLog(): string[] {
	const lines: string[] = [];
	const log = (message: string) => void lines.push(message);
	const logger = { info: log, warn: log, error: log, debug: () => undefined };
	Container.set(Logger, { ...logger, scoped: () => logger } as unknown as Logger);
	return lines;
}

/** The summary lines among `lines`: one per run of the node (named "Voice Assistant"), logged as it ends. */
export const runSummaries = (lines: string[]): string[] =>
	lines.filter((line) => /^Voice Assistant "Voice Assistant": [a-z]/.test(line));

/** Resolves once `lines` hold `count` run summaries: that many runs have ended. */
export async function runsEnded(lines: string[], count = 1): Promise<void> {
	while (runSummaries(lines).length < count)
		await new Promise((resolve) => setTimeout(resolve, 20));
}
