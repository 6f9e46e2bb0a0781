/**
 * The rate pacer (shared/request/ratePacer.ts) driven by a fake clock and scripted answers (no
 * timers, no timing asserts): a token bucket and a strict service (at most N in any second) like
 * real rate limits, random 429s like a busy service. Attempts go one after the other, each at
 * the turn the account's tickets give at the pacer's rate (as the admission does), a 429 pausing
 * the account for its Retry-After. Several processes sharing an account: test/sharedAccount.test.ts.
 */
import { realClock, SECOND_MS, useClock } from '../nodes/VoiceAssistant/shared/clock';
import { RatePacer, type PacerKind } from '../nodes/VoiceAssistant/shared/request/ratePacer';
import { RateTickets } from '../nodes/VoiceAssistant/shared/request/rateTickets';

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

	it('news of a lower limit cuts to what the service handled, then returns to it', () => {
		const { pacer, send } = pacedAt(200);
		send(strict(100), 150);
		expect(pacer.rate(undefined)).toBeLessThanOrEqual(150);
		expect(pacer.rate(undefined)).toBeGreaterThan(90);
	});

	it('holding requests back, it stays at what the service took 2 s, then grows by 5% of itself a second, twice as much each second after, at most 100%; not while it holds nothing back', () => {
		const { pacer, sendFor } = pacedAt(100);
		const rates: number[] = [];
		for (let second = 0; second < 8; second++) {
			sendFor(() => 'handled', SECOND_MS);
			rates.push(pacer.rate(undefined) as number);
		}
		expect(rates.map((rate) => Math.round(rate * 10) / 10)).toEqual([
			100, 100, 105, 115.5, 138.6, 194, 349.3, 698.5,
		]);
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

	it('news cuts to 90% of what the service took, then back to it by 10% a second; behind a strict 100 a second a cycle of about 6 s, at least 95% of the limit taken', () => {
		const { pacer, send } = pacedAt(100);
		const limit = strict(100);
		while ((pacer.rate(undefined) as number) >= 100) send(limit, 1);
		// The growth met the limit: cut to 90% of what the service handled in the last second (99 or 100).
		const cut = pacer.rate(undefined) as number;
		expect(cut).toBeGreaterThanOrEqual(89);
		expect(cut).toBeLessThanOrEqual(90);
		const sendFor = (ms: number) => {
			for (const until = now + ms; now < until; ) send(limit, 1);
		};
		sendFor(SECOND_MS);
		expect(pacer.rate(undefined)).toBeCloseTo(cut * 1.1);
		sendFor(SECOND_MS);
		expect(pacer.rate(undefined)).toBeCloseTo(cut / 0.9);
		const { throttled, seconds } = send(limit, 6_000);
		expect(throttled / seconds).toBeLessThanOrEqual(1);
		expect((6_000 - throttled) / seconds).toBeGreaterThanOrEqual(95);
	});

	it('a learned rate below what the service takes climbs back: 2 to 200 a second within 30 s', () => {
		const { pacer, send } = pacedAt(2);
		const from = now;
		const service = strict(200);
		while ((pacer.rate(undefined) ?? Infinity) < 0.9 * 200 && now - from < 120_000)
			send(service, 1);
		expect(now - from).toBeLessThan(30_000);
	});

	it('a learned rate below 1 a second climbs back as fast, counted in its own spacing: 0.2 to 200 a second within 30 s', () => {
		// Requests at 0.2 a second start 5 s apart: one that waited is evidence for the spacing after it.
		const { pacer, send } = pacedAt(2);
		(pacer as unknown as { hold(rate: number): void }).hold(0.2);
		const from = now;
		const service = strict(200);
		while ((pacer.rate(undefined) ?? Infinity) < 0.9 * 200 && now - from < 300_000)
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

	it("a stated count paces at this process's share of it, and its 429 saying nothing remained is no news", () => {
		const { pacer } = account(200);
		const count = { quota: 200, windowMs: 1000, remaining: 120, resetMs: 400 };
		for (let i = 0; i < 30; i++) pacer.started(false);
		// 80 used of 200, 30 of them this process's: others used 50, 4 kept: 146 a second.
		pacer.onAttemptEnd({ kind: 'handled', startedAt: now, count }, 200);
		expect(pacer.rate(200)).toBe(146);
		const refused = { ...count, remaining: 0 };
		for (let i = 0; i < 20; i++) {
			now += 1;
			pacer.started(true);
			pacer.onAttemptEnd({ kind: 'rate-limited', startedAt: now, cut: false, count: refused }, 200);
		}
		// 200 used, 30 own (the 20 refused not counted): others 170, 4 kept, 26 left.
		expect(pacer.rate(200)).toBe(26);
		expect(pacer.cutAtLimit).toBe(false);
	});

	it('random 429s of a busy service (30% of the answers) leave the account unpaced', () => {
		const { pacer, send } = account();
		send(busy(0.3), 20_000);
		expect(pacer.rate(undefined)).toBeUndefined();
	});
});
