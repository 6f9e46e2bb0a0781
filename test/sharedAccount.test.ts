/**
 * Several processes sharing one service account, as queue-mode workers do: each its own copy of
 * the engine's rate control (an AccountAdmission with its tickets and pacer, a run's automatic
 * window and its feedback), no shared store, behind a strict service that accepts at most 200
 * requests in any trailing second and answers the others 429 (Retry-After: until a place frees,
 * in whole seconds), on virtual time. Each request reaches the service 1 to 4 ms after it
 * starts (now and then 30 ms more) and is answered 1 to 3 ms later. What the issue asks of the
 * node behind such a service: at most the limit in any second at the service; each process
 * learns its share below a Rate Limit set at the account's full limit and grows back when the
 * 429s stop; few 429s. The same in real n8n: the queue suite (test/queue).
 */
import { realClock, useClock, clock } from '../nodes/VoiceAssistant/shared/clock';
import { AccountAdmission, type Member } from '../nodes/VoiceAssistant/shared/request/admission';
import { AttemptFeedback } from '../nodes/VoiceAssistant/shared/request/attemptFeedback';
import { RunWindow } from '../nodes/VoiceAssistant/shared/request/runWindow';
import { WindowSizer } from '../nodes/VoiceAssistant/shared/request/windowSizer';
import { EventClock } from './helpers/eventClock';
import { mostInWindow } from './helpers/arrivals';

const LIMIT = 200;

/** The service: at most LIMIT accepted in any trailing second; a refusal is not counted. */
class StrictService {
	private readonly accepted: number[] = [];
	readonly arrivals: Array<{ at: number; ok: boolean }> = [];

	/** 0: accepted; else the Retry-After in seconds. */
	arrive(at: number): number {
		while (this.accepted.length > 0 && this.accepted[0] <= at - 1000) this.accepted.shift();
		const ok = this.accepted.length < LIMIT;
		this.arrivals.push({ at, ok });
		if (ok) this.accepted.push(at);
		return ok ? 0 : Math.max(1, Math.ceil((this.accepted[0] + 1000 - at) / 1000));
	}
}

/** A seeded generator, so each run of the test sees the same latencies. */
function random(seed: number): () => number {
	let state = seed;
	return () => (state = (state * 16807) % 2147483647) / 2147483647;
}

/**
 * One process: `items` updates sent by one run with default settings (Adapt Concurrency, Max
 * Concurrent Requests 1,000), its credential's Rate Limit `limit` (none: undefined), from `startMs`.
 * Returns when it ended and the rates its account held, second by second.
 */
async function process(
	service: StrictService,
	items: number,
	limit: number | undefined,
	seed: number,
	startMs = 0,
) {
	await clock.sleep(startMs);
	const admission = new AccountAdmission(`process ${seed}`);
	const words = `${limit} requests a second`;
	const member: Member = {
		limit: limit === undefined ? undefined : { perSecond: limit, words },
		held: { rateMs: 0, pauseMs: 0 },
	};
	admission.join(member);
	const sizer = new WindowSizer(1000);
	const window = new RunWindow(sizer.limit);
	const feedback = new AttemptFeedback(sizer, window);
	const next = random(seed);
	const never = new AbortController().signal;
	const rates: Array<number | undefined> = [];
	let done = 0;
	const watch = (async () => {
		while (done < items) {
			await clock.sleep(1000);
			rates.push(admission.rateInForce.now);
		}
	})();
	await Promise.all(
		Array.from({ length: items }, async () => {
			await window.use(async () => {
				for (;;) {
					const turn = await admission.turn(member, never, 300_000);
					if (!turn || 'pausedUntil' in turn) throw new Error('no turn');
					const startedAt = clock.now();
					await clock.sleep(1 + Math.floor(next() * 4) + (next() < 0.02 ? 30 : 0));
					const retryAfterS = service.arrive(clock.now());
					await clock.sleep(1 + Math.floor(next() * 3));
					turn.giveBack(true);
					feedback.onAttemptEnd(
						retryAfterS ? 'rate-limited' : 'answered',
						admission,
						clock.now() - startedAt,
					);
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

/** Runs processes of `items` each together (one with `limit` each) and measures the service. */
async function share(processes: Array<{ items: number; limit?: number; startMs?: number }>) {
	const time = new EventClock();
	useClock(time);
	try {
		const service = new StrictService();
		const startedAt = time.now();
		const all = Promise.all(
			processes.map(({ items, limit, startMs }, i) =>
				process(service, items, limit, i + 7, startMs),
			),
		);
		await time.run(all, 600_000);
		const ends = await all;
		const total = processes.reduce((sum, { items }) => sum + items, 0);
		const seconds = (Math.max(...ends.map(({ endedAt }) => endedAt)) - startedAt) / 1000;
		const accepted = service.arrivals.filter(({ ok }) => ok).map(({ at }) => at);
		const after5s = accepted.filter((at) => at > startedAt + 5000);
		const throttled = service.arrivals.length - accepted.length;
		return {
			ends: ends.map(({ endedAt, rates }) => ({ seconds: (endedAt - startedAt) / 1000, rates })),
			timesNR: seconds / (total / LIMIT),
			throughput: total / seconds / LIMIT,
			throttledShare: throttled / total,
			mostInASecond: mostInWindow(accepted, 1000),
			mostAfter5s: mostInWindow(
				service.arrivals.filter(({ at }) => at > startedAt + 5000).map(({ at }) => at),
				1000,
			),
			acceptedAfter5s: mostInWindow(after5s, 1000),
		};
	} finally {
		useClock(realClock);
	}
}

describe('one account, several processes, behind a strict 200 a second (virtual time)', () => {
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
		"%i processes, each with the credential's full 200: each learns its share; at most 0.5%% 429s, no second above 1.1 × the limit after the first 5 s, 0.85 of the limit's throughput at least",
		async (count) => {
			const result = await share(
				Array.from({ length: count }, () => ({ items: 6000 / count, limit: LIMIT })),
			);
			expect(result.throttledShare).toBeLessThanOrEqual(0.005);
			expect(result.mostAfter5s).toBeLessThanOrEqual(1.1 * LIMIT);
			expect(result.mostInASecond).toBeLessThanOrEqual(LIMIT);
			expect(result.throughput).toBeGreaterThanOrEqual(0.85);
		},
		60_000,
	);

	it('2 processes without a Rate Limit: at most 2% 429s', async () => {
		const result = await share([{ items: 3000 }, { items: 3000 }]);
		expect(result.throttledShare).toBeLessThanOrEqual(0.02);
	});

	it('a process left alone grows back to its Rate Limit once the 429s stop: within 60 s of the other one ending', async () => {
		const result = await share([
			{ items: 2000, limit: LIMIT },
			{ items: 16_000, limit: LIMIT },
		]);
		const [short, long] = result.ends;
		// Second by second after the short one ended: the long one's rate is the Rate Limit again.
		const back = long.rates.findIndex((rate, second) => second >= short.seconds && rate === LIMIT);
		expect(back).toBeGreaterThan(0);
		expect(back - short.seconds).toBeLessThanOrEqual(60);
	}, 60_000);
});
