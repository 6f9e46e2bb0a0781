/**
 * The rate pacer driven by a fake clock and scripted answers (no timers, no timing asserts): a
 * token-bucket service like a real rate limit, and random 429s like a busy service. A run's
 * answer feedback (the limit on requests in flight) decides when pacing starts, as in a run; the
 * account's starts are spaced at the learned rate by start times, as the admission does.
 */
import type { AttemptEnd } from '../nodes/VoiceAssistant/shared/failureModel';
import { realClock, useClock } from '../nodes/VoiceAssistant/shared/clock';
import { AttemptFeedback } from '../nodes/VoiceAssistant/shared/request/attemptFeedback';
import { WindowSizer } from '../nodes/VoiceAssistant/shared/request/windowSizer';
import { RunWindow } from '../nodes/VoiceAssistant/shared/request/runWindow';
import { RatePacer, type PacerKind } from '../nodes/VoiceAssistant/shared/request/ratePacer';
import { MARGIN, StartTimes, SECOND_MS } from '../nodes/VoiceAssistant/shared/request/startTimes';

/** A fake clock the pacer reads. */
function clock() {
	let now = 1_000_000;
	return { now: () => now, advance: (ms: number) => (now += ms) };
}

/** A pacer reading the fake clock (the engine's clock, replaced for these tests). */
function pacerOn(time: ReturnType<typeof clock>): RatePacer {
	useClock({ now: time.now, sleep: realClock.sleep });
	return new RatePacer();
}

afterAll(() => useClock(realClock));

/** A service allowing `ratePerSec` with a bucket of one second's worth, answering at once. */
function tokenBucket(ratePerSec: number, now: () => number) {
	let tokens = ratePerSec;
	let last = now();
	return () => {
		tokens = Math.min(ratePerSec, tokens + ((now() - last) / 1000) * ratePerSec);
		last = now();
		if (tokens < 1) return 'rate-limited' as const;
		tokens -= 1;
		return 'handled' as const;
	};
}

/** An attempt's end the pacer counts as `kind`. */
const FAILURE_OF: Record<PacerKind, AttemptEnd> = {
	handled: 'answered',
	'rate-limited': 'rate-limited',
	failed: 'server-error',
};

/**
 * The account's turns at the pacer's rate, as its admission hands them out (the learned rate
 * spaced as it is, without the margin a set limit keeps): one times per pacer.
 */
const timesOf = new WeakMap<RatePacer, StartTimes>();
function turns(pacer: RatePacer) {
	const times = timesOf.get(pacer) ?? new StartTimes();
	timesOf.set(pacer, times);
	const rate = () => (pacer.rate === undefined ? undefined : pacer.rate * MARGIN);
	return {
		nextTurnIn: () => times.nextTurnIn(rate()),
		takeTurn: (waited: boolean) => {
			times.take(rate());
			pacer.started(waited);
		},
	};
}

/** A run's answer feedback in automatic mode (its limit on requests in flight). */
const feedbackOfRun = (ceiling = 100) =>
	new AttemptFeedback(new WindowSizer(ceiling), new RunWindow(ceiling));

/**
 * `attempts` attempts, one at a time, as fast as the pacer lets them (a sender that would
 * otherwise send one every `gapMs`), each answer told to the run's feedback; returns how many of
 * them the service answered 429.
 */
function send(
	pacer: RatePacer,
	time: ReturnType<typeof clock>,
	service: () => PacerKind,
	attempts: number,
	gapMs = 1,
	feedback = feedbackOfRun(),
) {
	let throttled = 0;
	const { nextTurnIn, takeTurn } = turns(pacer);
	for (let i = 0; i < attempts; i++) {
		const turnIn = nextTurnIn();
		time.advance(Math.max(gapMs, turnIn));
		takeTurn(turnIn > gapMs);
		const kind = service();
		if (kind === 'rate-limited') throttled++;
		feedback.onAttemptEnd(FAILURE_OF[kind], pacer);
	}
	return throttled;
}

/** The service shows a rate limit as the pacer's rule starts pacing on: two 429s, the second cutting its run's window. */
function showRateLimit(pacer: RatePacer) {
	pacer.onAttemptEnd('rate-limited', false);
	pacer.onAttemptEnd('rate-limited', true);
}

/** A pacer that began pacing after a second in which the service answered 200 attempts, 5 ms apart. */
function pacedAfterASecondOf200(time: ReturnType<typeof clock>) {
	const pacer = pacerOn(time);
	send(pacer, time, () => 'handled', 200, 5);
	showRateLimit(pacer);
	return { pacer, pace: pacer.rate as number };
}

describe('RatePacer', () => {
	it('does not pace while the service answers', () => {
		const time = clock();
		const pacer = pacerOn(time);
		send(pacer, time, () => 'handled', 5_000);
		expect(pacer.rate).toBeUndefined();
		expect(turns(pacer).nextTurnIn()).toBe(0);
	});

	it('paces at what the service answered in the last window once a round was cut for 429s', () => {
		const time = clock();
		const pacer = pacerOn(time);
		const service = tokenBucket(200, time.now);
		// 0.1 ms apart: the 200 tokens last about 20 ms, then nearly every answer is 429.
		send(pacer, time, service, 200, 0.1);
		expect(pacer.rate).toBeUndefined();
		send(pacer, time, service, 100, 0.1);
		expect(pacer.rate).toBeGreaterThanOrEqual(200);
		expect(pacer.rate).toBeLessThanOrEqual(210);
		// Paced: an attempt leaving now makes the next one wait 1000 / rate ms.
		const { nextTurnIn, takeTurn } = turns(pacer);
		time.advance(nextTurnIn());
		takeTurn(false);
		expect(nextTurnIn()).toBe(Math.ceil(SECOND_MS / (pacer.rate as number)));
	});

	it("starts at what the service handled in the last second it was sent to: a Retry-After pause of the account's is left out", () => {
		const time = clock();
		const pacer = pacerOn(time);
		send(pacer, time, () => 'handled', 200, 5);
		// The account waits out a Retry-After of 1 s: nothing is sent, nothing is handled.
		pacer.pausedMs += 1000;
		time.advance(1000);
		showRateLimit(pacer);
		expect(pacer.rate).toBeGreaterThan(150); // as without a pause (pacedAfterASecondOf200), not 1
	});

	it('keeps 429s under 5% of 10,000 attempts against a 200/s limit, at the limit', () => {
		const time = clock();
		const pacer = pacerOn(time);
		const service = tokenBucket(200, time.now);
		const started = time.now();
		const throttled = send(pacer, time, service, 10_000);
		const seconds = (time.now() - started) / 1000;
		const answered = 10_000 - throttled;
		expect(throttled / 10_000).toBeLessThan(0.05);
		// Answered at about the service's rate: not slower than 95% of it.
		expect(answered / seconds).toBeGreaterThan(0.95 * 200);
	});

	it('keeps its pace when its timer fires late: the turns a late timer missed are made up', () => {
		const time = clock();
		const { pacer, pace } = pacedAfterASecondOf200(time);
		expect(pace).toBeGreaterThan(150);
		const { nextTurnIn, takeTurn } = turns(pacer);
		let taken = 0;
		const until = time.now() + SECOND_MS;
		while (time.now() < until) {
			const turnIn = nextTurnIn();
			if (turnIn > 0) time.advance(turnIn + 1); // every timer fires 1 ms late
			takeTurn(true);
			pacer.onAttemptEnd('handled');
			taken++;
		}
		// Without making up for it: a turn every 1000 / pace + 1 ms, 17% fewer at 200/s.
		expect(taken).toBeGreaterThanOrEqual(0.98 * pace);
	});

	it('a few 429s just above the limit settle the pace at what the service accepted', () => {
		const time = clock();
		const pacer = pacerOn(time);
		// Paced at 210 while the service allows 200 a second, its burst already spent.
		send(pacer, time, () => 'handled', 210, 1000 / 210);
		showRateLimit(pacer);
		expect(pacer.rate).toBeGreaterThan(205);
		const service = tokenBucket(200, time.now);
		while (service() === 'handled');
		const started = time.now();
		const throttled = send(pacer, time, service, 6_000);
		const seconds = (time.now() - started) / 1000;
		// Held at 210, every window would be just under 5% 429s.
		expect(throttled / 6_000).toBeLessThan(0.015);
		expect((6_000 - throttled) / seconds).toBeGreaterThan(0.97 * 200);
	});

	it("behind a token bucket whose 429s ask for a 1 s pause, paced above its rate: the account's pauses keep it at the service's rate, with few 429s", () => {
		const time = clock();
		// Paced at 330 a second, as after a burst into a bucket of 200 that a pause refilled.
		const pacer = pacerOn(time);
		send(pacer, time, () => 'handled', 330, 1000 / 330);
		showRateLimit(pacer);
		const service = tokenBucket(200, time.now);
		const { nextTurnIn, takeTurn } = turns(pacer);
		const feedback = feedbackOfRun();
		const pausesAt: number[] = [];
		let [attempts, throttled] = [0, 0];
		const started = time.now();
		while (time.now() - started < 60_000) {
			const turnIn = nextTurnIn();
			time.advance(Math.max(1, turnIn));
			takeTurn(turnIn > 1);
			const kind = service();
			attempts++;
			feedback.onAttemptEnd(FAILURE_OF[kind], pacer);
			if (kind !== 'rate-limited') continue;
			throttled++;
			// The service asked for a second (Retry-After): the whole account waits it out.
			pausesAt.push(time.now() - started);
			pacer.pausedMs += 1000;
			time.advance(1000);
		}
		// Held at 330, every 429 pauses the account for the second the bucket needs to refill: the
		// service's rate overall, and a 429 every few seconds (27 of about 12,000 here).
		expect(attempts / 60).toBeGreaterThan(0.97 * 200);
		expect(throttled / attempts).toBeLessThan(0.005);
		expect(pausesAt.length).toBe(throttled);
	});

	it('the 429s of requests sent before pacing began do not slow the pace below what the service accepts', () => {
		const time = clock();
		const { pacer, pace } = pacedAfterASecondOf200(time);
		const service = tokenBucket(pace, time.now);
		while (service() === 'handled');
		// For three windows, two answers 429 of requests already in flight for every paced one.
		const floodUntil = time.now() + 3 * SECOND_MS;
		const { nextTurnIn, takeTurn } = turns(pacer);
		while (time.now() < floodUntil) {
			time.advance(Math.max(1, nextTurnIn()));
			takeTurn(true);
			pacer.onAttemptEnd(service() === 'handled' ? 'handled' : 'rate-limited');
			pacer.onAttemptEnd('rate-limited');
			pacer.onAttemptEnd('rate-limited');
		}
		send(pacer, time, service, 500);
		expect(pacer.rate).toBeGreaterThan(0.97 * pace);
	});

	it('follows a limit that drops to a quarter: down to what the service answered', () => {
		const time = clock();
		const pacer = pacerOn(time);
		send(pacer, time, tokenBucket(400, time.now), 4_000);
		const before = pacer.rate as number;
		expect(before).toBeGreaterThan(300);
		send(pacer, time, tokenBucket(100, time.now), 3_000);
		expect(pacer.rate).toBeLessThan(110);
		expect(pacer.rate).toBeGreaterThan(70);
	});

	it('grows by 2% per window in which nothing was 429 and the pace held attempts back', () => {
		const time = clock();
		const pacer = pacerOn(time);
		send(pacer, time, tokenBucket(100, time.now), 500);
		const paced = pacer.rate as number;
		// Now the service allows everything: the first full windows grow the pace by 2% each.
		const until = time.now() + 4 * SECOND_MS + 1;
		while (time.now() < until) send(pacer, time, () => 'handled', 1);
		expect(pacer.rate).toBeGreaterThan(paced * 1.02 ** 2);
		expect(pacer.rate).toBeLessThan(paced * 1.02 ** 4 * 1.001);
	});

	it('after 6 seconds without a 429 grows twice as fast each second, at most 50% per second', () => {
		const time = clock();
		const pacer = pacerOn(time);
		send(pacer, time, tokenBucket(100, time.now), 500);
		const paced = pacer.rate as number;
		const paces: number[] = [];
		for (let window = 0; window < 12; window++) {
			const until = time.now() + SECOND_MS + 1;
			while (time.now() < until) send(pacer, time, () => 'handled', 1);
			paces.push(pacer.rate as number);
		}
		const growth = paces.slice(1).map((pace, i) => Math.round((pace / paces[i] - 1) * 100));
		expect(growth.filter((percent) => percent === 2).length).toBeGreaterThanOrEqual(3);
		expect(growth).toContain(4);
		expect(growth).toContain(8);
		// Periods of just over a second: a step doubles within one now and then (16% then 17%).
		expect(growth.some((percent) => percent === 16 || percent === 17)).toBe(true);
		expect(Math.max(...growth)).toBe(50);
		expect(pacer.rate).toBeGreaterThan(paced * 1.5);
	});

	it.each([
		[50, 200],
		[2, 200],
	])(
		'a learned rate of %j a second below what the service takes (%j) climbs back to it within seconds',
		(from, to) => {
			const time = clock();
			const pacer = pacerOn(time);
			const limited = tokenBucket(from, time.now);
			send(pacer, time, limited, 10 * from + 40, 0.1);
			send(pacer, time, limited, 10 * from + 40);
			expect(pacer.rate).toBeLessThan(from * 1.3);
			const service = tokenBucket(to, time.now);
			const started = time.now();
			while ((pacer.rate as number) < 0.9 * to && time.now() - started < 120_000)
				send(pacer, time, service, 1);
			// 12 s and 14 s (before: 13 s and 43 s, its doubling counted in periods of 10 answers at least).
			expect(time.now() - started).toBeLessThan(15_000);
		},
	);

	it('several runs sharing one limit (queue mode): together at the limit, few 429s, none starved', () => {
		const time = clock();
		const service = tokenBucket(200, time.now);
		const runs = [0, 1, 2, 3].map(() => ({
			pacer: pacerOn(time),
			feedback: feedbackOfRun(1000),
			left: 2_500,
			nextAt: time.now(),
			throttled: 0,
			attempts: 0,
			doneAt: 0,
		}));
		const started = time.now();
		for (;;) {
			const active = runs.filter((run) => run.left > 0);
			if (active.length === 0) break;
			const run = active.reduce((next, candidate) =>
				candidate.nextAt < next.nextAt ? candidate : next,
			);
			time.advance(run.nextAt - time.now());
			const kind = service();
			run.attempts++;
			if (kind === 'rate-limited') run.throttled++;
			else if (--run.left === 0) run.doneAt = time.now();
			run.feedback.onAttemptEnd(FAILURE_OF[kind], run.pacer);
			const { nextTurnIn, takeTurn } = turns(run.pacer);
			const turnIn = nextTurnIn();
			takeTurn(turnIn > 1);
			run.nextAt = time.now() + Math.max(1, turnIn);
		}
		const seconds = (Math.max(...runs.map((run) => run.doneAt)) - started) / 1000;
		const attempts = runs.reduce((sum, run) => sum + run.attempts, 0);
		const throttled = runs.reduce((sum, run) => sum + run.throttled, 0);
		expect(throttled / attempts).toBeLessThan(0.05);
		expect(seconds).toBeLessThan(1.1 * (10_000 / 200));
		for (const run of runs)
			expect((run.doneAt - started) / 1000).toBeGreaterThan(0.5 * (10_000 / 200));
	});

	it('random 429s of a busy service (30% of the answers) leave the run unpaced', () => {
		const time = clock();
		const pacer = pacerOn(time);
		let seed = 7;
		const random = () => (seed = (seed * 16807) % 2147483647) / 2147483647;
		send(pacer, time, () => (random() < 0.3 ? 'rate-limited' : 'handled'), 20_000);
		expect(pacer.rate).toBeUndefined();
	});

	it('a few random 429s while paced do not wear the pace down', () => {
		const time = clock();
		const { pacer, pace } = pacedAfterASecondOf200(time);
		let seed = 11;
		const random = () => (seed = (seed * 16807) % 2147483647) / 2147483647;
		// 2% of the answers 429 whatever the pace, for about 30 windows.
		send(pacer, time, () => (random() < 0.02 ? 'rate-limited' : 'handled'), 30 * pace);
		// Lowered once per window without a 429, and by a window that happens to be over 5%.
		expect(pacer.rate).toBeGreaterThan(0.8 * pace);
	});

	it('gives pacing up when the share of 429s does not fall as it slows down', () => {
		const time = clock();
		const pacer = pacerOn(time);
		send(pacer, time, () => 'handled', 500);
		showRateLimit(pacer);
		expect(pacer.rate).toBe(500);
		let n = 0;
		// Every other answer is 429, whatever the pace: each window halves it (to what was
		// answered), the share stays, and after 3 futile cuts pacing stops for good.
		let lowest = Infinity;
		for (let i = 0; i < 3_000; i++) {
			send(pacer, time, () => (n++ % 2 ? 'rate-limited' : 'handled'), 1);
			lowest = Math.min(lowest, pacer.rate ?? Infinity);
		}
		expect(pacer.rate).toBeUndefined();
		expect(lowest).toBeGreaterThan(500 * 0.5 ** 4);
		expect(lowest).toBeLessThan(500 * 0.5 ** 2);
		expect(turns(pacer).nextTurnIn()).toBe(0);
		showRateLimit(pacer);
		expect(pacer.rate).toBeUndefined();
	});

	it('counts failures other than 429 neither as answered nor as a rate limit', () => {
		const time = clock();
		const pacer = pacerOn(time);
		send(pacer, time, () => 'failed', 1_000);
		expect(pacer.rate).toBeUndefined();
	});
});
