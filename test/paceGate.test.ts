/**
 * The gate paced attempts wait at (shared/request/paceGate.ts): arrival order, turns handed out
 * when they come, fairness between runs, cancellation; a scripted pacer, no timing asserts.
 */
import { getEventListeners } from 'node:events';
import { PaceGate, type Turns } from '../nodes/VoiceAssistant/shared/request/paceGate';

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
