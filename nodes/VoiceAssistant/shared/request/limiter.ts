import { AbortListeners } from './cancellation';

interface Waiter {
	signal: AbortSignal | undefined;
	/** true: the slot is taken; false: the signal aborted first and no slot was taken. */
	resolve: (took: boolean) => void;
}

/**
 * A FIFO counting semaphore: at most `limit` holders at once, waiters served in arrival order.
 * The limit may change while it runs (automatic concurrency): a higher one admits waiters at
 * once, a lower one takes effect as holders leave.
 */
export class ConcurrencyLimiter {
	private active = 0;

	/** Waiters in arrival order; `head` is the next one to serve (no O(n) shift per slot). */
	private waiting: Waiter[] = [];

	private head = 0;

	/** One listener per signal, not one per waiter. */
	private readonly aborts = new AbortListeners((signal) => this.dropWaitersOf(signal));

	constructor(private limit: number) {}

	setLimit(limit: number): void {
		this.limit = limit;
		while (this.active < this.limit && this.serveNext()) this.active++;
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
		if (signal) this.aborts.watch(signal);
		return await new Promise<boolean>((resolve) => this.waiting.push({ signal, resolve }));
	}

	/**
	 * Hands the slot straight to the next waiter, so a late arrival cannot jump the queue; after
	 * the limit was lowered below the holders, the slot is given up instead.
	 */
	private release(): void {
		if (this.active > this.limit || !this.serveNext()) this.active--;
	}

	/** Gives a slot to the next waiter, if there is one. */
	private serveNext(): boolean {
		const next = this.waiting[this.head];
		if (!next) return false;
		this.waiting[this.head++] = undefined as unknown as Waiter;
		if (this.head > 1024 && this.head * 2 > this.waiting.length) {
			this.waiting = this.waiting.slice(this.head);
			this.head = 0;
		}
		next.resolve(true);
		return true;
	}

	/** Every waiter of an aborted signal leaves the queue without a slot. */
	private dropWaitersOf(signal: AbortSignal): void {
		const queued = this.waiting.slice(this.head);
		this.waiting = queued.filter((waiter) => waiter.signal !== signal);
		this.head = 0;
		for (const waiter of queued) if (waiter.signal === signal) waiter.resolve(false);
	}

	get inUse(): number {
		return this.active;
	}
}
