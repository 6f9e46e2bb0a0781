/**
 * The watch of n8n's item loop (shared/request/itemLoop.ts): when the loop is over, which items it
 * skipped or whether it threw, with Batching's pauses; and when each batch is due. How the whole
 * node behaves with Batching in n8n's engine: test/n8nAdapter.test.ts.
 */
import { ItemLoop } from '../nodes/VoiceAssistant/shared/request/itemLoop';

describe("the items n8n's loop skipped", () => {
	const prepare = (loop: ItemLoop, indexes: number[]) =>
		indexes.forEach((index) => loop.itemPrepared(index));

	it('every item prepared: all are sent', async () => {
		const loop = new ItemLoop(5, undefined, false, undefined);
		prepare(loop, [0, 1, 2, 3, 4]);
		expect(await loop.outcome).toBe(5);
	});

	it('the last item skipped by n8n 2.39.4+ under Continue On Fail: the others are sent', async () => {
		const loop = new ItemLoop(5, undefined, true, undefined);
		prepare(loop, [0, 1, 2, 3]);
		expect(await loop.outcome).toBe(4);
	});

	it('an item in the middle skipped: the loop went on to the last, the others are sent', async () => {
		const loop = new ItemLoop(5, undefined, false, undefined);
		prepare(loop, [0, 1, 3, 4]);
		expect(await loop.outcome).toBe(4);
	});

	it('n8n 1.x and 2.8 end the loop at the failing item: nothing is sent', async () => {
		const loop = new ItemLoop(5, undefined, false, undefined);
		prepare(loop, [0, 1, 2, 3]);
		expect(await loop.outcome).toBeUndefined();
	});

	it('the loop is over once the synchronous pass ended, before any send step asks', async () => {
		const loop = new ItemLoop(3, undefined, false, undefined);
		prepare(loop, [0, 1]);
		expect(loop.preparing).toBe(true);
		await Promise.resolve();
		await Promise.resolve();
		expect(loop.preparing).toBe(false);
		expect(await loop.outcome).toBeUndefined();
	});

	describe('with Batching (n8n pauses between batches)', () => {
		beforeEach(() =>
			jest.useFakeTimers({ doNotFake: ['setImmediate', 'queueMicrotask', 'nextTick'] }),
		);
		afterEach(() => jest.useRealTimers());

		it('waits through the pauses; a pause longer than the interval without an item ends the loop', async () => {
			const loop = new ItemLoop(6, { size: 2, intervalMs: 100 }, true, undefined);
			prepare(loop, [0, 1]);
			await jest.advanceTimersByTimeAsync(100);
			prepare(loop, [2, 3]);
			await jest.advanceTimersByTimeAsync(1000);
			expect(loop.preparing).toBe(true);
			await jest.advanceTimersByTimeAsync(200);
			expect(loop.preparing).toBe(false);
			expect(await loop.outcome).toBe(4);
			expect(jest.getTimerCount()).toBe(0);
		});

		it('a cancelled execution ends the watch at once and clears its timer', async () => {
			const cancel = new AbortController();
			const loop = new ItemLoop(6, { size: 2, intervalMs: 100_000 }, true, cancel.signal);
			prepare(loop, [0, 1]);
			await jest.advanceTimersByTimeAsync(10);
			cancel.abort();
			await jest.advanceTimersByTimeAsync(0);
			expect(loop.preparing).toBe(false);
			expect(jest.getTimerCount()).toBe(0);
		});
	});
});

describe("Batching's due time for each turn", () => {
	it('a batch of `size` per interval after the run is ready', () => {
		const loop = new ItemLoop(5, { size: 2, intervalMs: 100 }, false, undefined);
		expect([0, 1, 2, 3, 4].map((turn) => loop.batchDue(turn, 1000))).toEqual([
			1000, 1000, 1100, 1100, 1200,
		]);
		loop.stopWatching();
	});

	it('without Batching: none', () => {
		const loop = new ItemLoop(5, undefined, false, undefined);
		expect(loop.batchDue(3, 1000)).toBeUndefined();
	});
});
