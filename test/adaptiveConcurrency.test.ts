/**
 * Automatic concurrency: the controller driven by scripted answers (no clock, no timing), the
 * limiter following a moving bound, and the progress lines a long run writes to n8n's log.
 */
import { ConcurrencyLimit, INITIAL_CONCURRENCY } from '../nodes/VoiceAssistant/shared/request/concurrencyLimit';
import { Limiter } from '../nodes/VoiceAssistant/shared/request/limiter';
import { Progress } from '../nodes/VoiceAssistant/shared/progress';
import { runNode } from './helpers/runNode';
import { useSimulator } from './helpers/simulator';
import { API_KEY, segmentContactParameters } from './helpers/fixtures';

describe('ConcurrencyLimit', () => {
	/** One round: as many answers as the bound, `pushbacks` of them 429/503/timeouts. */
	function round(controller: ConcurrencyLimit, pushbacks = 0): number {
		const size = controller.limit;
		for (let i = 0; i < size; i++) {
			if (i < pushbacks) controller.onAnswer(true, controller.limit);
			else controller.onAnswer(false, controller.limit);
		}
		return controller.limit;
	}

	it('starts at 32 and doubles per round while the service keeps up (slow start)', () => {
		const controller = new ConcurrencyLimit(1000);
		expect(controller.limit).toBe(INITIAL_CONCURRENCY);
		expect(INITIAL_CONCURRENCY).toBe(32);
		expect([round(controller), round(controller), round(controller)]).toEqual([64, 128, 256]);
	});

	it('never goes above the ceiling, and starts there when the ceiling is lower than 32', () => {
		const controller = new ConcurrencyLimit(25);
		for (let i = 0; i < 1000; i++) controller.onAnswer(false, controller.limit);
		expect(controller.limit).toBe(25);
		expect(new ConcurrencyLimit(4).limit).toBe(4);
	});

	it('halves after a round in which most answers pushed back, then grows by one per round', () => {
		const controller = new ConcurrencyLimit(1000);
		round(controller);
		round(controller); // 128
		// 100 of the round's 128 answers pushed back; its 28 good answers first grew it to 156 (slow start).
		expect(round(controller, 100)).toBe(78);
		expect(controller.cuts).toBe(1);
		expect([round(controller), round(controller)]).toEqual([79, 80]);
	});

	it('keeps the bound through the noise of a busy service: a minority of 429s or 503s cuts nothing', () => {
		const controller = new ConcurrencyLimit(100);
		// 35% pushback in every round (like 30% 429 + 5% 503 at random): slow start goes on.
		const limits = [0, 1, 2].map(() => round(controller, Math.floor(controller.limit * 0.35)));
		expect(limits[2]).toBeGreaterThan(INITIAL_CONCURRENCY * 2);
	});

	it('after a cut, grows by one per round (additive increase); never below 1', () => {
		const controller = new ConcurrencyLimit(1000);
		round(controller, 32); // all 32 pushed back: 16
		expect(controller.limit).toBe(16);
		expect([round(controller), round(controller), round(controller)]).toEqual([17, 18, 19]);
		for (let i = 0; i < 10; i++) round(controller, controller.limit);
		expect(controller.limit).toBe(1);
		expect(controller.peak).toBe(32);
	});
});

describe('Limiter with a moving limit', () => {
	const settle = async () => await new Promise<void>((resolve) => setImmediate(resolve));

	it('a higher bound admits waiters at once, in order; a lower one takes effect as holders leave', async () => {
		const limiter = new Limiter(1);
		const started: number[] = [];
		const ends: Array<() => void> = [];
		const work = (n: number) => async () => {
			started.push(n);
			await new Promise<void>((resolve) => ends.push(resolve));
		};
		const all = [1, 2, 3, 4, 5].map((n) => limiter.use(work(n), new AbortController().signal));
		await settle();
		expect(started).toEqual([1]);
		limiter.setLimit(3);
		await settle();
		expect(started).toEqual([1, 2, 3]);
		expect(limiter.inUse).toBe(3);
		limiter.setLimit(1);
		ends[0]();
		ends[1]();
		await settle();
		expect(started).toEqual([1, 2, 3]); // 1 holder left: at the bound, nobody new
		ends[2]();
		await settle();
		expect(started).toEqual([1, 2, 3, 4]);
		ends[3]();
		await settle();
		ends[4]();
		await Promise.all(all);
		expect(limiter.inUse).toBe(0);
	});
});

describe('automatic concurrency in a run (n8n engine, simulator over HTTP)', () => {
	const sim = useSimulator();
	const rows = (count: number) => Array.from({ length: count }, (_, i) => ({ json: { id: `c-${i}` } }));
	const parameters = { ...segmentContactParameters, contactId: '={{ $json.id }}' };

	// How small the share of 429 answers stays is timing, measured by `npm run bench`; here: correctness.
	it('under a rate limit every contact is applied once and every item succeeds', async () => {
		sim().setOptions({ latencyMs: 20, rateLimit: { ratePerSec: 100, burst: 20 } });
		const { error, outputs } = await runNode({ parameters, items: rows(300), credentials: { apiKey: API_KEY, baseUrl: sim().url } });
		expect(error).toBeUndefined();
		expect(outputs[0]).toHaveLength(300);
		expect(sim().ledger.applied).toHaveLength(300);
		expect([...sim().ledger.countsByKey.values()].every((count) => count === 1)).toBe(true);
		expect(sim().requests.some((r) => r.status === 429)).toBe(true); // the limit was reached
	});
});

describe('Progress in the log', () => {
	function progressOf(
		total: number,
		pace: { now: number | undefined; lowest: number | undefined; waiting: number } = { now: undefined, lowest: undefined, waiting: 0 },
	) {
		const lines: string[] = [];
		const log = (message: string) => lines.push(message);
		const logger = { info: log, debug: log, warn: log, error: log };
		const progress = new Progress(total, logger, 'Update contacts', {
			concurrency: () => ({ now: 40, peak: 64 }),
			inFlight: () => 12,
			pace: () => pace,
		});
		return { progress, lines };
	}

	it('says when the run is paced to a rate limit, and how low the pace went', () => {
		const { progress, lines } = progressOf(100, { now: 196.4, lowest: 171.2, waiting: 83 });
		for (let i = 0; i < 100; i++) progress.itemDone(true);
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
		expect(lines).toHaveLength(10);
		expect(lines[9]).toMatch(
			/^Voice Assistant "Update contacts": done: 200 items in \d+\.\d s: 199 succeeded, 1 failed, 1 retries, up to 64 requests in flight$/,
		);
	});

	it('at most every 1,000 items; a small run only logs its summary', () => {
		const big = progressOf(20_000);
		for (let i = 0; i < 20_000; i++) big.progress.itemDone(true);
		expect(big.lines).toHaveLength(20);
		const small = progressOf(3);
		for (let i = 0; i < 3; i++) small.progress.itemDone(true);
		expect(small.lines).toHaveLength(1);
	});
});
