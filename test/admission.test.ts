/**
 * The account's admission (shared/request/admission.ts): one per service account in this process,
 * shared by every run sending to it. On virtual time: the registry and its lifecycle (forgotten
 * on its own once its window passed), fair turns between runs, cancels, Retry-After pauses. In
 * n8n's engine against the simulator over HTTP: the credential's Rate Limit
 * over runs that follow each other and runs without a cap of their own, a node's Max Requests per
 * Second holding only its own requests, Retry-After pausing every run, Dry Run taking no turn.
 */
import { getEventListeners } from 'node:events';
import { realClock, useClock } from '../nodes/VoiceAssistant/shared/clock';
import {
	accountAdmissions,
	joinAdmission,
	type Member,
} from '../nodes/VoiceAssistant/shared/request/admission';
import { accountOf } from '../nodes/VoiceAssistant/shared/target';
import { VirtualClock } from './helpers/virtualClock';
import { runNode } from './helpers/runNode';
import { useSimulator } from './helpers/simulator';
import { API_KEY, CONTACT_UPDATE_PATH } from './helpers/fixtures';
import { contacts, rows, runAgainst } from './helpers/contactRuns';
import { ARRIVAL_SLACK_MS, apart, mostInWindow } from './helpers/arrivals';

/** A run as the admission knows it. */
const member = (perSecond?: number): Member => ({
	limit: perSecond ? { perSecond, words: `${perSecond} requests a second` } : undefined,
	held: { rateMs: 0, pauseMs: 0 },
});

const NEVER = new AbortController().signal;
let account = 0;
/** A fresh account per test: the registry is the process's. */
const nextAccount = () => accountOf('https://api.example.com', `key-${account++}`);

describe('the account admission, on virtual time', () => {
	let clock: VirtualClock;
	beforeEach(() => useClock((clock = new VirtualClock())));
	afterEach(() => useClock(realClock));

	/** Starts `count` turns of `who` now; resolves each to the virtual time it was let through. */
	const turns = (
		admission: ReturnType<typeof joinAdmission>,
		who: Member,
		count: number,
		signal = NEVER,
	) =>
		Array.from({ length: count }, async () => {
			await admission.turn(who, signal);
			return clock.now();
		});

	it('runs of one account share its admission; another key or Base URL has its own', () => {
		const id = nextAccount();
		const [a, b] = [member(), member()];
		const first = joinAdmission(id, a);
		expect(joinAdmission(id, b)).toBe(first);
		expect(joinAdmission(accountOf('https://api.example.com', 'other-key'), member())).not.toBe(
			first,
		);
		expect(joinAdmission(accountOf('https://other.example.com', 'key-0'), member())).not.toBe(
			first,
		);
		expect(accountOf('https://API.Example.com/', ' key-1 ')).toBe(
			accountOf('https://api.example.com', 'key-1'),
		);
		expect(id).not.toContain('key-');
	});

	it('without a rate, a pause or a lane in use, it is forgotten as its last run leaves', () => {
		const id = nextAccount();
		const run = member();
		const admission = joinAdmission(id, run);
		admission.leave(run);
		expect(accountAdmissions.has(id)).toBe(false);
	});

	it('keeps its starts after its last run left until their window passed, then forgets the account on its own: executions that follow each other keep the rate', async () => {
		const id = nextAccount();
		const first = member(1);
		const admission = joinAdmission(id, first);
		await Promise.all(turns(admission, first, 1));
		admission.leave(first);
		expect(accountAdmissions.get(id)).toBe(admission);
		// The next execution, 300 ms later, waits for the rate: 1 a second, spaced 1,010 ms.
		await clock.advance(300);
		const next = member(1);
		expect(joinAdmission(id, next)).toBe(admission);
		const started = clock.now();
		const [at] = turns(admission, next, 1);
		await clock.advance(710);
		expect((await at) - started).toBe(710);
		admission.leave(next);
		await clock.advance(1009);
		expect(accountAdmissions.get(id)).toBe(admission);
		await clock.advance(2);
		expect(accountAdmissions.has(id)).toBe(false);
		expect(clock.pending).toBe(0);
	});

	it('hands out turns round robin between runs: a tool call does not wait behind a bulk run', async () => {
		const id = nextAccount();
		const [bulk, tool] = [member(10), member(10)];
		const admission = joinAdmission(id, bulk);
		joinAdmission(id, tool);
		const order: string[] = [];
		const bulkTurns = turns(admission, bulk, 5).map((at, n) =>
			at.then(() => order.push(`bulk${n}`)),
		);
		await clock.advance(0);
		const toolTurn = turns(admission, tool, 1)[0].then(() => order.push('tool'));
		await clock.advance(1000);
		await Promise.all([...bulkTurns, toolTurn]);
		expect(order).toEqual(['bulk0', 'tool', 'bulk1', 'bulk2', 'bulk3', 'bulk4']);
	});

	it("a cancelled run's waiters leave at once, with one listener on its signal; the other run keeps its turns; the sleep ends with the last run", async () => {
		const id = nextAccount();
		const [a, b] = [member(1), member(1)];
		const admission = joinAdmission(id, a);
		joinAdmission(id, b);
		const cancel = new AbortController();
		await Promise.all(turns(admission, a, 1));
		const left = turns(admission, a, 500, cancel.signal);
		const kept = turns(admission, b, 2);
		await clock.advance(0);
		expect(getEventListeners(cancel.signal, 'abort')).toHaveLength(1);
		cancel.abort();
		const at = clock.now();
		expect(new Set(await Promise.all(left))).toEqual(new Set([at]));
		expect(admission.waiting).toBe(2);
		await clock.advance(3000);
		expect(await Promise.all(kept)).toEqual([at + 1010, at + 2020]);
		// As a run ends: its signal aborts, then it leaves.
		const ended = new AbortController();
		const waiting = turns(admission, b, 1, ended.signal);
		await clock.advance(0);
		expect(clock.pending).toBe(1);
		ended.abort();
		admission.leave(a);
		admission.leave(b);
		await Promise.all(waiting);
		// The pump's sleep ended (its timer cleared); the linger until the last start's window passed remains.
		expect(clock.pending).toBe(1);
	});

	it('a run is charged only what its own requests waited, named by the rate that held them', async () => {
		const id = nextAccount();
		const [bulk, call] = [member(1), member(1)];
		const admission = joinAdmission(id, bulk);
		joinAdmission(id, call);
		await Promise.all(turns(admission, bulk, 1));
		const bulkTurn = turns(admission, bulk, 1); // waits for the next start, 1,010 ms after the first
		await clock.advance(900);
		const callTurn = turns(admission, call, 1); // its turn comes first (round robin): at 1,010 ms
		await clock.advance(2000);
		await Promise.all([...bulkTurn, ...callTurn]);
		// The call waited 110 ms, not the account's whole sleep, which it joined 900 ms in; the bulk
		// run's request waited two spacings.
		expect([bulk.held.rateMs, call.held.rateMs]).toEqual([2020, 110]);
		expect(call.held.setBy).toBe('1 requests a second');
		admission.leave(bulk);
		admission.leave(call);
	});

	it('a Retry-After pause holds every run of the account, then the rate resumes; each run counts the pause', async () => {
		const id = nextAccount();
		const [a, b] = [member(), member(10)];
		const admission = joinAdmission(id, a);
		joinAdmission(id, b);
		admission.pause(2000);
		const started = clock.now();
		const [first, second] = [turns(admission, a, 1)[0], turns(admission, b, 1)[0]];
		await clock.advance(1999);
		expect(admission.waiting).toBe(2);
		await clock.advance(200);
		expect([await first, await second]).toEqual([started + 2000, started + 2101]);
		expect([a.held.pauseMs, b.held.pauseMs]).toEqual([2000, 2000]);
		admission.leave(a);
		admission.leave(b);
	});

	it('holds the Rate Limit its credential had when a run last read it (raised, lowered or cleared), or the learned one if lower', () => {
		const id = nextAccount();
		const [slow, fast, none] = [member(20), member(100), member()];
		const admission = joinAdmission(id, slow);
		expect(admission.rate).toBe(20);
		joinAdmission(id, fast);
		expect(admission.rate).toBe(100);
		joinAdmission(id, none);
		expect(admission.rate).toBeUndefined();
		joinAdmission(id, slow);
		// Five answers handled in the last second, then two 429s that cut a window: paced at 5.
		for (let i = 0; i < 5; i++) admission.pacer.onAttemptEnd('handled', false);
		admission.pacer.onAttemptEnd('rate-limited', false);
		admission.pacer.onAttemptEnd('rate-limited', true);
		expect(admission.rate).toBe(5);
		for (const run of [slow, fast, none, slow]) admission.leave(run);
	});
});

describe('the admission in n8n (engine in process, simulator over HTTP)', () => {
	const sim = useSimulator();
	const run = runAgainst(sim);
	const arrivals = () => sim().requests.map((request) => request.receivedAt);
	const credentials = (rateLimit?: number) => ({
		apiKey: API_KEY,
		baseUrl: sim().url,
		...(rateLimit === undefined ? {} : { rateLimit }),
	});
	// One simulator, one account for the file: each test starts once the last one's is forgotten.
	beforeEach(async () => {
		while (accountAdmissions.has(accountOf(sim().url, API_KEY)))
			await new Promise((resolve) => setTimeout(resolve, 20));
	});

	it('two runs at once against one rate limit: a run that starts while another is paced takes turns at that rate instead of bursting into the spent limit', async () => {
		sim().setOptions({ latencyMs: 20, rateLimit: { ratePerSec: 100, burst: 20 } });
		const idsOf = (prefix: string, count: number) =>
			Array.from({ length: count }, (_, i) => ({ json: { id: `${prefix}-${i}` } }));
		const throttledOf = (prefix: string) =>
			sim().requests.filter((r) => r.status === 429 && String(r.query.id).startsWith(`${prefix}-`))
				.length;
		/** The answers to the run's latest requests since its last 429. */
		const acceptedInARow = (prefix: string) => {
			const answered = sim().requests.filter(
				(r) => r.outcome !== 'pending' && String(r.query.id).startsWith(`${prefix}-`),
			);
			return answered.length - 1 - answered.map((r) => r.status).lastIndexOf(429);
		};
		// 400 items, 4 s at the limit: the first run still sends, paced, long after the second one
		// joined its rate, also on a busy machine.
		const first = run(contacts(), idsOf('a', 400));
		// The first run has found the limit (its burst of 429s) and paces its requests: the service
		// accepts them again, 20 in a row.
		const learned = () => accountAdmissions.get(accountOf(sim().url, API_KEY))?.pacer.rate;
		while (throttledOf('a') < 20 || acceptedInARow('a') < 20 || learned() === undefined)
			await new Promise((resolve) => setTimeout(resolve, 20));
		const rate = learned() as number;
		const second = await run(contacts(), idsOf('b', 60));
		expect((await first).error).toBeUndefined();
		expect(second.error).toBeUndefined();
		expect(sim().ledger.applied).toHaveLength(460);
		expect([...sim().ledger.countsByKey.values()].every((count) => count === 1)).toBe(true);
		// Alone, the second run would send 32 at once (a few ms apart) into a limit the first one
		// spends. Taking turns at the account's rate (the first run's 429s set it, at most 25 % higher
		// a second later), its first 20 requests are 19 turns apart at least; slower on a busy machine,
		// never faster.
		const arrivals = sim()
			.requests.filter((r) => String(r.query.id).startsWith('b-'))
			.map((r) => r.receivedAt);
		expect(arrivals[19] - arrivals[0]).toBeGreaterThanOrEqual((19 * 1000) / (rate * 1.25));
	}, 60_000);

	it("executions that follow each other keep the credential's Rate Limit: the second one's request waits for the first one's second", async () => {
		for (let execution = 0; execution < 3; execution++) {
			const { error } = await runNode({
				parameters: contacts(),
				items: rows(1),
				credentials: credentials(1),
			});
			expect(error).toBeUndefined();
		}
		const [a, b, c] = arrivals();
		expect(b - a).toBeGreaterThanOrEqual(apart(1010));
		expect(c - b).toBeGreaterThanOrEqual(apart(1010));
	});

	it('a raised Rate Limit holds from the next request: after 1 a minute, a credential edited to 10 a second sends at once, at 10 a second', async () => {
		const first = await runNode({
			parameters: contacts(),
			items: rows(1),
			credentials: { ...credentials(1), rateLimitUnit: 'minute' },
		});
		expect(first.error).toBeUndefined();
		const started = Date.now();
		const second = await runNode({
			parameters: contacts(),
			items: rows(5),
			credentials: credentials(10),
		});
		expect(second.error).toBeUndefined();
		const [, ...after] = arrivals();
		expect(after).toHaveLength(5);
		// Not 60.6 s after the first request, the spacing of the old setting.
		expect(after[0] - started).toBeLessThan(1000);
		for (let i = 1; i < after.length; i++)
			expect(after[i] - after[i - 1]).toBeGreaterThanOrEqual(apart(101));
	}, 20_000);

	it('one 429 with a Retry-After, then an open service: a run one request at a time pauses once and is not paced', async () => {
		sim().failNext({ status: 429, headers: { 'retry-after': '1' }, path: CONTACT_UPDATE_PATH });
		const { error } = await run(contacts({ maxConcurrency: 1 }), rows(60));
		expect(error).toBeUndefined();
		const times = arrivals();
		expect(times).toHaveLength(61);
		// Paced at what was handled in the second before (nothing: 1 a second), the 59 after the retry would take about a minute.
		expect(times[60] - times[1]).toBeLessThan(5000);
		expect(accountAdmissions.get(accountOf(sim().url, API_KEY))?.pacer.rate).toBeUndefined();
	}, 30_000);

	it('a run without a cap of its own (Adapt Concurrency off) beside an automatic one: together at most the Rate Limit in any second, from the first request', async () => {
		const started = Date.now();
		const [automatic, fixed] = await Promise.all([
			run(contacts(), rows(15), { credentials: credentials(10) }),
			run(contacts({ adaptiveConcurrency: false, maxConcurrency: 10 }), rows(15), {
				credentials: credentials(10),
			}),
		]);
		expect(automatic.error ?? fixed.error).toBeUndefined();
		expect(sim().requests).toHaveLength(30);
		expect(mostInWindow(arrivals(), 1000 - ARRIVAL_SLACK_MS)).toBeLessThanOrEqual(10);
		expect(Math.min(...arrivals()) - started).toBeLessThan(1000);
	});

	it('retries after a Retry-After count too', async () => {
		sim().failNext({ status: 429, headers: { 'retry-after': '0' }, times: 5 });
		const { error } = await run(contacts(), rows(10), { credentials: credentials(10) });
		expect(error).toBeUndefined();
		expect(sim().requests).toHaveLength(15);
		expect(mostInWindow(arrivals(), 1000 - ARRIVAL_SLACK_MS)).toBeLessThanOrEqual(10);
	});

	it('a failure without Continue On Fail stops the run: nothing waiting for its turn starts after it', async () => {
		sim().failNext({ status: 422, body: { message: 'Phone rejected' } });
		const { error } = await run(contacts({ maxRequestsPerSecond: 5 }), rows(20));
		expect(error?.message).toMatch(/HTTP 422/);
		expect(sim().requests.length).toBeLessThanOrEqual(2);
	});

	it("a node's Max Requests per Second holds its own requests, not another workflow's of the account", async () => {
		const others = Array.from({ length: 10 }, (_, i) => ({ json: { id: `other-${i}` } }));
		const started = Date.now();
		const [capped, other] = await Promise.all([
			run(contacts({ maxRequestsPerSecond: 1 }), rows(3)),
			run(contacts(), others),
		]);
		expect(capped.error ?? other.error).toBeUndefined();
		const arrivalsOf = (prefix: string) =>
			sim()
				.requests.filter((request) => String(request.query.id).startsWith(prefix))
				.map((request) => request.receivedAt);
		// The other workflow did not wait for the capped one's rate (its 3 requests: 2 s).
		expect(Math.max(...arrivalsOf('other-')) - started).toBeLessThan(1000);
		const [a, b, c] = arrivalsOf('c-');
		expect(b - a).toBeGreaterThanOrEqual(apart(1010));
		expect(c - b).toBeGreaterThanOrEqual(apart(1010));
	});

	it('a Retry-After pauses every item and every run of the account, then they resume', async () => {
		sim().failNext({ status: 429, headers: { 'retry-after': '1' }, times: 1 });
		const [a, b] = await Promise.all([
			run(contacts({ maxConcurrency: 1 }), rows(8)),
			run(contacts({ maxConcurrency: 1 }), rows(8)),
		]);
		expect(a.error ?? b.error).toBeUndefined();
		const throttled = sim().requests.find((request) => request.status === 429);
		const answeredAt = throttled?.receivedAt ?? 0;
		const during = sim().requests.filter(
			(request) =>
				request.receivedAt > answeredAt &&
				request.receivedAt < answeredAt + 1000 - ARRIVAL_SLACK_MS,
		);
		// Only a request of the other run already in flight when the 429 came back (one at a time).
		expect(during.length).toBeLessThanOrEqual(1);
		expect(sim().requests).toHaveLength(17);
	});

	it('Dry Run takes no turn: it holds nothing back and joins no admission', async () => {
		const id = accountOf(sim().url, API_KEY);
		const started = Date.now();
		const dry = await run({ ...contacts(), dryRun: true }, rows(20), {
			credentials: credentials(1),
		});
		expect(dry.error).toBeUndefined();
		expect(dry.outputs[0]).toHaveLength(20);
		expect(sim().requests).toHaveLength(0);
		expect(accountAdmissions.has(id)).toBe(false);
		// A real run right after it: its first request is not held.
		const real = await run(contacts(), rows(1), { credentials: credentials(1) });
		expect(real.error).toBeUndefined();
		expect(sim().requests[0].receivedAt - started).toBeLessThan(1000);
	});
});
