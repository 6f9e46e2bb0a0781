import path from 'path';
import { Container } from '@n8n/di';
import fc from 'fast-check';
import { SSHClientsManager } from 'n8n-core/dist/execution-engine/ssh-clients-manager';
import { accountAdmissions } from '../nodes/VoiceAssistant/shared/request/admission';
import { forgetAccounts } from './helpers/accounts';

// n8n-core starts an SSH-client cleanup interval the first time a node runs; n8n stops it at
// shutdown, a test process has to do the same or jest never exits.
afterAll(() => {
	if (Container.has(SSHClientsManager)) Container.get(SSHClientsManager).onShutdown();
});
// No test meets an account an earlier one left (its rate, its pause, on that test's clock).
afterEach(() => forgetAccounts(accountAdmissions));

/**
 * fast-check's properties: each run draws its cases from a seed, FC_SEED's or, without it, the
 * same one every time (npm test runs the same cases; `npm run test:properties` varies it). A
 * failure ends with the command that replays it alone: the seed, its counterexample's path
 * (FC_PATH, read with `-t` naming one property) and the test, e.g.
 *   FC_SEED=42 FC_PATH='3:1' npx jest test/rateTickets.test.ts -t '^RateTickets …$'
 */
const FC_SEED = process.env.FC_SEED ?? '20261126';
if (!/^-?\d+$/.test(FC_SEED)) throw new Error(`FC_SEED must be an integer, not ${FC_SEED}`);

/** The property's failure, with the command that replays it alone; the assertion's stack stays its cause. */
function withReplay(out: fc.RunDetails<unknown>, report: string): Error {
	const { testPath = '', currentTestName = '' } = expect.getState();
	const file = path.relative(process.cwd(), testPath).split(path.sep).join('/');
	const name = `^${currentTestName.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}$`;
	const env = [`FC_SEED=${out.seed}`];
	if (out.counterexamplePath) env.push(`FC_PATH='${out.counterexamplePath}'`);
	const command = `${env.join(' ')} npx jest ${file} -t '${name.replace(/'/g, `'\\''`)}'`;
	return new Error(`${report}\n\nReplay it alone:\n  ${command}`, { cause: out.errorInstance });
}

/** Throws a failed property's report with its replay, its stack from the test's fc.assert on. */
function reporter(out: fc.RunDetails<unknown>): void {
	if (!out.failed) return;
	const error = withReplay(out, fc.defaultReportMessage(out) ?? '');
	Error.captureStackTrace(error, reporter);
	throw error;
}

fc.configureGlobal({
	seed: Number(FC_SEED),
	// Not in fast-check's global type (a path is one property's): with -t naming one, it is that one's.
	...({ path: process.env.FC_PATH } as object),
	// Sync and async properties alike (fast-check takes a reporter or an asyncReporter, not both).
	reporter,
});
