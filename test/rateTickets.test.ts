/**
 * A rate's tickets (shared/request/rateTickets.ts), on a fake clock driven by fast-check: requests
 * of random durations, each reaching the service at any moment between its start and its end, or
 * never (not connected); at most the rate's count of them arrive in any span of the rate (a second
 * for whole rates), fractions and changed rates too. The tickets as the account's admission and a
 * node's own rate use them, in n8n's engine over HTTP: test/admission.test.ts.
 */
import fc from 'fast-check';
import { realClock, SECOND_MS, useClock } from '../nodes/VoiceAssistant/shared/clock';
import { RateTickets, type Ticket } from '../nodes/VoiceAssistant/shared/request/rateTickets';
import { mostInWindow } from './helpers/arrivals';

/** The fake clock's time: moved only by the test. */
let now = 0;

/**
 * Starts a fake clock at `start`: each test and each run of a property has its own, so what a
 * check sees never depends on where an earlier one left the time (a float's rounding does).
 */
function startClock(start = 1_000_000): void {
	now = start;
	useClock({ now: () => now, date: () => now, sleep: realClock.sleep });
}

/** What a rate allows: `count` requests in any `spanMs` (a second for whole rates), starts `spacingMs` apart. */
function ticketsOf(rate: number) {
	const count = Math.max(1, Math.floor(rate));
	return { count, spanMs: (SECOND_MS * count) / rate, spacingMs: SECOND_MS / rate };
}

const rateArb = fc.oneof(
	fc.integer({ min: 1, max: 300 }),
	fc.double({ min: 0.05, max: 20, noNaN: true }),
	// A span of whole ms as the division rounds it: a hair above or below, where rounding shows.
	fc.integer({ min: 50, max: 20_000 }).map((spanMs) => SECOND_MS / spanMs),
);

/** Where the clock is when a property's run starts: fresh, or up to a year on (a float's rounding grows with it). */
const clockArb = fc.oneof(fc.constant(1_000_000), fc.integer({ min: 0, max: 2 ** 35 }));

/** A request: after `gap` ms it asks for its turn; it takes `durationMs`, reaching the service `arrives` of the way through, or never. */
const requestArb = fc.record({
	gap: fc.integer({ min: 0, max: 60 }),
	durationMs: fc.integer({ min: 0, max: 400 }),
	arrives: fc.option(fc.double({ min: 0, max: 1, noNaN: true }), { nil: undefined, freq: 8 }),
});
type Request = { gap: number; durationMs: number; arrives: number | undefined };

/** A started request: its ticket, when it ends, when it arrived (undefined: never), the rate it started under. */
type Started = { ticket: Ticket; endsAt: number; arrivedAt?: number; rate: number };

/**
 * Plays requests one after the other as the admission does: each waits until a ticket is free
 * (the clock moving to the next end when every ticket is in flight), then starts; ends give their
 * tickets back at their time.
 */
function play(
	tickets: RateTickets,
	requests: Array<Request & { rate: number }>,
	clockAt: number,
): Started[] {
	startClock(clockAt);
	const started: Started[] = [];
	const inFlight: Started[] = [];
	const endUntil = (time: number) => {
		inFlight.sort((a, b) => a.endsAt - b.endsAt);
		while (inFlight.length > 0 && inFlight[0].endsAt <= time) {
			const done = inFlight.shift() as Started;
			now = Math.max(now, done.endsAt);
			done.ticket.giveBack(done.arrivedAt !== undefined);
		}
		now = Math.max(now, time);
	};
	for (const { gap, durationMs, arrives, rate } of requests) {
		endUntil(now + gap);
		for (let wait = tickets.nextTurnIn(rate); wait > 0; wait = tickets.nextTurnIn(rate)) {
			const nextEnd = Math.min(...inFlight.map((request) => request.endsAt));
			expect(wait !== Infinity || inFlight.length > 0).toBe(true);
			endUntil(Math.min(now + wait, nextEnd));
		}
		const request: Started = {
			ticket: tickets.take(rate),
			endsAt: now + durationMs,
			arrivedAt: arrives === undefined ? undefined : now + arrives * durationMs,
			rate,
		};
		started.push(request);
		inFlight.push(request);
	}
	endUntil(now + 10_000); // every request ends
	return started;
}

const arrivals = (started: Started[]) =>
	started
		.map((request) => request.arrivedAt)
		.filter((at): at is number => at !== undefined)
		.sort((a, b) => a - b);

describe('RateTickets, on a fake clock', () => {
	beforeEach(() => startClock());
	afterEach(() => useClock(realClock));

	it('never lets more than the rate arrive in any span of it (a second for whole rates), fractions too, whenever each request reaches the service between its start and its end', () => {
		fc.assert(
			fc.property(
				rateArb,
				fc.array(requestArb, { minLength: 1, maxLength: 400 }),
				clockArb,
				(rate, requests, clockAt) => {
					const started = play(
						new RateTickets(),
						requests.map((request) => ({ ...request, rate })),
						clockAt,
					);
					const { count, spanMs } = ticketsOf(rate);
					expect(mostInWindow(arrivals(started), spanMs)).toBeLessThanOrEqual(count);
				},
			),
		);
	});

	it('a changed rate holds from the next request, judged by the same ends: no request arrives within a span of its rate of as many others as that rate allows', () => {
		fc.assert(
			fc.property(
				fc.array(
					fc.record({
						rate: rateArb,
						requests: fc.array(requestArb, { minLength: 1, maxLength: 40 }),
					}),
					{ minLength: 2, maxLength: 6 },
				),
				clockArb,
				(settings, clockAt) => {
					const started = play(
						new RateTickets(),
						settings.flatMap(({ rate, requests }) =>
							requests.map((request) => ({ ...request, rate })),
						),
						clockAt,
					);
					started.forEach((request, k) => {
						if (request.arrivedAt === undefined) return;
						const { count, spanMs } = ticketsOf(request.rate);
						const near = started
							.slice(0, k)
							.filter(
								({ arrivedAt }) =>
									arrivedAt !== undefined &&
									Math.abs(arrivedAt - (request.arrivedAt as number)) < spanMs,
							);
						expect(near.length).toBeLessThan(count);
					});
				},
			),
		);
	});

	it('a span a hair longer than its whole milliseconds, on a clock 100 days on: the next request waits for all of it, and the tickets are quiet only then', () => {
		// 1,000 / 1.3812154696132595 = 724.0000000000001 ms; 100 days on, `now - spanMs` rounds to a whole ms.
		const rate = 1.3812154696132595;
		const { spanMs } = ticketsOf(rate);
		expect(spanMs).toBeGreaterThan(724);
		startClock(100 * 86_400_000);
		const tickets = new RateTickets();
		const ticket = tickets.take(rate);
		now += 10;
		ticket.giveBack(true);
		const ended = now;
		now += 724;
		expect(tickets.nextTurnIn(rate)).toBe(1);
		expect(tickets.quietAt(rate) - ended).toBeGreaterThanOrEqual(spanMs);
		now += 1;
		expect(tickets.nextTurnIn(rate)).toBe(0);
	});

	it('200 a second with 5 ms requests and every timer 2 ms late: at least 99% of 200 per 1.005 s (each ticket is held a second after its 5 ms)', () => {
		const tickets = new RateTickets();
		const started = now;
		const ends: Array<{ ticket: Ticket; at: number }> = [];
		let starts = 0;
		while (now - started < 10_000) {
			const wait = tickets.nextTurnIn(200);
			const next = Math.min(...ends.map(({ at }) => at));
			now = wait === Infinity ? next : Math.min(now + (wait > 0 ? wait + 2 : 0), next);
			for (const end of ends.filter(({ at }) => at <= now)) end.ticket.giveBack(true);
			ends.splice(0, ends.length, ...ends.filter(({ at }) => at > now));
			if (tickets.nextTurnIn(200) > 0) continue;
			ends.push({ ticket: tickets.take(200), at: now + 5 });
			starts++;
		}
		// A request holds its ticket 5 ms longer than a second: 200 per 1.005 s at most.
		expect(starts / 10).toBeGreaterThan(0.99 * (200 / 1.005));
	});

	it('0.5 a second: the next request starts 2 s after the last one ended; a rate of 1 a minute, a minute after', () => {
		const tickets = new RateTickets();
		const ticket = tickets.take(0.5);
		now += 300;
		expect(tickets.nextTurnIn(0.5)).toBe(Infinity);
		ticket.giveBack(true);
		expect(tickets.nextTurnIn(0.5)).toBe(2000);
		expect(tickets.nextTurnIn(1 / 60)).toBe(60_000);
		now += 2000;
		expect(tickets.nextTurnIn(0.5)).toBe(0);
	});

	it('a request that never reached the service gives its ticket back at once; a ticket given back twice counts once', () => {
		const tickets = new RateTickets();
		const first = tickets.take(1);
		first.giveBack(false);
		first.giveBack(true);
		now += ticketsOf(1).spacingMs;
		expect(tickets.nextTurnIn(1)).toBe(0);
	});

	it('starts are spaced a second / the rate apart, a turn a late timer missed made up', () => {
		const tickets = new RateTickets();
		tickets.take(10).giveBack(false);
		expect(tickets.nextTurnIn(10)).toBe(100);
		now += 110; // late by 10 ms
		tickets.take(10).giveBack(false);
		expect(tickets.nextTurnIn(10)).toBe(90);
	});

	it('without a rate it never holds a request back; it is quiet once nothing is in flight', () => {
		const tickets = new RateTickets();
		const taken = Array.from({ length: 100 }, () => tickets.take(undefined));
		expect(tickets.nextTurnIn(undefined)).toBe(0);
		expect(tickets.quietAt(undefined)).toBe(Infinity);
		for (const ticket of taken) ticket.giveBack(true);
		expect(tickets.quietAt(undefined)).toBeLessThanOrEqual(now);
	});

	it('is quiet a span after its last end, or when the next start is due', () => {
		const tickets = new RateTickets();
		tickets.take(10).giveBack(true);
		expect(tickets.quietAt(10)).toBe(now + SECOND_MS);
		const slow = new RateTickets();
		slow.take(0.5).giveBack(false);
		expect(slow.quietAt(0.5)).toBe(now + ticketsOf(0.5).spacingMs);
	});
});
