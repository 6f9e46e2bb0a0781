/**
 * Virtual time for simulations of many requests (test/sharedAccount.test.ts): the node's clock
 * (shared/clock.ts) on a heap of timers, each fired once what it woke has run (one turn of the
 * event loop), so tens of thousands of requests take seconds. Time moves only from one timer to
 * the next; its random numbers (the engine's jitter) come from a seed. For a few timers and I/O
 * callbacks, test/helpers/virtualClock.ts.
 */
import { onAbort, type Clock } from '../../nodes/VoiceAssistant/shared/clock';

type Timer = { at: number; seq: number; fire: () => void; gone?: boolean };

export class EventClock implements Clock {
	private time = 1_000_000;
	private readonly heap: Timer[] = [];
	private seq = 0;
	private state: number;

	/** `seed`: the random parts of the engine's waits (clock.ts `jitter`) replay. */
	constructor(seed = 1) {
		this.state = seed;
	}

	random = () => (this.state = (this.state * 16807) % 2147483647) / 2147483647;

	now = () => this.time;
	/** A time of day in 2026 (an HTTP date's Retry-After or reset reads it). */
	date = () => this.time + 1_764_000_000_000;

	sleep = async (ms: number, signal?: AbortSignal) =>
		await new Promise<void>((resolve) => {
			if (signal?.aborted) return resolve();
			const timer: Timer = { at: this.time + Math.max(0, ms), seq: this.seq++, fire: resolve };
			this.push(timer);
			if (signal)
				onAbort(signal, () => {
					timer.gone = true;
					resolve();
				});
		});

	/** Runs timers in time order until `until` settles; throws past `maxMs` of virtual time or with nothing left to run. */
	async run(until: Promise<unknown>, maxMs = 3_600_000): Promise<void> {
		let settled = false;
		void until.finally(() => (settled = true));
		const end = this.time + maxMs;
		for (;;) {
			await new Promise((resolve) => setImmediate(resolve));
			if (settled) return;
			let next = this.pop();
			while (next?.gone) next = this.pop();
			if (!next) throw new Error('nothing left to run, and the simulation is not over');
			if (next.at > end) throw new Error('the simulation ran past its virtual deadline');
			this.time = Math.max(this.time, next.at);
			next.fire();
		}
	}

	private earlier(a: Timer, b: Timer): boolean {
		return a.at < b.at || (a.at === b.at && a.seq < b.seq);
	}

	private push(timer: Timer): void {
		const heap = this.heap;
		heap.push(timer);
		for (let i = heap.length - 1; i > 0; ) {
			const parent = (i - 1) >> 1;
			if (!this.earlier(heap[i], heap[parent])) break;
			[heap[i], heap[parent]] = [heap[parent], heap[i]];
			i = parent;
		}
	}

	private pop(): Timer | undefined {
		const heap = this.heap;
		const top = heap[0];
		const last = heap.pop();
		if (heap.length === 0 || !last) return top;
		heap[0] = last;
		for (let i = 0; ; ) {
			const [left, right] = [2 * i + 1, 2 * i + 2];
			let least = i;
			if (left < heap.length && this.earlier(heap[left], heap[least])) least = left;
			if (right < heap.length && this.earlier(heap[right], heap[least])) least = right;
			if (least === i) break;
			[heap[i], heap[least]] = [heap[least], heap[i]];
			i = least;
		}
		return top;
	}
}
