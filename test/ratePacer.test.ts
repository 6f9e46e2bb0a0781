/**
 * The rate pacer (shared/request/ratePacer.ts) driven by a fake clock and scripted answers (no
 * timers, no timing asserts): a token bucket and a strict service (at most N in any second) like
 * real rate limits, random 429s like a busy service. Attempts go one after the other, each at
 * the turn the account's tickets give at the pacer's rate (as the admission does), a 429 pausing
 * the account for its Retry-After. Several processes sharing an account: test/sharedAccount.test.ts.
 */
import { realClock, useClock } from '../nodes/VoiceAssistant/shared/clock';
import { RatePacer, type PacerKind } from '../nodes/VoiceAssistant/shared/request/ratePacer';
import { RateTickets, SECOND_MS } from '../nodes/VoiceAssistant/shared/request/rateTickets';

/** The fake clock's time: each test starts its own at the same time, so none sees where another left it. */
let now = 0;
beforeEach(() => {
	now = 1_000_000;
	useClock({ now: () => now, date: () => now, sleep: realClock.sleep });
});
afterEach(() => useClock(realClock));

/** A service allowing `perSecond` with a bucket of one second's worth. */
function tokenBucket(perSecond: number) {
	let [tokens, last] = [perSecond, now];
	return (): PacerKind => {
		tokens = Math.min(perSecond, tokens + ((now - last) / 1000) * perSecond);
		last = now;
		if (tokens < 1) return 'rate-limited';
		tokens -= 1;
		return 'handled';
	};
}

/** A service accepting at most `perSecond` in any trailing second (429s not counted). */
function strict(perSecond: number) {
	const accepted: number[] = [];
	return (): PacerKind => {
		while (accepted.length > 0 && accepted[0] <= now - SECOND_MS) accepted.shift();
		if (accepted.length >= perSecond) return 'rate-limited';
		accepted.push(now);
		return 'handled';
	};
}

/** 429s at random, `share` of the answers, whatever the rate. */
function busy(share: number, seed = 7) {
	let state = seed;
	return (): PacerKind =>
		(state = (state * 16807) % 2147483647) / 2147483647 < share ? 'rate-limited' : 'handled';
}

/** An account of one process: its pacer, its tickets at the pacer's rate (or the Rate Limit `limit`). */
function account(limit?: number) {
	const pacer = new RatePacer();
	const tickets = new RateTickets();
	const rate = () => pacer.rate(limit) ?? limit;
	let pausedUntil = 0;
	/**
	 * `attempts` attempts one after the other, each taking `tookMs`, as fast as the account lets
	 * them (a sender that would otherwise send one every `gapMs`); a 429 pauses the account for
	 * `retryAfterMs`. Returns how many the service answered 429 and how long they took.
	 */
	const send = (
		service: () => PacerKind,
		attempts: number,
		gapMs = 1,
		tookMs = 1,
		retryAfterMs = 0,
	) => {
		let throttled = 0;
		const from = now;
		for (let i = 0; i < attempts; i++) {
			now += gapMs;
			if (pausedUntil > now) now = pausedUntil;
			const turnIn = tickets.nextTurnIn(rate());
			now += turnIn;
			const ticket = tickets.take(rate());
			pacer.started(turnIn > 0);
			const startedAt = now;
			now += tookMs;
			const kind = service();
			ticket.giveBack(true);
			pacer.onAttemptEnd({ kind, startedAt, cut: false }, limit);
			if (kind !== 'rate-limited') continue;
			throttled++;
			if (retryAfterMs > 0 && pausedUntil < now + retryAfterMs) {
				pacer.pausedMs += now + retryAfterMs - Math.max(now, pausedUntil);
				pausedUntil = now + retryAfterMs;
			}
		}
		return { throttled, seconds: (now - from) / 1000 };
	};
	/** Sends for `ms` at whatever the account allows. */
	const sendFor = (service: () => PacerKind, ms: number) => {
		const until = now + ms;
		while (now < until) send(service, 1);
	};
	return { pacer, rate, send, sendFor };
}

/**
 * The pacer after a second of `perSecond` answers, then evidence of a rate limit: a 429 with a
 * Rate Limit, 16 in a row without.
 */
function pacedAt(perSecond: number, limit?: number) {
	const paced = account(limit);
	paced.send(() => 'handled', perSecond, SECOND_MS / perSecond, 0);
	paced.send(() => 'rate-limited', limit === undefined ? 16 : 1, 0, 0);
	return paced;
}

describe('RatePacer', () => {
	it('does not pace while the service answers, nor for failures other than 429', () => {
		const { pacer, send } = account();
		send(() => 'handled', 5_000);
		send(() => 'failed', 1_000);
		expect(pacer.rate(undefined)).toBeUndefined();
	});

	it("pacing starts at what the service handled in the last second it was sent to (a Retry-After pause of the account's left out), never at nothing", () => {
		expect(pacedAt(200).pacer.rate(undefined)).toBeGreaterThanOrEqual(198);
		expect(pacedAt(200).pacer.rate(undefined)).toBeLessThanOrEqual(200);
		const nothing = account();
		nothing.send(() => 'rate-limited', 20);
		expect(nothing.pacer.rate(undefined)).toBeUndefined();
		const paused = account();
		paused.send(() => 'handled', 200, 5, 0);
		paused.pacer.pausedMs += 1000;
		now += 1000;
		paused.send(() => 'rate-limited', 16, 0, 0);
		expect(paused.pacer.rate(undefined)).toBeGreaterThanOrEqual(198);
	});

	it('without a Rate Limit, on evidence: 16 of the latest 20 ends 429, or a window cut with 2 429s since the last; a lone 429 (its Retry-After answers it) paces nothing', () => {
		const lone = account();
		lone.send(() => 'handled', 200, 5, 0);
		lone.send(() => 'rate-limited', 1, 0, 0);
		lone.send(() => 'handled', 5, 0, 0);
		expect(lone.pacer.rate(undefined)).toBeUndefined();
		lone.send(() => 'rate-limited', 15, 0, 0);
		expect(lone.pacer.rate(undefined)).toBeUndefined(); // 15 of the latest 20
		lone.send(() => 'rate-limited', 1, 0, 0);
		expect(lone.pacer.rate(undefined)).toBeGreaterThan(150);
		const cut = account();
		cut.send(() => 'handled', 200, 5, 0);
		cut.pacer.onAttemptEnd({ kind: 'rate-limited', startedAt: now, cut: false });
		expect(cut.pacer.rate(undefined)).toBeUndefined();
		cut.pacer.onAttemptEnd({ kind: 'rate-limited', startedAt: now, cut: true });
		expect(cut.pacer.rate(undefined)).toBeGreaterThan(150);
	});

	it('with a Rate Limit, a 429 while it holds requests back, once the service handled a tenth of it in the last second (another process shares the account); a fixed window starts nothing', () => {
		const early = account(200);
		early.send(() => 'handled', 19, 0, 0); // each waits its turn: 5 ms apart
		early.send(() => 'rate-limited', 1, 0, 0);
		expect(early.pacer.rate(200)).toBeUndefined();
		early.send(() => 'handled', 2, 0, 0);
		early.send(() => 'rate-limited', 1, 0, 0);
		expect(early.pacer.rate(200)).toBe(21);
		// Not held back by the Rate Limit (one request now and then): a 429 is its own business.
		const idle = account(2);
		idle.send(() => 'handled', 1, 0, 0);
		now += 5000;
		idle.send(() => 'rate-limited', 1, 5000, 0);
		expect(idle.pacer.rate(2)).toBeUndefined();
		const fixed = new RatePacer();
		for (let i = 0; i < 100; i++) fixed.onAttemptEnd({ kind: 'handled', startedAt: (now += 5) });
		for (let i = 0; i < 20; i++)
			fixed.onAttemptEnd({ kind: 'rate-limited', startedAt: (now += 1) }, 200);
		expect(fixed.rate(200)).toBeUndefined();
	});

	it('learns a share below the Rate Limit in force, never above it; pacing that began at it says so (another process shares the account)', () => {
		const shared = account(200);
		shared.send(strict(150), 400, 0, 0); // the service takes 150 of the 200 a second sent
		expect(shared.pacer.rate(200)).toBeGreaterThanOrEqual(140);
		expect(shared.pacer.rate(200)).toBeLessThanOrEqual(150);
		expect(shared.pacer.cutAtLimit).toBe(true);
		const alone = account(200);
		alone.send(strict(300), 1000, 0, 0);
		expect(alone.pacer.rate(200)).toBeUndefined();
		expect(pacedAt(150).pacer.cutAtLimit).toBe(false);
	});

	it('the 429s of requests started before the news are the same news', () => {
		const { pacer, send } = pacedAt(200);
		const startedBefore = now - 1;
		for (let i = 0; i < 50; i++)
			pacer.onAttemptEnd({ kind: 'rate-limited', startedAt: startedBefore, cut: false });
		const before = pacer.rate(undefined);
		send(() => 'handled', 10);
		expect(pacer.rate(undefined)).toBe(before);
	});

	it('holding a rate, the first news is another process probing and passes; more news cuts to what the service handled', () => {
		const { pacer, send } = pacedAt(200);
		send(strict(100), 150);
		expect(pacer.rate(undefined)).toBeLessThanOrEqual(150);
		expect(pacer.rate(undefined)).toBeGreaterThan(90);
	});

	it('after 10 s holding requests back, grows by 1% of the rate it began at (or of its rate, if higher) a second for 3 s, then twice as fast each second, at most 50%; not while it holds nothing back', () => {
		const { pacer, sendFor } = pacedAt(100);
		const rates: number[] = [];
		for (let second = 0; second < 24; second++) {
			sendFor(() => 'handled', SECOND_MS);
			rates.push(pacer.rate(undefined) as number);
		}
		expect(rates.slice(0, 9).every((rate) => rate === 100)).toBe(true);
		// Began at 100 a second: steps of 1, 1, 1, 2, 4… a second; past 100, a share of its own rate.
		const growth = rates.slice(9).map((rate, i) => Math.round(rate - rates[8 + i]));
		expect(growth.slice(0, 6)).toEqual([1, 1, 1, 2, 4, 9]);
		const shares = rates.slice(9).map((rate, i) => rate / rates[8 + i] - 1);
		expect(Math.max(...shares)).toBeCloseTo(0.5);
		// Idle: no request waits, nothing to judge by.
		const idle = pacer.rate(undefined) as number;
		now += 60_000;
		expect(pacer.rate(undefined)).toBe(idle);
	});

	it('grows up to the Rate Limit in force, where pacing ends', () => {
		const { pacer, sendFor } = pacedAt(100, 200);
		sendFor(() => 'handled', 40_000);
		expect(pacer.rate(200)).toBeUndefined();
		expect(pacer.cutAtLimit).toBe(false);
	});

	it('a probe that meets 429s goes back to the rate that held; soon met, the next hold doubles (at most 20 s), later met, it is 10 s again', () => {
		const { pacer, sendFor } = pacedAt(100);
		const limit = strict(100);
		const throttledAt: number[] = [];
		const from = now;
		const service = () => {
			const kind = limit();
			if (kind === 'rate-limited') throttledAt.push(Math.round((now - from) / 1000));
			return kind;
		};
		sendFor(service, 130_000);
		expect(pacer.rate(undefined)).toBe(100);
		// Each probe meets a 429 at its first step: held 10 s, then 20 s each time.
		expect(throttledAt).toEqual([10, 30, 50, 70, 90, 110]);
		// The service now takes 130 a second: a probe meets its 429s after 6 s of growth, goes back to
		// the rate of its last step (118), and probes again after 10 s.
		const raised = strict(130);
		sendFor(raised, 60_000);
		expect(pacer.rate(undefined)).toBeGreaterThan(115);
		expect(pacer.rate(undefined)).toBeLessThanOrEqual(130);
	});

	it('a learned rate below what the service takes climbs back: 2 to 200 a second within 30 s', () => {
		const { pacer, send } = pacedAt(2);
		const from = now;
		const service = strict(200);
		while ((pacer.rate(undefined) ?? Infinity) < 0.9 * 200 && now - from < 120_000)
			send(service, 1);
		expect(now - from).toBeLessThan(30_000);
	});

	it('behind a token bucket of 200 a second: at most 2% 429s over 10,000, at least 0.9 of its rate', () => {
		const { send } = account();
		const { throttled, seconds } = send(tokenBucket(200), 10_000, 0, 1, 1000);
		expect(throttled / 10_000).toBeLessThan(0.02);
		expect((10_000 - throttled) / seconds).toBeGreaterThan(0.9 * 200);
	});

	it('follows a limit that drops to a quarter: down to what the service handled', () => {
		const { pacer, send } = account();
		send(strict(400), 4_000);
		expect(pacer.rate(undefined)).toBeGreaterThan(300);
		send(strict(100), 3_000);
		expect(pacer.rate(undefined)).toBeLessThanOrEqual(110);
		expect(pacer.rate(undefined)).toBeGreaterThan(70);
	});

	it('random 429s of a busy service (30% of the answers) leave the account unpaced', () => {
		const { pacer, send } = account();
		send(busy(0.3), 20_000);
		expect(pacer.rate(undefined)).toBeUndefined();
	});
});
