import { WaiterQueue } from './cancellation';

/**
 * A FIFO counting semaphore: at most `limit` holders at once, waiters served in arrival order.
 * The limit may change while it runs (automatic concurrency): a higher one admits waiters at
 * once, a lower one takes effect as holders leave.
 */
export class ConcurrencyLimiter {
	private active = 0;

	/** Resolved true when a slot is handed over; false when the waiter's signal aborted first. */
	private readonly waiting = new WaiterQueue<boolean>(false);

	constructor(private limit: number) {}

	setLimit(limit: number): void {
		this.limit = limit;
		while (this.active < this.limit && this.waiting.serveNext(true)) this.active++;
	}

	/**
	 * Runs `work` holding a slot and gives the slot back however the work ends (result, error,
	 * cancellation). When `signal` aborts while it waits for a slot, it leaves the queue without
	 * taking one and resolves `cancelled()` instead.
	 */
	async use<T, C>(work: () => Promise<T>, signal: AbortSignal | undefined, cancelled: () => C): Promise<T | C> {
		if (!(await this.acquire(signal))) return cancelled();
		try {
			return await work();
		} finally {
			this.release();
		}
	}

	/** Resolves true once a slot is taken, or false (taking none) when `signal` aborts first. */
	private async acquire(signal?: AbortSignal): Promise<boolean> {
		if (signal?.aborted) return false;
		if (this.active < this.limit) {
			this.active++;
			return true;
		}
		return await this.waiting.wait(signal);
	}

	/**
	 * Hands the slot straight to the next waiter, so a late arrival cannot jump the queue; after
	 * the limit was lowered below the holders, the slot is given up instead.
	 */
	private release(): void {
		if (this.active > this.limit || !this.waiting.serveNext(true)) this.active--;
	}

	get inUse(): number {
		return this.active;
	}
}
