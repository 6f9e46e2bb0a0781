/**
 * A rate's start times (shared/request/startTimes.ts): at most that many starts in any second (a
 * span of 1,010 ms per rate), evenly spaced, fractions too, on a fake clock driven by fast-check.
 * The start times as the account's admission and a node's own rate use it, in n8n's engine over
 * HTTP: test/admission.test.ts.
 */
import fc from 'fast-check';
import { realClock, useClock } from '../nodes/VoiceAssistant/shared/clock';
import { MARGIN, StartTimes, SECOND_MS } from '../nodes/VoiceAssistant/shared/request/startTimes';
import { mostInWindow } from './helpers/arrivals';

/** The most a late timer's turn is made up (startTimes.ts): a start can be that much early. */
const LATE_TIMER_MS = 25;

let now = 1_000_000;
const fakeClock = { now: () => now, sleep: realClock.sleep };

/** What a rate allows: `count` starts in any `spanMs`, each `spacingMs` after the one before. */
const allowed = (rate: number) => {
	const count = Math.max(1, Math.floor(rate));
	const spacingMs = (SECOND_MS * MARGIN) / rate;
	return { count, spanMs: count * spacingMs, spacingMs };
};

const rateArb = fc.oneof(
	fc.integer({ min: 1, max: 300 }),
	fc.double({ min: 0.05, max: 20, noNaN: true }),
);

describe('StartTimes, on a fake clock', () => {
	beforeEach(() => useClock(fakeClock));
	afterEach(() => useClock(realClock));

	it('never lets more than the rate start in any span (a second and a margin per rate), fractions too; each start waits at most a spacing and the catch-up behind the one before', () => {
		fc.assert(
			fc.property(
				rateArb,
				fc.array(fc.integer({ min: 0, max: 50 }), { minLength: 1, maxLength: 600 }),
				(rate, gaps) => {
					const times = new StartTimes();
					const { count, spanMs, spacingMs } = allowed(rate);
					const starts: number[] = [];
					for (const gap of gaps) {
						now += gap; // a request arrives
						const wait = times.nextTurnIn(rate);
						expect(wait).toBeLessThanOrEqual(Math.ceil(spacingMs) + LATE_TIMER_MS);
						now += wait;
						expect(times.nextTurnIn(rate)).toBe(0);
						times.take(rate);
						starts.push(now);
					}
					expect(mostInWindow(starts, spanMs)).toBeLessThanOrEqual(count);
				},
			),
		);
	});

	it('a changed rate holds from the next request: never more than one of its spacings after the last start, never more than it allows in any span from the change on', () => {
		fc.assert(
			fc.property(
				fc.array(
					fc.record({
						rate: rateArb,
						gaps: fc.array(fc.integer({ min: 0, max: 3000 }), { minLength: 1, maxLength: 40 }),
					}),
					{ minLength: 2, maxLength: 6 },
				),
				(settings) => {
					const times = new StartTimes();
					let lastStart: number | undefined;
					for (const { rate, gaps } of settings) {
						const { count, spanMs, spacingMs } = allowed(rate);
						const starts: number[] = [];
						for (const gap of gaps) {
							now += gap;
							const wait = times.nextTurnIn(rate);
							// The old setting's spacing is not waited out (a raised rate), nor the starts it allowed (a lowered one).
							if (lastStart !== undefined)
								expect(now + wait).toBeLessThanOrEqual(
									Math.max(now, lastStart + Math.ceil(spacingMs)),
								);
							now += wait;
							times.take(rate);
							starts.push((lastStart = now));
						}
						expect(mostInWindow(starts, spanMs)).toBeLessThanOrEqual(count);
					}
				},
			),
		);
	});

	it('0.5 a second is one start every 2.02 s', () => {
		const times = new StartTimes();
		times.take(0.5);
		now += 2000;
		expect(times.nextTurnIn(0.5)).toBe(20);
	});

	it('keeps its rate when timers fire late: a turn missed by a late timer is made up', () => {
		const times = new StartTimes();
		const started = now;
		let starts = 0;
		while (now - started < 10_000) {
			now += Math.max(1, times.nextTurnIn(200)) + 2; // every timer 2 ms late
			times.take(200);
			starts++;
		}
		// Without making up for it, 200 a second spaced 5.05 ms apart would be 28% fewer.
		expect(starts / 10).toBeGreaterThan(0.99 * (200 / MARGIN));
	});

	it('a new rate holds from now on: a lower one does not pause for the starts the higher one allowed', () => {
		const times = new StartTimes();
		for (let i = 0; i < 100; i++) {
			now += times.nextTurnIn(100);
			times.take(100);
		}
		// Counting the last span's starts, a rate of 50 would wait until 50 of them passed: half a second.
		// One spacing of the new rate after the last start was due.
		expect(times.nextTurnIn(50)).toBeLessThanOrEqual(Math.ceil(allowed(50).spacingMs));
		expect(times.nextTurnIn(50)).toBeGreaterThan(allowed(50).spacingMs - allowed(100).spacingMs);
		now += times.nextTurnIn(50);
		times.take(50);
		expect(times.nextTurnIn(50)).toBeGreaterThanOrEqual(Math.floor(allowed(50).spacingMs));
		expect(times.nextTurnIn(50)).toBeLessThanOrEqual(Math.ceil(allowed(50).spacingMs));
	});

	it('without a rate it never holds a request back and keeps nothing', () => {
		const times = new StartTimes();
		for (let i = 0; i < 100; i++) times.take(undefined);
		expect(times.nextTurnIn(undefined)).toBe(0);
		expect(times.quietAt).toBeLessThanOrEqual(now);
	});

	it('is quiet a span after its last start, or when the next one is due', () => {
		const times = new StartTimes();
		times.take(10);
		expect(times.quietAt).toBe(now + SECOND_MS * MARGIN);
		const slow = new StartTimes();
		slow.take(0.5);
		expect(slow.quietAt).toBe(now + allowed(0.5).spacingMs);
	});
});
