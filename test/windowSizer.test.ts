/**
 * Automatic concurrency (shared/request/windowSizer.ts): the limit driven by scripted
 * answers (rounds 50 ms apart unless said), and a run under a rate limit in n8n's engine.
 */
import { WindowSizer } from '../nodes/VoiceAssistant/shared/request/windowSizer';
import { INITIAL_CONCURRENCY } from '../nodes/VoiceAssistant/shared/requestPolicy';
import { useSimulator } from './helpers/simulator';
import { contacts, rows, runAgainst } from './helpers/contactRuns';

describe('WindowSizer', () => {
	let now = 0;
	/** One round, `roundMs` after the last: as many answers as the bound, `pushbacks` of them 429/503/timeouts, each taking `tookMs`. */
	function round(controller: WindowSizer, pushbacks = 0, tookMs?: number, roundMs = 50): number {
		const size = controller.limit;
		now += roundMs;
		for (let i = 0; i < size; i++)
			controller.onAttemptEnd(i < pushbacks, controller.limit, tookMs, now);
		return controller.limit;
	}

	it('starts at 32 and doubles per round while the service keeps up (slow start)', () => {
		const controller = new WindowSizer(1000);
		expect(controller.limit).toBe(INITIAL_CONCURRENCY);
		expect(INITIAL_CONCURRENCY).toBe(32);
		expect([round(controller), round(controller), round(controller)]).toEqual([64, 128, 256]);
	});

	it('ends slow start once even the fastest answer of a round takes twice the fastest (requests queue), then grows by one per round', () => {
		const controller = new WindowSizer(1000);
		expect([round(controller, 0, 10), round(controller, 0, 12)]).toEqual([64, 128]);
		// 25 ms is not yet queueing (under the fastest + 20 ms); 45 ms is.
		expect(round(controller, 0, 25)).toBe(256);
		expect(round(controller, 0, 45)).toBe(513);
		expect([round(controller, 0, 10), round(controller, 0, 10)]).toEqual([514, 515]);
		expect(controller.cuts).toBe(0);
	});

	it('slow start doubles at most once per 50 ms: a service answering in a few ms sees at most 64 in flight within its first 50 ms', () => {
		const controller = new WindowSizer(1000);
		expect([
			round(controller, 0, 2, 5),
			round(controller, 0, 2, 5),
			round(controller, 0, 2, 5),
		]).toEqual([64, 64, 64]);
		now += 50;
		expect(round(controller, 0, 2, 5)).toBe(128);
	});

	it('never goes above the ceiling, and starts there when the ceiling is lower than 32', () => {
		const controller = new WindowSizer(25);
		for (let i = 0; i < 1000; i++) controller.onAttemptEnd(false, controller.limit, 1, (now += 5));
		expect(controller.limit).toBe(25);
		expect(new WindowSizer(4).limit).toBe(4);
	});

	it('halves after a round in which most answers pushed back, then grows by one per round', () => {
		const controller = new WindowSizer(1000);
		round(controller);
		round(controller); // 128
		// 100 of the round's 128 answers pushed back; its 28 good answers first grew it to 156 (slow start).
		expect(round(controller, 100)).toBe(78);
		expect(controller.cuts).toBe(1);
		expect([round(controller), round(controller)]).toEqual([79, 80]);
	});

	it('keeps the bound through the noise of a busy service: a minority of 429s or 503s cuts nothing', () => {
		const controller = new WindowSizer(100);
		// 35% pushback in every round (like 30% 429 + 5% 503 at random): slow start goes on.
		const limits = [0, 1, 2].map(() => round(controller, Math.floor(controller.limit * 0.35)));
		expect(limits[2]).toBeGreaterThan(INITIAL_CONCURRENCY * 2);
	});

	it('after a cut, grows by one per round (additive increase); never below 1', () => {
		const controller = new WindowSizer(1000);
		round(controller, 32); // all 32 pushed back: 16
		expect(controller.limit).toBe(16);
		expect([round(controller), round(controller), round(controller)]).toEqual([17, 18, 19]);
		for (let i = 0; i < 10; i++) round(controller, controller.limit);
		expect(controller.limit).toBe(1);
	});
});

describe('automatic concurrency in a run (n8n engine, simulator over HTTP)', () => {
	const sim = useSimulator();
	const run = runAgainst(sim);

	// How small the share of 429 answers stays is timing, measured by `npm run bench`; here: correctness.
	it('under a rate limit every contact is applied once and every item succeeds', async () => {
		sim().setOptions({ latencyMs: 20, rateLimit: { ratePerSec: 100, burst: 20 } });
		// 150 items: 32 at once spend the burst of 20 at the start, so the limit is reached at any count
		// above it; the rest are sent at the pace it allows (was 300: only longer).
		const { error, outputs } = await run(contacts(), rows(150));
		expect(error).toBeUndefined();
		expect(outputs[0]).toHaveLength(150);
		expect(sim().ledger.applied).toHaveLength(150);
		expect([...sim().ledger.countsByKey.values()].every((count) => count === 1)).toBe(true);
		expect(sim().requests.some((r) => r.status === 429)).toBe(true); // the limit was reached
	});
});
