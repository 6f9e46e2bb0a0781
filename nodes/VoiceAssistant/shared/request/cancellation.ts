import * as n8nWorkflow from 'n8n-workflow';
import { sleep } from 'n8n-workflow';

type SleepWithAbort = (ms: number, signal?: AbortSignal) => Promise<void>;

/** n8n-workflow 1.x and 2.8 export it; 2.41 does not. */
const sleepWithAbort = (n8nWorkflow as { sleepWithAbort?: SleepWithAbort }).sleepWithAbort;

/** The same on any n8n: sleep() has no abort, so the wait races the signal (its timer runs out harmlessly). */
async function raceAbort(ms: number, signal: AbortSignal): Promise<void> {
	await new Promise<void>((resolve) => {
		signal.addEventListener('abort', () => resolve(), { once: true });
		void sleep(ms).then(() => resolve());
	});
}

/** Waits `ms`, or less when the execution is cancelled meanwhile; false when it was. */
export async function waitUnlessCancelled(ms: number, signal: AbortSignal | undefined): Promise<boolean> {
	if (signal?.aborted) return false;
	if (!signal) await sleep(ms);
	else if (typeof sleepWithAbort !== 'function') await raceAbort(ms, signal);
	else await sleepWithAbort(ms, signal).catch(() => undefined); // it rejects only on abort
	return !signal?.aborted;
}

/**
 * Waiters in arrival order, each with its run's cancel signal: the queue of the concurrency
 * limiter and of the pace gate. When a signal aborts, its waiters (only its: runs may share a
 * queue) leave with `leaveValue`. One abort listener per signal, however many waiters queue on
 * it: a run queues thousands of items on the execution's one signal, and every listener on it
 * makes each HTTP request's own add and remove of its abort listener slower.
 */
export class WaiterQueue<T> {
	/** `head` is the next one to serve: no O(n) shift per turn. Served entries are cleared. */
	private waiting: Array<{ signal: AbortSignal | undefined; resolve: (value: T) => void } | undefined> = [];

	private head = 0;

	private readonly watched = new WeakSet<AbortSignal>();

	constructor(private readonly leaveValue: T) {}

	get length(): number {
		return this.waiting.length - this.head;
	}

	/** Resolves with what serveNext gives, or with `leaveValue` when `signal` aborts first. */
	async wait(signal: AbortSignal | undefined): Promise<T> {
		if (signal && !this.watched.has(signal)) {
			this.watched.add(signal);
			signal.addEventListener('abort', () => this.dropWaitersOf(signal), { once: true });
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
