/**
 * One pace per service account in this process (shared/request/accountPace.ts), shared by the
 * runs sending to it at the same time: the gate paced attempts wait at (arrival order, turns
 * handed out when they come, fairness between runs, cancellation; a scripted pacer, no timing
 * asserts), the registry with a fake clock, and two runs in n8n's engine against a rate-limited
 * simulator over HTTP.
 */
import { getEventListeners } from 'node:events';
import {
	accountOf,
	joinAccountPace,
	leaveAccountPace,
	pacedAccounts,
	PaceGate,
	type Turns,
} from '../nodes/VoiceAssistant/shared/request/accountPace';
import { realClock, useClock } from '../nodes/VoiceAssistant/shared/clock';
import { runNode } from './helpers/runNode';
import { useSimulator } from './helpers/simulator';
import { API_KEY, segmentContactParameters } from './helpers/fixtures';

/** A pacer whose next turn is free only while `open`; records each turn taken. */
function scriptedPacer() {
	const taken: boolean[] = [];
	const pacer = {
		open: false,
		nextTurnIn: () => (pacer.open ? 0 : 2),
		takeTurn: (waited: boolean) => void taken.push(waited),
	};
	return { pacer: pacer as Turns & { open: boolean }, taken };
}

/** The runs waiting at the gate, and a signal that never aborts. */
const RUN_A = {};
const RUN_B = {};
const NEVER = new AbortController().signal;

const settle = async () => await new Promise<void>((resolve) => setImmediate(resolve));

describe('PaceGate', () => {
	it('lets an attempt through at once when its turn is free', async () => {
		const { pacer, taken } = scriptedPacer();
		pacer.open = true;
		await new PaceGate(pacer).turn(RUN_A, NEVER);
		expect(taken).toEqual([false]);
	});

	it('hands out turns in arrival order, only when they come', async () => {
		const { pacer, taken } = scriptedPacer();
		const gate = new PaceGate(pacer);
		const left: number[] = [];
		const all = [0, 1, 2].map((n) => gate.turn(RUN_A, NEVER).then(() => left.push(n)));
		await new Promise((resolve) => setTimeout(resolve, 20));
		expect(left).toEqual([]); // the pacer kept every turn closed: nobody left
		pacer.open = true;
		await Promise.all(all);
		expect(left).toEqual([0, 1, 2]);
		expect(taken).toEqual([true, true, true]);
	});

	it('when the execution is cancelled, every waiter leaves at once; one listener on the signal', async () => {
		const { pacer, taken } = scriptedPacer();
		const gate = new PaceGate(pacer);
		const cancel = new AbortController();
		const all = Array.from({ length: 500 }, () => gate.turn(RUN_A, cancel.signal));
		await settle();
		expect(getEventListeners(cancel.signal, 'abort')).toHaveLength(1);
		cancel.abort();
		await Promise.all(all);
		expect(taken).toEqual([]);
		await gate.turn(RUN_A, cancel.signal); // and a late one does not wait either
	});

	it("when the last waiter leaves, the gate's wait for the next turn ends and clears its timer", async () => {
		jest.useFakeTimers({ doNotFake: ['setImmediate'] });
		try {
			const pacer = { nextTurnIn: () => 60_000, takeTurn: () => undefined };
			const gate = new PaceGate(pacer);
			const cancel = new AbortController();
			const waiting = gate.turn(RUN_A, cancel.signal);
			await settle();
			expect(jest.getTimerCount()).toBe(1);
			cancel.abort();
			await waiting;
			await settle();
			expect(jest.getTimerCount()).toBe(0);
		} finally {
			jest.useRealTimers();
		}
	});
});

describe('PaceGate shared by two runs', () => {
	it("a cancelled run's waiters leave; the other run's keep their place and their turns", async () => {
		const { pacer, taken } = scriptedPacer();
		const gate = new PaceGate(pacer);
		const cancelA = new AbortController();
		const order: string[] = [];
		const waitersA = [1, 2].map((n) =>
			gate.turn(RUN_A, cancelA.signal).then(() => order.push(`a${n}`)),
		);
		const waitersB = [1, 2].map((n) => gate.turn(RUN_B, NEVER).then(() => order.push(`b${n}`)));
		await settle();
		cancelA.abort();
		await Promise.all(waitersA);
		expect(order).toEqual(['a1', 'a2']); // left at once, without a turn
		expect(gate.waiting).toBe(2);
		pacer.open = true;
		await Promise.all(waitersB);
		expect(order).toEqual(['a1', 'a2', 'b1', 'b2']);
		expect(taken).toEqual([true, true]); // turns only for run B's attempts
	});
});

describe('PaceGate fairness between runs', () => {
	it("turns go round the runs that wait: a tool call's one attempt does not wait behind a bulk run's queue", async () => {
		let open = 0;
		const pacer = { nextTurnIn: () => (open > 0 ? 0 : 2), takeTurn: () => void open-- };
		const gate = new PaceGate(pacer);
		const order: string[] = [];
		const bulk = Array.from({ length: 5 }, (_, n) =>
			gate.turn(RUN_A, NEVER).then(() => order.push(`bulk${n}`)),
		);
		await settle();
		const tool = gate.turn(RUN_B, NEVER).then(() => order.push('tool'));
		open = 6;
		await Promise.all([...bulk, tool]);
		expect(order).toEqual(['bulk0', 'tool', 'bulk1', 'bulk2', 'bulk3', 'bulk4']);
	});
});

describe('the account pace registry', () => {
	const account = accountOf('https://api.example.com', 'key-1');
	afterEach(() => useClock(realClock));

	it('runs that overlap share the pace of one account; another key or Base URL has its own', () => {
		const [a, b] = [{}, {}];
		const first = joinAccountPace(account, a);
		expect(joinAccountPace(account, b)).toBe(first);
		expect(joinAccountPace(accountOf('https://api.example.com', 'key-2'), {})).not.toBe(first);
		expect(joinAccountPace(accountOf('https://other.example.com', 'key-1'), {})).not.toBe(first);
		leaveAccountPace(first, a);
		expect(joinAccountPace(account, a)).toBe(first); // one run still sends
		leaveAccountPace(first, a);
		leaveAccountPace(first, b);
		expect(joinAccountPace(account, a)).not.toBe(first); // all had left: a later run finds the limit anew
	});

	it('one key per account however it is written: host case, trailing slash, spaces around the key', () => {
		expect(accountOf('https://API.Example.com/', ' key-1 ')).toBe(account);
		expect(accountOf('https://api.example.com/v2', 'key-1')).not.toBe(account);
		expect(account).not.toContain('key-1');
	});

	it('a pace is kept however long its runs are quiet (a long Retry-After, a slow answer) and dropped when the last one leaves', () => {
		let now = 1_000_000;
		useClock({ now: () => now, sleep: realClock.sleep });
		const waiting = {};
		const before = pacedAccounts();
		const held = joinAccountPace(accountOf('https://api.example.com', 'key-3'), waiting);
		held.pacer.rateLimited();
		now += 3_600_000; // an hour without a turn: the member still waits out its Retry-After
		const next = {};
		expect(joinAccountPace(accountOf('https://api.example.com', 'key-3'), next)).toBe(held);
		expect(held.pacer.rate).toBe(1); // paced still, at what was answered before the 429: nothing, so 1 a second
		leaveAccountPace(held, waiting);
		expect(pacedAccounts()).toBe(before + 1);
		leaveAccountPace(held, next);
		expect(pacedAccounts()).toBe(before);
	});
});

describe('two runs at once against one rate limit (n8n engine, simulator over HTTP)', () => {
	const sim = useSimulator();
	const rows = (prefix: string, count: number) =>
		Array.from({ length: count }, (_, i) => ({ json: { id: `${prefix}-${i}` } }));
	const parameters = { ...segmentContactParameters, contactId: '={{ $json.id }}' };
	const credentials = () => ({ apiKey: API_KEY, baseUrl: sim().url });
	const throttledOf = (prefix: string) =>
		sim().requests.filter((r) => r.status === 429 && String(r.query.id).startsWith(`${prefix}-`))
			.length;

	it('a run that starts while another is paced takes turns at that pace instead of bursting into the spent limit', async () => {
		sim().setOptions({ latencyMs: 20, rateLimit: { ratePerSec: 100, burst: 20 } });
		const first = runNode({ parameters, items: rows('a', 400), credentials: credentials() });
		// The first run has found the limit (its burst of 429s) and paces its requests.
		while (throttledOf('a') < 20) await new Promise((resolve) => setTimeout(resolve, 20));
		await new Promise((resolve) => setTimeout(resolve, 1000));
		const second = await runNode({ parameters, items: rows('b', 60), credentials: credentials() });
		const { error } = await first;
		expect(error).toBeUndefined();
		expect(second.error).toBeUndefined();
		expect(sim().ledger.applied).toHaveLength(460);
		expect([...sim().ledger.countsByKey.values()].every((count) => count === 1)).toBe(true);
		// Alone, the second run would send 32 at once into a limit the first one spends: most 429.
		expect(throttledOf('b')).toBeLessThan(10);
	}, 60_000);
});
