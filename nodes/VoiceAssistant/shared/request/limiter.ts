// The limit on requests in flight across the items of a run: a FIFO semaphore (Limiter) whose
// limit may change while it runs.
import { WaiterQueue } from './waiterQueue';

/** At most `limit` holders at once: a higher limit admits waiters at once, a lower one takes effect as holders leave. */
export class Limiter {
	private active = 0;
	private readonly waiting = new WaiterQueue<boolean>(false);

	/** The most holders at once so far. */
	peak = 0;

	constructor(private limit: number) {}

	get inUse(): number {
		return this.active;
	}

	setLimit(limit: number): void {
		this.limit = limit;
		while (this.active < this.limit && this.waiting.serveNext(true)) this.active++;
	}

	/**
	 * Runs `work` holding a slot and gives it back however the work ends. When `signal` aborts
	 * first, it takes no slot and resolves undefined.
	 */
	async use<T>(work: () => Promise<T>, signal: AbortSignal): Promise<T | undefined> {
		if (!(await this.acquire(signal))) return undefined;
		try {
			return await work();
		} finally {
			// Straight to the next waiter, so a late arrival cannot jump the queue.
			if (this.active > this.limit || !this.waiting.serveNext(true)) this.active--;
		}
	}

	private async acquire(signal: AbortSignal): Promise<boolean> {
		if (signal.aborted) return false;
		if (this.active < this.limit) {
			this.peak = Math.max(this.peak, ++this.active);
			return true;
		}
		const served = await this.waiting.wait(signal);
		this.peak = Math.max(this.peak, this.active);
		return served;
	}
}
