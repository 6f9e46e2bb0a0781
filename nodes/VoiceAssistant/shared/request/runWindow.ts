// A run's window: at most so many slots held at once (Max Concurrent Requests, or the automatic
// limit), each by an item from before its first turn to its result, so at most that many requests
// in flight; served in arrival order; the limit may move while the run sends.
import { WaiterQueue } from './waiterQueue';

export class RunWindow {
	private readonly waiting = new WaiterQueue<boolean>(false);
	/** Slots in use now. */
	inUse = 0;

	constructor(private limit: number) {}

	/** A higher limit admits waiters at once; a lower one takes effect as holders leave. */
	setLimit(limit: number): void {
		this.limit = limit;
		while (this.inUse < this.limit && this.waiting.serveNext(true)) this.inUse++;
	}

	/** Runs `work` holding a slot, given back however it ends; undefined, not run, when `signal` aborts first. */
	async use<T>(work: () => Promise<T>, signal: AbortSignal): Promise<T | undefined> {
		if (signal.aborted) return undefined;
		if (this.inUse < this.limit) this.inUse++;
		else if (!(await this.waiting.wait(signal))) return undefined;
		try {
			return await work();
		} finally {
			// Straight to the next waiter, so a late arrival cannot jump the queue.
			if (this.inUse > this.limit || !this.waiting.serveNext(true)) this.inUse--;
		}
	}
}
