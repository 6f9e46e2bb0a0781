// The limit on requests in flight: a FIFO semaphore (Limiter) over a queue of waiters that leave
// when their run's signal aborts (WaiterQueue, also the pace gate's queue).
import { onAbort } from '../clock';

type Waiter<T> = { signal: AbortSignal; resolve: (value: T) => void };

/**
 * Waiters in arrival order, each with its run's signal: when the signal aborts, its waiters (only
 * its: runs may share a queue) leave with `leaveValue`. One abort listener per signal however many
 * wait on it: every listener on an execution's signal slows each HTTP request's own add and remove.
 */
export class WaiterQueue<T> {
	/** `head` is the next one to serve: no O(n) shift per turn. */
	private waiting: Array<Waiter<T> | undefined> = [];

	private head = 0;

	private readonly watched = new WeakSet<AbortSignal>();

	constructor(private readonly leaveValue: T) {}

	get length(): number {
		return this.waiting.length - this.head;
	}

	async wait(signal: AbortSignal): Promise<T> {
		if (signal.aborted) return this.leaveValue;
		if (!this.watched.has(signal)) {
			this.watched.add(signal);
			onAbort(signal, () => this.dropWaitersOf(signal));
		}
		return await new Promise<T>((resolve) => this.waiting.push({ signal, resolve }));
	}

	/** Resolves the first waiter with `value`; false when nobody waits. */
	serveNext(value: T): boolean {
		const next = this.waiting[this.head];
		if (!next) return false;
		this.waiting[this.head++] = undefined;
		if (this.head > 1024 && this.head * 2 > this.waiting.length) {
			this.waiting = this.waiting.slice(this.head);
			this.head = 0;
		}
		next.resolve(value);
		return true;
	}

	private dropWaitersOf(signal: AbortSignal): void {
		const queued = this.waiting.slice(this.head);
		this.waiting = queued.filter((waiter) => waiter?.signal !== signal);
		this.head = 0;
		for (const waiter of queued) if (waiter?.signal === signal) waiter.resolve(this.leaveValue);
	}
}

/**
 * A FIFO counting semaphore: at most `limit` holders at once. The limit may change while it runs
 * (automatic concurrency): a higher one admits waiters at once, a lower one takes effect as
 * holders leave.
 */
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
