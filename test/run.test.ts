/**
 * The Run (shared/request/run.ts), in n8n's engine in process against the simulator over HTTP:
 * a cancelled execution stops waiting out a Retry-After and the items queued for a slot leave
 * unsent; however n8n ends a run (success, a failure, a cancel, a loop that threw, a cancel during
 * a Batching pause) it leaves no timer armed and the admission registry empty, with n8n-workflow
 * 2.8's sleepWithAbort and with the sleep(ms, signal) of 2.39+, and logs one summary saying how it
 * ended, and what held it back.
 */
import { requestsReceived, useSimulator } from './helpers/simulator';
import { useFastClock } from './helpers/fastClock';
import { accountOf } from '../nodes/VoiceAssistant/shared/target';
import { nodeRuns, runNode, type RunOptions } from './helpers/runNode';
import { realClock, useClock, type Clock } from '../nodes/VoiceAssistant/shared/clock';
import { accountAdmissions } from '../nodes/VoiceAssistant/shared/request/admission';
import { API_KEY, CONTACT_UPDATE_PATH, playgroundCallParameters } from './helpers/fixtures';
import { sleepTakingSignal } from './helpers/sleepTakingSignal';
import { byColumns, contacts, namedRows, rows, runAgainst } from './helpers/contactRuns';
import { captureLog, runSummaries } from './helpers/logLines';

const sim = useSimulator();
const run = runAgainst(sim);

describe('a cancelled execution', () => {
	// The service's 200 s pause outlives the cancelled run (the next execution of the account waits
	// it out too): each case has an account of its own, on a clock 20 times faster.
	useFastClock();

	describe('waiting out a Retry-After', () => {
		const sim = useSimulator();
		const run = runAgainst(sim);

		it('stops waiting and sends nothing more', async () => {
			sim().failNext({ status: 429, headers: { 'retry-after': '200' }, path: CONTACT_UPDATE_PATH });
			const [started, at] = [nodeRuns.length, Date.now()];
			await run(contacts(), rows(1), {
				onStart: (cancel) => void requestsReceived(sim(), 1).then(cancel),
			});
			// The node's own run settles long before the 200 s wait (10 s on this clock).
			await Promise.all(nodeRuns.slice(started));
			expect(Date.now() - at).toBeLessThan(5000);
			expect(sim().requests.map((r) => r.status)).toEqual([429]);
		});
	});

	describe('with items queued for a slot', () => {
		const sim = useSimulator();
		const run = runAgainst(sim);

		it('they leave the queue without being sent', async () => {
			sim().failNext({ status: 429, headers: { 'retry-after': '200' }, path: CONTACT_UPDATE_PATH });
			const [started, at] = [nodeRuns.length, Date.now()];
			await run(contacts({ maxConcurrency: 1 }), rows(5), {
				onStart: (cancel) => void requestsReceived(sim(), 1).then(cancel),
			});
			await Promise.all(nodeRuns.slice(started));
			expect(Date.now() - at).toBeLessThan(5000);
			expect(sim().requests.map((r) => `${r.query.id}:${r.status}`)).toEqual(['c-0:429']);
		});
	});
});

describe('how a run ends', () => {
	const CLOCKS: Array<[string, Clock]> = [
		["n8n-workflow 2.8's sleepWithAbort", realClock],
		[
			'the sleep(ms, signal) of n8n-workflow 2.39+',
			{
				now: () => performance.now(),
				date: () => Date.now(),
				sleep: async (ms, signal) => await sleepTakingSignal(ms, signal).catch(() => undefined),
			},
		],
	];

	/** The node arms timers only through its clock: the clock's sleeps still pending are its timers. */
	let sleeping = 0;
	const counting = (clock: Clock): Clock => ({
		now: clock.now,
		date: clock.date,
		sleep: async (ms, signal) => {
			sleeping++;
			try {
				await clock.sleep(ms, signal);
			} finally {
				sleeping--;
			}
		},
	});

	/** Resolves once one of the node's clock sleeps is pending: with Batching, n8n's loop has paused. */
	const sleepPending = async () => {
		while (sleeping === 0) await new Promise((resolve) => setTimeout(resolve, 5));
	};

	/** How n8n ends the run: each case's node parameters and what it does while the run goes on. */
	const ENDINGS: Array<[string, () => Omit<RunOptions, 'credentials'>, string]> = [
		['success', () => ({ parameters: byColumns, items: namedRows(3) }), 'done'],
		[
			'a failure',
			() => {
				sim().failNext({ status: 422, path: CONTACT_UPDATE_PATH, id: 'contact-1' });
				return { parameters: byColumns, items: namedRows(3) };
			},
			'stopped',
		],
		[
			'a cancel while an item waits out Retry-After',
			() => {
				sim().failNext({
					status: 503,
					headers: { 'retry-after': '2' },
					path: CONTACT_UPDATE_PATH,
				});
				return {
					parameters: byColumns,
					items: namedRows(1),
					onStart: (cancel) => void requestsReceived(sim(), 1).then(cancel),
				};
			},
			'cancelled',
		],
		[
			"n8n's loop threw (the last item's expression fails): abandoned",
			() => ({
				// n8n resolves the routed fields in its own loop: the third item's expression throws there.
				parameters: {
					...playgroundCallParameters,
					firstName: "={{ $json.name ?? $('Nope').item.json.name }}",
				},
				items: [{ json: { name: 'Ada' } }, { json: { name: 'Grace' } }, { json: {} }],
			}),
			'abandoned',
		],
		[
			'a cancel during a Batching pause',
			() => ({
				parameters: {
					...byColumns,
					requestOptions: { batching: { batch: { batchSize: 1, batchInterval: 400 } } },
				},
				items: namedRows(4),
				// The node's only sleep before Batching lets it send is its watch of n8n's paused loop.
				onStart: (cancel) => void sleepPending().then(cancel),
			}),
			'cancelled',
		],
	];

	describe.each(CLOCKS)('with %s', (_name, clock) => {
		beforeAll(() => useClock(counting(clock)));
		afterAll(() => useClock(realClock));
		let lines: string[];
		beforeEach(() => (lines = captureLog()));

		it.each(ENDINGS)(
			'%s: no timer left, the admission forgotten, one summary line',
			async (_ending, arrange, how) => {
				await runNode({ ...arrange(), credentials: { apiKey: API_KEY, baseUrl: sim().url } });
				await Promise.all(nodeRuns);
				// The account is forgotten on its own, once a Retry-After pause a run set is over.
				const id = accountOf(sim().url, API_KEY);
				while (accountAdmissions.has(id)) await new Promise((resolve) => setTimeout(resolve, 20));
				await new Promise((resolve) => setImmediate(resolve));
				expect(sleeping).toBe(0);
				const summaries = runSummaries(lines);
				expect(summaries).toHaveLength(1);
				expect(summaries[0]).toMatch(new RegExp(`^Voice Assistant "Voice Assistant": ${how}`));
			},
		);
	});
});

describe('the summary says what held the run back', () => {
	let lines: string[];
	beforeEach(() => (lines = captureLog()));
	const summary = () => runSummaries(lines).at(-1) ?? '';
	const batching = (batchSize: number) => ({
		requestOptions: { batching: { batch: { batchSize, batchInterval: 50 } } },
	});
	const credentials = (rateLimit?: number) => ({
		credentials: { apiKey: API_KEY, baseUrl: sim().url, ...(rateLimit ? { rateLimit } : {}) },
	});

	it("n8n's Batching that held requests back: it says so and names the credential's Rate Limit", async () => {
		const { error } = await run({ ...contacts(), ...batching(2) }, rows(4));
		expect(error).toBeUndefined();
		expect(summary()).toMatch(
			/: done: 4 items .*\. n8n's Batching held requests back .*: to space requests, set the credential's Rate Limit and turn Batching off$/,
		);
	});

	it('Batching that held nothing back (4 items, batches of 10): no word of it', async () => {
		const { error } = await run({ ...contacts(), ...batching(10) }, rows(4));
		expect(error).toBeUndefined();
		expect(summary()).toMatch(
			/: done: 4 items in \d+\.\d s: 4 succeeded, 0 failed, 0 retries, up to \d+ requests in flight$/,
		);
	});

	it('a run whose account has a Rate Limit: no Batching advice; it says how long the rate held it back', async () => {
		const { error } = await run({ ...contacts(), ...batching(2) }, rows(4), credentials(2));
		expect(error).toBeUndefined();
		expect(summary()).toMatch(
			/, held back \d+\.\d s by the account's rate limit \(2 requests a second, set on credential "Test account"\)$/,
		);
		const heldSeconds = Number(/held back (\d+\.\d) s/.exec(summary())?.[1]);
		// 4 requests at 2 a second, the first at once: 1.5 s held (less what Batching held first).
		expect(heldSeconds).toBeGreaterThanOrEqual(1);
		expect(heldSeconds).toBeLessThanOrEqual(1.6);
	});

	it('a request waiting for its turn is not in flight: 3 items at 1 a second, each answered at once, were never more than 1 in flight', async () => {
		const { error } = await run(contacts(), rows(3), credentials(1));
		expect(error).toBeUndefined();
		// All 3 hold a slot of the window from the start; only the one past its turn is in flight. A
		// second between starts: a busy machine answers each long before the next (at 10 a second,
		// a load of 15 on 2 cores made it 2 in flight).
		expect(summary()).toMatch(/: 3 succeeded, 0 failed, 0 retries, up to 1 requests in flight, /);
	});

	it("under the credential's Rate Limit of 2 a second, Max Requests per Second 5 held nothing of its own: the summary names the Rate Limit alone, for no longer than the run took", async () => {
		const { error } = await run(contacts({ maxRequestsPerSecond: 5 }), rows(8), credentials(2));
		expect(error).toBeUndefined();
		expect(summary()).toMatch(
			/, held back \d+\.\d s by the account's rate limit \(2 requests a second, set on credential "Test account"\)$/,
		);
		const [took, held] = [/items in (\d+\.\d) s/, /held back (\d+\.\d) s/].map((words) =>
			Number(words.exec(summary())?.[1]),
		);
		expect(held).toBeLessThanOrEqual(took);
	});

	it('a Retry-After: it says the account paused, and how long', async () => {
		sim().failNext({ status: 429, headers: { 'retry-after': '1' }, path: CONTACT_UPDATE_PATH });
		const { error } = await run(contacts(), rows(3));
		expect(error).toBeUndefined();
		expect(summary()).toMatch(/, paused 1\.0 s as the service asked \(Retry-After\)$/);
	});
});
