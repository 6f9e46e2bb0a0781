/**
 * Several processes sharing one service account, as queue-mode workers do: each its own copy of
 * the engine's rate control (an AccountAdmission with its tickets and pacer, a run's automatic
 * window and its feedback, the answer's count read as the node reads it), no shared store, behind
 * the simulator's strict rate (at most the limit accepted in any window, the others answered 429
 * with Retry-After: until the window has room, in whole seconds; sliding or fixed windows), which
 * states its count or not, on virtual time with fixed seeds. Each request reaches the service 1 to
 * 4 ms after it starts (now and then 30 ms more) and is answered 1 to 3 ms later. What the issue
 * asks of the node behind such a service (issue 53): with a stated count, the account's limit
 * shared at once and nearly without 429s; from 429s alone, each process learns its share, a
 * process left alone grows back, few 429s; at low rates no two processes lock in step. The same
 * in real n8n: the queue suite (test/queue).
 */
import { realClock, useClock, clock } from '../nodes/VoiceAssistant/shared/clock';
import { AccountAdmission, type Member } from '../nodes/VoiceAssistant/shared/request/admission';
import { AttemptFeedback } from '../nodes/VoiceAssistant/shared/request/attemptFeedback';
import { RunWindow } from '../nodes/VoiceAssistant/shared/request/runWindow';
import { WindowSizer } from '../nodes/VoiceAssistant/shared/request/windowSizer';
import { statedCountOf } from '../nodes/VoiceAssistant/shared/serviceCount';
import { EventClock } from './helpers/eventClock';
import { mostInWindow } from './helpers/arrivals';
// The simulator's own reading of a strict rate and of the count it states (it imports no node code).
import { StrictRate } from './simulator/limits';
import { statedCountHeaders, checkStatedCount } from './simulator/count';

const LIMIT = 200;

type Stated = Parameters<typeof checkStatedCount>[0] | undefined;

/** The service: the simulator's strict rate, its count stated on every answer or not. */
class Service {
	private readonly rate: StrictRate;
	readonly arrivals: Array<{ at: number; ok: boolean; process: number }> = [];

	constructor(
		perSecond: number,
		private readonly stated: ReturnType<typeof checkStatedCount> | undefined,
		window: 'sliding' | 'fixed',
	) {
		const perMinute = stated ? perSecond * 60 : undefined;
		this.rate = new StrictRate({ perSecond, perMinute, window }, () => clock.now());
	}

	/** The answer to a request of `process` arriving now: Retry-After in seconds (0: accepted), its headers. */
	arrive(process: number): { retryAfterS: number; headers: Record<string, string> } {
		const at = clock.now();
		const retryAfterS = this.rate.take(at);
		this.arrivals.push({ at, ok: retryAfterS === 0, process });
		const headers = this.stated
			? statedCountHeaders(this.rate.state(at), this.stated, clock.date())
			: {};
		return { retryAfterS, headers: { ...headers, date: new Date(clock.date()).toUTCString() } };
	}
}

/** A seeded generator, so each run of the test sees the same latencies. */
function random(seed: number): () => number {
	let state = seed;
	return () => (state = (state * 16807) % 2147483647) / 2147483647;
}

interface ProcessPlan {
	items: number;
	/** The credential's Rate Limit (none: undefined). */
	limit?: number;
	startMs?: number;
}

/**
 * One process: `items` updates sent by one run with default settings (Adapt Concurrency, Max
 * Concurrent Requests 1,000), as sendItem.ts sends them: the turn, the attempt, its ticket back as
 * its end says, the answer's end and count to the feedback, a Retry-After to the account and the
 * item's wait. Returns when it ended and the rates its account held, second by second.
 */
async function process(service: Service, plan: ProcessPlan, index: number, seed: number) {
	await clock.sleep(plan.startMs ?? 0);
	const admission = new AccountAdmission(`process ${index}`);
	const { limit } = plan;
	const member: Member = {
		limit: limit === undefined ? undefined : { perSecond: limit, words: `${limit} a second` },
		held: { rateMs: 0, pauseMs: 0 },
	};
	admission.join(member);
	const sizer = new WindowSizer(1000);
	const window = new RunWindow(sizer.limit);
	const feedback = new AttemptFeedback(sizer, window);
	const next = random(index + 7 + 100 * seed);
	const never = new AbortController().signal;
	const rates: Array<number | undefined> = [];
	let done = 0;
	const watch = (async () => {
		while (done < plan.items) {
			await clock.sleep(1000);
			rates.push(admission.rateInForce.now);
		}
	})();
	await Promise.all(
		Array.from({ length: plan.items }, async () => {
			await window.use(async () => {
				for (;;) {
					const turn = await admission.turn(member, never, 300_000);
					if (!turn || 'pausedUntil' in turn) throw new Error('no turn');
					const startedAt = clock.now();
					await clock.sleep(1 + Math.floor(next() * 4) + (next() < 0.02 ? 30 : 0));
					const { retryAfterS, headers } = service.arrive(index);
					await clock.sleep(1 + Math.floor(next() * 3));
					const end = retryAfterS ? 'rate-limited' : 'answered';
					const tookMs = clock.now() - startedAt;
					turn.giveBack(end, tookMs);
					feedback.onAttemptEnd(end, admission, tookMs, statedCountOf(headers, clock.date()));
					if (!retryAfterS) return void done++;
					admission.pause(retryAfterS * 1000);
					await clock.sleep(Math.max(250, retryAfterS * 1000));
				}
			}, never);
		}),
	);
	const endedAt = clock.now();
	admission.leave(member);
	await watch;
	return { endedAt, rates };
}

/** Runs the processes together behind one service (`perSecond`, its count stated or not) and measures the service. */
async function share(
	processes: ProcessPlan[],
	{
		stated,
		window = 'sliding',
		perSecond = LIMIT,
		seed = 1,
	}: { stated?: Stated; window?: 'sliding' | 'fixed'; perSecond?: number; seed?: number } = {},
) {
	const time = new EventClock(seed);
	useClock(time);
	try {
		const service = new Service(perSecond, stated && checkStatedCount(stated), window);
		const startedAt = time.now();
		const all = Promise.all(processes.map((plan, i) => process(service, plan, i, seed)));
		await time.run(all, 1_200_000);
		const ends = await all;
		const total = processes.reduce((sum, { items }) => sum + items, 0);
		const seconds = (Math.max(...ends.map(({ endedAt }) => endedAt)) - startedAt) / 1000;
		const accepted = service.arrivals.filter(({ ok }) => ok).map(({ at }) => at);
		const throttled = service.arrivals.length - accepted.length;
		// A process left alone: from the end of the others, how long until it has 0.95 of the limit accepted in a second.
		const othersEnded = Math.max(...ends.slice(0, -1).map(({ endedAt }) => endedAt));
		const alone = accepted.filter((at) => at > othersEnded);
		let backAt: number | undefined;
		for (let last = 0, first = 0; last < alone.length && backAt === undefined; last++) {
			while (alone[first] <= alone[last] - 1000) first++;
			if (last - first + 1 >= 0.95 * perSecond) backAt = alone[last];
		}
		return {
			ends: ends.map(({ endedAt, rates }) => ({ seconds: (endedAt - startedAt) / 1000, rates })),
			timesNR: seconds / (total / perSecond),
			throughput: total / seconds / perSecond,
			throttledShare: throttled / service.arrivals.length,
			mostInASecond: mostInWindow(accepted, 1000),
			aloneBackInS: backAt === undefined ? Infinity : (backAt - othersEnded) / 1000,
		};
	} finally {
		useClock(realClock);
	}
}

const IETF: Stated = { fields: 'ietf' };

describe('one account, several processes, behind a strict 200 a second that states its count (virtual time)', () => {
	it('one process without a Rate Limit (automatic pacing): at most 0.1% 429s, within 1.03 × N/R', async () => {
		const result = await share([{ items: 10_000 }], { stated: IETF });
		expect(result.throttledShare).toBeLessThanOrEqual(0.001);
		expect(result.timesNR).toBeLessThanOrEqual(1.03);
	}, 60_000);

	it.each([2, 3])(
		"%i processes, each with the credential's full 200 or none: at least 0.95 of the limit together, at most 0.1%% 429s",
		async (count) => {
			for (const limit of [LIMIT, undefined]) {
				const result = await share(
					Array.from({ length: count }, () => ({ items: Math.round(10_000 / count), limit })),
					{ stated: IETF },
				);
				expect(result.throttledShare).toBeLessThanOrEqual(0.001);
				expect(result.throughput).toBeGreaterThanOrEqual(0.95);
				expect(result.mostInASecond).toBeLessThanOrEqual(LIMIT);
			}
		},
		60_000,
	);

	it('a process left alone reaches 0.95 of the limit within 5 s of the others ending', async () => {
		const result = await share(
			[
				{ items: 2000, limit: LIMIT },
				{ items: 2000, limit: LIMIT },
				{ items: 10_000, limit: LIMIT },
			],
			{ stated: IETF },
		);
		expect(result.aloneBackInS).toBeLessThanOrEqual(5);
		expect(result.throttledShare).toBeLessThanOrEqual(0.001);
	}, 60_000);

	it.each([
		['X-RateLimit-*, the reset in seconds', 0.95, { fields: 'x-ratelimit', reset: 'seconds' }],
		['X-RateLimit-*, the reset in Unix seconds', 0.95, { fields: 'x-ratelimit', reset: 'unix' }],
		['X-RateLimit-*, the reset as an HTTP date', 0.95, { fields: 'x-ratelimit', reset: 'date' }],
		// The second's window unstated: its 429s come while the count has room, learned as from 429s alone.
		['the minute window alone', 0.85, { fields: 'x-ratelimit', policy: 'minute' }],
	] as const)(
		'stated as %s: 2 processes at the full 200 get at least %s of the limit, at most 0.5%% 429s',
		async (_label, least, stated) => {
			const result = await share(
				[
					{ items: 5000, limit: LIMIT },
					{ items: 5000, limit: LIMIT },
				],
				{ stated },
			);
			expect(result.throttledShare).toBeLessThanOrEqual(0.005);
			expect(result.throughput).toBeGreaterThanOrEqual(least);
		},
		60_000,
	);

	it('fixed windows of the clock: 2 processes at the full 200, at most 1% 429s, at least 0.9 of the limit', async () => {
		const result = await share(
			[
				{ items: 5000, limit: LIMIT },
				{ items: 5000, limit: LIMIT },
			],
			{ stated: IETF, window: 'fixed' },
		);
		expect(result.throttledShare).toBeLessThanOrEqual(0.01);
		expect(result.throughput).toBeGreaterThanOrEqual(0.9);
	}, 60_000);
});

describe('one account, several processes, behind a strict 200 a second that states no count: from 429s alone (virtual time)', () => {
	it("one process at the credential's 200: no 429, within 1.03 × N/R", async () => {
		const result = await share([{ items: 6000, limit: LIMIT }]);
		expect(result.throttledShare).toBe(0);
		expect(result.timesNR).toBeLessThanOrEqual(1.03);
	});

	it('one process without a Rate Limit (automatic pacing): at most 2% 429s, within 1.10 × N/R, its rate never far above what the service takes', async () => {
		const result = await share([{ items: 6000 }]);
		expect(result.throttledShare).toBeLessThanOrEqual(0.02);
		expect(result.timesNR).toBeLessThanOrEqual(1.1);
		const learned = result.ends[0].rates.filter((rate): rate is number => rate !== undefined);
		expect(Math.max(...learned)).toBeLessThanOrEqual(LIMIT * 1.05);
	});

	it.each([2, 3])(
		"%i processes, each with the credential's full 200: at least 0.90 of the limit together, at most 0.5%% 429s",
		async (count) => {
			const result = await share(
				Array.from({ length: count }, () => ({ items: Math.round(10_000 / count), limit: LIMIT })),
			);
			expect(result.throttledShare).toBeLessThanOrEqual(0.005);
			expect(result.throughput).toBeGreaterThanOrEqual(0.9);
		},
		60_000,
	);

	it('2 processes without a Rate Limit: at most 2% 429s', async () => {
		const result = await share([{ items: 5000 }, { items: 5000 }]);
		expect(result.throttledShare).toBeLessThanOrEqual(0.02);
	});

	it('a process left alone is back at 0.95 of the limit within 10 s of the others ending', async () => {
		const result = await share([
			{ items: 2000, limit: LIMIT },
			{ items: 2000, limit: LIMIT },
			{ items: 12_000, limit: LIMIT },
		]);
		expect(result.aloneBackInS).toBeLessThanOrEqual(10);
	}, 60_000);
});

describe('two or three processes at low rates behind a service that accepts 1 request in any second: never in step (virtual time)', () => {
	// Each process's credential sets its Rate Limit; together at most the service's limit.
	// Together at most 0.6 of the limit: three at 0.25 (0.75) find their places slower (up to 7%
	// refused over 100 each on one of six starts), and at the whole limit (two at 0.5, three at 1/3)
	// no arrivals a request's time apart stay a second apart: the report, not held here.
	it.each([
		[2, 0.2],
		[2, 0.25],
		[3, 0.2],
	])(
		'%i processes at %d a second each, starting together or apart: at most 5%% refused, on three seeds',
		async (count, rate) => {
			for (const seed of [1, 2, 3])
				for (const apart of [0, 1700]) {
					const result = await share(
						Array.from({ length: count }, (_, i) => ({
							items: 100,
							limit: rate,
							startMs: i * apart,
						})),
						{ perSecond: 1, seed },
					);
					expect(result.throttledShare).toBeLessThanOrEqual(0.05);
				}
		},
		60_000,
	);
});
