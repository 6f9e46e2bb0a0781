/**
 * A run's turns (shared/request/runTurns.ts), on virtual time with a real item loop and the
 * process's admission registry: n8n's Batching releases a batch per interval from when the loop
 * was over; then the run's own Max Requests per Second (the lowest of its items, in an admission
 * of its own that the registry never holds); then its account's admission, joined at the first
 * turn and left at the run's end. What held the run back is counted in `held`. A stop returns
 * undefined, joins nothing and starts nothing. In n8n's engine against the simulator over HTTP:
 * a run's own rate holds that run alone, and its summary says so.
 */
import { realClock, useClock } from '../nodes/VoiceAssistant/shared/clock';
import { accountAdmissions } from '../nodes/VoiceAssistant/shared/request/admission';
import { ItemLoop } from '../nodes/VoiceAssistant/shared/request/itemLoop';
import type { Batching } from '../nodes/VoiceAssistant/shared/request/n8nAdapter';
import { RunTurns } from '../nodes/VoiceAssistant/shared/request/runTurns';
import { accountOf } from '../nodes/VoiceAssistant/shared/target';
import { VirtualClock } from './helpers/virtualClock';
import { useSimulator } from './helpers/simulator';
import { contacts, rows, runAgainst } from './helpers/contactRuns';
import { mostInWindow } from './helpers/arrivals';
import { captureLog, runSummaries } from './helpers/logLines';

/** The runs' account: each test starts with the registry empty (test/setup.ts). */
const ACCOUNT = accountOf('https://api.example.com', 'key-of-runTurns');

describe("a run's turns, on virtual time", () => {
	let clock: VirtualClock;
	beforeEach(() => useClock((clock = new VirtualClock())));
	afterEach(() => useClock(realClock));

	/** A run of `items` whose loop prepared them all (so its watch of n8n's loop ends), and its stop. */
	function runOf(items: number, batching?: Batching) {
		const loop = new ItemLoop(items, batching, false, undefined);
		for (let i = 0; i < items; i++) loop.itemPrepared(i);
		const stop = new AbortController();
		return { turns: new RunTurns(loop, stop.signal), stop };
	}

	/** Asks for `count` turns now; each resolves to the virtual time its request started (answered at once), or to what it got instead. */
	const take = (turns: RunTurns, count: number, patienceMs = Infinity) =>
		Array.from({ length: count }, async () => {
			const turn = await turns.next(patienceMs);
			if (!turn || 'pausedUntil' in turn) return turn;
			turn.giveBack(true);
			return clock.now();
		});

	it('without Batching or a rate every turn comes at once; the account is joined at the first turn and forgotten once the run left', async () => {
		const { turns } = runOf(3);
		turns.setAccount(ACCOUNT, undefined);
		expect(accountAdmissions.has(ACCOUNT)).toBe(false);
		const started = clock.now();
		expect(await Promise.all(take(turns, 3))).toEqual([started, started, started]);
		expect(accountAdmissions.get(ACCOUNT)).toBe(turns.admission);
		turns.leave();
		expect(accountAdmissions.has(ACCOUNT)).toBe(false);
		expect(turns.held).toEqual({
			rateMs: 0,
			ownMs: 0,
			pauseMs: 0,
			batching: false,
			limitSet: false,
		});
		expect(clock.pending).toBe(0);
	});

	it("Batching: the n-th request is due a batch's interval per `size` after n8n's loop was over, and held.batching says one waited", async () => {
		const { turns } = runOf(5, { size: 2, intervalMs: 1000 });
		turns.setAccount(ACCOUNT, undefined);
		await clock.advance(300);
		turns.readyAt = clock.now();
		const at = take(turns, 5);
		await clock.advance(2000);
		const ready = turns.readyAt;
		expect(await Promise.all(at)).toEqual([ready, ready, ready + 1000, ready + 1000, ready + 2000]);
		expect(turns.held.batching).toBe(true);
		turns.leave();
	});

	it('Batching whose first batch holds every request: nothing waited, held.batching stays false', async () => {
		const { turns } = runOf(3, { size: 10, intervalMs: 1000 });
		turns.setAccount(ACCOUNT, undefined);
		turns.readyAt = clock.now();
		const started = clock.now();
		expect(await Promise.all(take(turns, 3))).toEqual([started, started, started]);
		expect(turns.held.batching).toBe(false);
		turns.leave();
	});

	it("the run's own rate is the lowest Max Requests per Second of its items, in an admission of its own that the registry never holds; held.ownMs is what its requests waited", async () => {
		const { turns } = runOf(3);
		turns.setAccount(ACCOUNT, undefined);
		[5, undefined, 2, 10].forEach((perSecond) => turns.lowerOwnRate(perSecond));
		expect(turns.held.ownRate).toBe(2);
		const started = clock.now();
		const at = take(turns, 3);
		await clock.advance(0);
		expect([...accountAdmissions.keys()]).toEqual([ACCOUNT]);
		await clock.advance(2000);
		// 2 a second: starts 500 ms apart, 2 tickets each back a second after its request ended.
		expect(await Promise.all(at)).toEqual([started, started + 500, started + 1000]);
		// A request of the run waited from the start until the third started.
		expect(turns.held).toMatchObject({ ownMs: 1000, rateMs: 0, ownRate: 2 });
		turns.leave();
		expect(accountAdmissions.has(ACCOUNT)).toBe(false);
	});

	it("the account's Rate Limit holds the run's requests: held.rateMs and the limit's words; the account is forgotten a second after the last request ended", async () => {
		const { turns } = runOf(2);
		turns.setAccount(ACCOUNT, { perSecond: 1, words: '1 request a second' });
		expect(turns.held.limitSet).toBe(true);
		const started = clock.now();
		const at = take(turns, 2);
		await clock.advance(1000);
		expect(await Promise.all(at)).toEqual([started, started + 1000]);
		expect(turns.held).toMatchObject({
			rateMs: 1000,
			heldBy: { '1 request a second': 1000 },
			ownMs: 0,
		});
		turns.leave();
		await clock.advance(999);
		expect(accountAdmissions.has(ACCOUNT)).toBe(true);
		await clock.advance(1);
		expect(accountAdmissions.has(ACCOUNT)).toBe(false);
	});

	it("a Retry-After longer than a turn's patience: the turn gets the pause's end and gives its own rate's ticket back unused; the next turn starts when the pause is over; held.pauseMs", async () => {
		const { turns } = runOf(2);
		turns.setAccount(ACCOUNT, undefined);
		turns.lowerOwnRate(1);
		const started = clock.now();
		const [first] = await Promise.all(take(turns, 1));
		expect(first).toBe(started);
		turns.admission!.pause(5000);
		// Its own rate's ticket comes first, a second after the first request; then the account's pause.
		const paused = take(turns, 1, 1000);
		await clock.advance(1000);
		expect(await Promise.all(paused)).toEqual([{ pausedUntil: started + 5000 }]);
		// One ticket at 1 a second: had the unused one not come back, no turn would come again.
		const next = take(turns, 1);
		await clock.advance(4000);
		expect(await Promise.all(next)).toEqual([started + 5000]);
		expect(turns.held.pauseMs).toBe(5000);
		turns.leave();
	});

	it('a stop: a turn asked after it returns undefined and joins nothing; turns waiting for Batching, the own rate or the account leave with undefined, and none starts', async () => {
		const stopped = runOf(1);
		stopped.turns.setAccount(ACCOUNT, undefined);
		stopped.stop.abort();
		expect(await stopped.turns.next(Infinity)).toBeUndefined();
		expect(stopped.turns.admission).toBeUndefined();
		expect(accountAdmissions.has(ACCOUNT)).toBe(false);

		const { turns, stop } = runOf(4, { size: 1, intervalMs: 1000 });
		turns.setAccount(ACCOUNT, { perSecond: 1, words: '1 request a second' });
		turns.lowerOwnRate(1);
		turns.readyAt = clock.now();
		const started = clock.now();
		const at = take(turns, 4);
		await clock.advance(500);
		stop.abort();
		// The first started at once; the others, waiting for their batch, leave without a turn.
		expect(await Promise.all(at)).toEqual([started, undefined, undefined, undefined]);
		turns.leave();
		await clock.advance(2000);
		expect(clock.pending).toBe(0);
	});
});

describe("a run's own rate in n8n's engine (simulator over HTTP)", () => {
	const sim = useSimulator();
	const run = runAgainst(sim);

	it('holds that run alone: two runs of one account at once, one with Max Requests per Second 2; only its summary says it was held back, and at most 2 of its requests arrive in any second', async () => {
		const lines = captureLog();
		const heldRows = [0, 1, 2].map((i) => ({ json: { id: `held-${i}` } }));
		const [held, free] = await Promise.all([
			run(contacts({ maxRequestsPerSecond: 2 }), heldRows),
			run(contacts(), rows(4)),
		]);
		expect([held.error, free.error]).toEqual([undefined, undefined]);
		const summaries = runSummaries(lines);
		expect(summaries).toHaveLength(2);
		const [heldSummary] = summaries.filter((line) => line.includes(': done: 3 items'));
		const [freeSummary] = summaries.filter((line) => line.includes(': done: 4 items'));
		expect(heldSummary).toMatch(
			/, held back \d+\.\d s by Max Requests per Second \(2 requests\/s\)$/,
		);
		expect(freeSummary).not.toMatch(/held back/);
		// The simulator's monotonic clock when it judged each request, between its start and its end.
		const arrivals = (prefix: string) =>
			sim()
				.requests.filter((request) => String(request.query.id).startsWith(prefix))
				.map((request) => request.arrivedAt)
				.sort((a, b) => a - b);
		expect([arrivals('held-').length, arrivals('c-').length]).toEqual([3, 4]);
		// 2 a second: at most 2 of the held run's requests arrive in any 1,000 ms, however late each was.
		expect(mostInWindow(arrivals('held-'), 1000)).toBeLessThanOrEqual(2);
	});
});
