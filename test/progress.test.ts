/** The progress lines a long run writes to n8n's log (shared/progress.ts). */
import { Progress } from '../nodes/VoiceAssistant/shared/request/progress';

describe('Progress in the log', () => {
	function progressOf(
		total: number,
		pace: { now: number | undefined; lowest: number | undefined; waiting: number } = {
			now: undefined,
			lowest: undefined,
			waiting: 0,
		},
	) {
		const lines: string[] = [];
		const log = (message: string) => lines.push(message);
		const logger = { info: log, debug: log, warn: log, error: log };
		const progress = new Progress(total, logger, 'Update contacts', {
			concurrency: () => ({ now: 40, peak: 64 }),
			inFlight: () => 12,
			rate: () => pace,
		});
		return { progress, lines };
	}

	it('says when the run is paced to a rate limit, and how low the pace went', () => {
		const { progress, lines } = progressOf(100, { now: 196.4, lowest: 171.2, waiting: 83 });
		for (let i = 0; i < 100; i++) progress.itemDone(true);
		progress.logSummary('done');
		expect(lines[0]).toBe(
			'Voice Assistant "Update contacts": 10/100 items (10%): 10 succeeded, 0 failed, 0 waiting to retry, 12 in flight of 40 allowed, paced at 196 requests/s (83 waiting for their turn)',
		);
		expect(lines[9]).toMatch(
			/: done: 100 items in \d+\.\d s: 100 succeeded, 0 failed, 0 retries, up to 64 requests in flight, paced to the service's rate limit \(down to 171 requests\/s\)$/,
		);
	});

	it('a line every tenth of the items, and one summary line', () => {
		const { progress, lines } = progressOf(200);
		progress.retryWaitStarted();
		for (let i = 0; i < 199; i++) progress.itemDone(true);
		expect(lines).toHaveLength(9);
		expect(lines[0]).toBe(
			'Voice Assistant "Update contacts": 20/200 items (10%): 20 succeeded, 0 failed, 1 waiting to retry, 12 in flight of 40 allowed',
		);
		progress.retryWaitEnded();
		progress.itemDone(false);
		expect(lines).toHaveLength(9); // the last item: the Run logs how it ended
		progress.logSummary('done');
		progress.logSummary('stopped');
		expect(lines).toHaveLength(10);
		expect(lines[9]).toMatch(
			/^Voice Assistant "Update contacts": done: 200 items in \d+\.\d s: 199 succeeded, 1 failed, 1 retries, up to 64 requests in flight$/,
		);
	});

	it('at most every 1,000 items; a small run only logs its summary', () => {
		const big = progressOf(20_000);
		for (let i = 0; i < 20_000; i++) big.progress.itemDone(true);
		big.progress.logSummary('done');
		expect(big.lines).toHaveLength(20);
		const small = progressOf(3);
		for (let i = 0; i < 3; i++) small.progress.itemDone(true);
		small.progress.logSummary('done');
		expect(small.lines).toHaveLength(1);
	});
});
