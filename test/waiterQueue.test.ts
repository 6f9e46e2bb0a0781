/**
 * The queue of waiters (shared/request/waiterQueue.ts) the window and the account's admission wait in:
 * arrival order, the waiters of an aborted signal (only theirs) leaving with the leave value, one
 * abort listener per signal however many wait, and order kept after the queue is compacted; as
 * the queue alone and as the window uses it.
 */
import { getEventListeners } from 'node:events';
import { RunWindow } from '../nodes/VoiceAssistant/shared/request/runWindow';
import { NEVER, heldTask, orCancelled, settle } from './helpers/heldTasks';
import { WaiterQueue } from '../nodes/VoiceAssistant/shared/request/waiterQueue';

describe('WaiterQueue', () => {
	it('serves its waiters in arrival order, and says when nobody waits', async () => {
		const queue = new WaiterQueue<string>('left');
		const served: string[] = [];
		const all = [0, 1, 2].map((n) =>
			queue.wait(NEVER).then((value) => served.push(`${n}:${value}`)),
		);
		expect(queue.length).toBe(3);
		expect([queue.serveNext('a'), queue.serveNext('b'), queue.serveNext('c')]).toEqual([
			true,
			true,
			true,
		]);
		await Promise.all(all);
		expect(served).toEqual(['0:a', '1:b', '2:c']);
		expect(queue.serveNext('d')).toBe(false);
		expect(queue.length).toBe(0);
	});

	it("an aborted signal's waiters leave with the leave value; the others keep their place", async () => {
		const queue = new WaiterQueue<string>('left');
		const cancel = new AbortController();
		const first = queue.wait(NEVER);
		const leaving = [queue.wait(cancel.signal), queue.wait(cancel.signal)];
		const last = queue.wait(NEVER);
		cancel.abort();
		expect(await Promise.all(leaving)).toEqual(['left', 'left']);
		expect(queue.length).toBe(2);
		queue.serveNext('a');
		queue.serveNext('b');
		expect(await Promise.all([first, last])).toEqual(['a', 'b']);
		expect(await queue.wait(cancel.signal)).toBe('left');
		expect(queue.length).toBe(0);
	});
});

describe('WaiterQueue as the window waits in it', () => {
	it('listens to the signal once for all its waiters, and drops them all when it aborts', async () => {
		// Every listener on the execution's signal slows each HTTP request's own add and
		// remove of its abort listener: one per waiter made a 10,000-item run quadratic.
		const window = new RunWindow(1);
		const started: string[] = [];
		const holder = heldTask('holder', started);
		const cancel = new AbortController();
		const held = window.use(holder.task, cancel.signal);
		const queued = Array.from({ length: 2_000 }, (_, i) =>
			orCancelled(window.use(async () => started.push(`queued-${i}`), cancel.signal)),
		);
		const other = window.use(async () => started.push('other'), NEVER);
		await settle();
		expect(getEventListeners(cancel.signal, 'abort')).toHaveLength(1);
		cancel.abort();
		expect(new Set(await Promise.all(queued))).toEqual(new Set(['cancelled']));
		holder.end.resolve('done');
		await Promise.all([held, other]);
		expect(started).toEqual(['holder', 'other']);
		expect(window.inUse).toBe(0);
	});

	it('serves a long queue in order after it was compacted', async () => {
		const window = new RunWindow(1);
		const order: number[] = [];
		const all = Array.from({ length: 5_000 }, (_, i) =>
			window.use(async () => order.push(i), NEVER),
		);
		await Promise.all(all);
		expect(order).toEqual(Array.from({ length: 5_000 }, (_, i) => i));
		expect(window.inUse).toBe(0);
	});
});
