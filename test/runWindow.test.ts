/**
 * The window that bounds requests in flight across the items of a run (shared/request/runWindow.ts):
 * FIFO, a slot given back on every path a holder can end by, a bound that moves while it runs, and
 * the bound held in n8n with the node's Request Options → Batching on (items then start one by one
 * while earlier ones finish). Its queue of waiters: test/waiterQueue.test.ts.
 */
import { createDeferredPromise, type INodeParameters } from 'n8n-workflow';
import { RunWindow } from '../nodes/VoiceAssistant/shared/request/runWindow';
import { NEVER, heldTask, orCancelled, settle } from './helpers/heldTasks';
import { useSimulator } from './helpers/simulator';
import { runNode } from './helpers/runNode';
import { API_KEY, segmentContactParameters } from './helpers/fixtures';

describe('RunWindow', () => {
	it('serves waiters in the order they arrived (FIFO)', async () => {
		const window = new RunWindow(1);
		const started: string[] = [];
		const tasks = ['a', 'b', 'c', 'd', 'e'].map((name) => heldTask(name, started));
		const done = tasks.map(({ task }) => window.use(task, NEVER));
		await settle();
		expect(started).toEqual(['a']);
		for (const [i, { end }] of tasks.entries()) {
			end.resolve(String(i));
			await settle();
		}
		expect(started).toEqual(['a', 'b', 'c', 'd', 'e']);
		expect(await Promise.all(done)).toEqual(['0', '1', '2', '3', '4']);
	});

	it('never has more holders than its bound, also when new work arrives while a slot changes hands', async () => {
		const window = new RunWindow(2);
		const started: string[] = [];
		const running = () => started.length - finished;
		let finished = 0;
		const tasks: Array<ReturnType<typeof heldTask>> = [];
		const add = (name: string) => {
			const held = heldTask(name, started);
			tasks.push(held);
			void window.use(held.task, NEVER).then(() => finished++);
		};
		add('a');
		add('b');
		add('c');
		await settle();
		expect(running()).toBe(2);
		// a ends: its slot goes straight to c; then d arrives and must wait.
		tasks[0].end.resolve('a');
		await settle();
		add('d');
		await settle();
		expect(started).toEqual(['a', 'b', 'c']);
		expect(running()).toBe(2);
		expect(window.inUse).toBe(2);
		for (const name of ['e', 'f', 'g']) add(name);
		for (let i = 1; i < tasks.length; i++) {
			tasks[i].end.resolve(String(i));
			await settle();
			expect(running()).toBeLessThanOrEqual(2);
		}
		await settle();
		expect(started).toEqual(['a', 'b', 'c', 'd', 'e', 'f', 'g']);
		expect(window.inUse).toBe(0);
	});

	describe('gives the slot back on every path a holder ends by', () => {
		it('when the work fails', async () => {
			const window = new RunWindow(1);
			await expect(
				window.use(async () => Promise.reject(new Error('HTTP 400')), NEVER),
			).rejects.toThrow('HTTP 400');
			expect(window.inUse).toBe(0);
			expect(await window.use(async () => 'next', NEVER)).toBe('next');
		});

		it('after a retry wait: the slot is held while waiting, then given back', async () => {
			const window = new RunWindow(1);
			const started: string[] = [];
			const wait = createDeferredPromise<void>();
			const retrying = window.use(async () => {
				started.push('retrying');
				await wait.promise; // waiting out a Retry-After
				return 'retried';
			}, NEVER);
			const next = window.use(async () => {
				started.push('next');
				return 'next';
			}, NEVER);
			await settle();
			expect(started).toEqual(['retrying']);
			wait.resolve();
			expect(await Promise.all([retrying, next])).toEqual(['retried', 'next']);
			expect(window.inUse).toBe(0);
		});

		it('when the work is cancelled', async () => {
			const window = new RunWindow(1);
			const cancel = new AbortController();
			const cancelled = window.use(
				async () =>
					await new Promise((_resolve, reject) =>
						cancel.signal.addEventListener('abort', () => reject(new Error('cancelled'))),
					),
				NEVER,
			);
			const next = window.use(async () => 'next', NEVER);
			await settle();
			expect(window.inUse).toBe(1);
			cancel.abort();
			await expect(cancelled).rejects.toThrow('cancelled');
			expect(await next).toBe('next');
			expect(window.inUse).toBe(0);
		});

		it('when cancelled while waiting for a slot: it leaves the queue without taking one', async () => {
			const window = new RunWindow(1);
			const started: string[] = [];
			const holder = heldTask('holder', started);
			const cancel = new AbortController();
			const held = window.use(holder.task, NEVER);
			const queued = orCancelled(window.use(async () => started.push('queued'), cancel.signal));
			const after = window.use(async () => started.push('after'), NEVER);
			await settle();
			cancel.abort();
			expect(await queued).toBe('cancelled');
			holder.end.resolve('done');
			await Promise.all([held, after]);
			expect(started).toEqual(['holder', 'after']);
			expect(window.inUse).toBe(0);
			expect(await orCancelled(window.use(async () => 'x', cancel.signal))).toBe('cancelled');
		});
	});
});

describe('the bound in n8n', () => {
	const sim = useSimulator();
	const rows = Array.from({ length: 30 }, (_, i) => ({ json: { id: `c-${i}` } }));
	const parameters = (extra: INodeParameters): INodeParameters => ({
		...segmentContactParameters,
		contactId: '={{ $json.id }}',
		...extra,
	});

	it('holds with Request Options → Batching on (items start one by one while earlier ones finish)', async () => {
		sim().setOptions({ latencyMs: 40 });
		const { outputs, error } = await runNode({
			parameters: parameters({
				options: { maxConcurrency: 2 },
				requestOptions: { batching: { batch: { batchSize: 1, batchInterval: 5 } } },
			}),
			items: rows,
			credentials: { apiKey: API_KEY, baseUrl: sim().url },
		});
		expect(error).toBeUndefined();
		expect(outputs[0]).toHaveLength(30);
		expect(sim().requests).toHaveLength(30);
		expect(sim().stats.maxInFlight).toBe(2);
	});
});

describe('RunWindow with a moving limit', () => {
	const settle = async () => await new Promise<void>((resolve) => setImmediate(resolve));

	it('a higher bound admits waiters at once, in order; a lower one takes effect as holders leave', async () => {
		const window = new RunWindow(1);
		const started: number[] = [];
		const ends: Array<() => void> = [];
		const work = (n: number) => async () => {
			started.push(n);
			await new Promise<void>((resolve) => ends.push(resolve));
		};
		const all = [1, 2, 3, 4, 5].map((n) => window.use(work(n), new AbortController().signal));
		await settle();
		expect(started).toEqual([1]);
		window.setLimit(3);
		await settle();
		expect(started).toEqual([1, 2, 3]);
		expect(window.inUse).toBe(3);
		window.setLimit(1);
		ends[0]();
		ends[1]();
		await settle();
		expect(started).toEqual([1, 2, 3]); // 1 holder left: at the bound, nobody new
		ends[2]();
		await settle();
		expect(started).toEqual([1, 2, 3, 4]);
		ends[3]();
		await settle();
		ends[4]();
		await Promise.all(all);
		expect(window.inUse).toBe(0);
	});
});
