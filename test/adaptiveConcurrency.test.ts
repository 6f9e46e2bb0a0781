/**
 * Automatic concurrency: the controller driven by scripted answers (no clock, no timing), the
 * limiter following a moving bound, and the progress lines a long run writes to n8n's log.
 */
import { ConcurrencyController, INITIAL_CONCURRENCY } from '../nodes/VoiceAssistant/shared/request/adaptiveConcurrency';
import { ConcurrencyLimiter } from '../nodes/VoiceAssistant/shared/request/limiter';
import { Progress } from '../nodes/VoiceAssistant/shared/request/progress';
import { runNode } from './helpers/runNode';
import { useSimulator } from './helpers/simulator';
import { API_KEY, segmentContactParameters } from './helpers/fixtures';

describe('ConcurrencyController', () => {
	it('starts at 10 and doubles per round trip while the service keeps up (slow start)', () => {
		const controller = new ConcurrencyController(100);
		expect(controller.limit).toBe(INITIAL_CONCURRENCY);
		const rounds: number[] = [];
		for (let round = 0; round < 3; round++) {
			const inFlight = controller.limit;
			for (let i = 0; i < inFlight; i++) controller.onAnswer();
			rounds.push(controller.limit);
		}
		expect(rounds).toEqual([20, 40, 80]);
	});

	it('never goes above the ceiling, and starts there when the ceiling is lower than 10', () => {
		const controller = new ConcurrencyController(25);
		for (let i = 0; i < 1000; i++) controller.onAnswer();
		expect(controller.limit).toBe(25);
		expect(new ConcurrencyController(4).limit).toBe(4);
	});

	it('halves on pushback, once per round: the requests in flight meet the same pressure', () => {
		const controller = new ConcurrencyController(100);
		for (let i = 0; i < 30; i++) controller.onAnswer(); // 40
		controller.onPushback();
		expect(controller.limit).toBe(20);
		// Other requests of the same round are answered 429 too: no further cut.
		for (let i = 0; i < 10; i++) controller.onPushback();
		expect(controller.limit).toBe(20);
		// Once the 40 requests that were in flight at the cut are answered, pushback cuts again.
		for (let i = 0; i < 29; i++) controller.onAnswer();
		controller.onPushback();
		expect(controller.limit).toBe(21);
		controller.onAnswer();
		controller.onPushback();
		expect(controller.limit).toBe(10);
	});

	it('after pushback, grows by about one per round trip (additive increase)', () => {
		const controller = new ConcurrencyController(100);
		for (let i = 0; i < 10; i++) controller.onAnswer(); // 20
		controller.onPushback(); // 10
		const limits: number[] = [];
		for (let round = 0; round < 5; round++) {
			const inFlight = controller.limit;
			for (let i = 0; i < inFlight; i++) controller.onAnswer();
			limits.push(controller.limit);
		}
		expect(limits).toEqual([11, 12, 13, 14, 15]);
	});

	it('never below 1, and remembers the highest bound it reached', () => {
		const controller = new ConcurrencyController(100);
		for (let i = 0; i < 10; i++) controller.onAnswer();
		for (let round = 0; round < 10; round++) {
			controller.onPushback();
			for (let i = 0; i < controller.limit; i++) controller.onAnswer();
		}
		controller.onPushback();
		expect(controller.limit).toBeGreaterThanOrEqual(1);
		expect(controller.peak).toBe(20);
	});
});

describe('ConcurrencyLimiter with a moving bound', () => {
	const settle = async () => await new Promise<void>((resolve) => setImmediate(resolve));

	it('a higher bound admits waiters at once, in order; a lower one takes effect as holders leave', async () => {
		const limiter = new ConcurrencyLimiter(1);
		const started: number[] = [];
		const ends: Array<() => void> = [];
		const work = (n: number) => async () => {
			started.push(n);
			await new Promise<void>((resolve) => ends.push(resolve));
		};
		const all = [1, 2, 3, 4, 5].map((n) => limiter.use(work(n), undefined, () => 'not run'));
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

	it('backs off under a rate limit, so 429 answers stay a small share, and every contact is applied once', async () => {
		sim().setOptions({ latencyMs: 20, rateLimit: { ratePerSec: 100, burst: 20 } });
		const { error, outputs } = await runNode({ parameters, items: rows(300), credentials: { apiKey: API_KEY, baseUrl: sim().url } });
		expect(error).toBeUndefined();
		expect(outputs[0]).toHaveLength(300);
		expect(sim().ledger.applied).toHaveLength(300);
		expect([...sim().ledger.countsByKey.values()].every((count) => count === 1)).toBe(true);
		const throttled = sim().requests.filter((r) => r.status === 429).length;
		expect(throttled / sim().requests.length).toBeLessThan(0.2);
	});
});

describe('Progress in the log', () => {
	function progressOf(total: number) {
		const lines: string[] = [];
		const log = (message: string) => lines.push(message);
		const logger = { info: log, debug: log, warn: log, error: log };
		const progress = new Progress(total, logger, 'Update contacts', {
			concurrency: () => ({ now: 40, peak: 64 }),
			inFlight: () => 12,
		});
		return { progress, lines };
	}

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
