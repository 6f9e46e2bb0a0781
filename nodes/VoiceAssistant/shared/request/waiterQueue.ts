// A queue of waiters served in arrival order, each leaving when its run's signal aborts: the
// limiter's and the pace gate's queue.
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
