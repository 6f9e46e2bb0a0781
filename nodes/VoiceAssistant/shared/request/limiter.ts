import * as n8nWorkflow from 'n8n-workflow';
import { sleep } from 'n8n-workflow';

/** Time as the engine sees it: real by default, a fake clock in the model-based tests. */
export interface Clock {
	now(): number;
	/** Resolves after `ms`, or as soon as `signal` aborts. */
	sleep(ms: number, signal?: AbortSignal): Promise<void>;
}

type SleepWithAbort = (ms: number, signal?: AbortSignal) => Promise<void>;

/** n8n-workflow 1.x and 2.8 export it (it clears its timer on abort); 2.41 does not. */
const sleepWithAbort = (n8nWorkflow as { sleepWithAbort?: SleepWithAbort }).sleepWithAbort;

/** Callbacks to run when a signal aborts: one listener per signal, however many wait on it. */
const wakers = new WeakMap<AbortSignal, Set<() => void>>();

function onAbort(signal: AbortSignal, wake: () => void): () => void {
	let waiting = wakers.get(signal);
	if (!waiting) {
		const callbacks = new Set<() => void>();
		signal.addEventListener('abort', () => callbacks.forEach((callback) => callback()), { once: true });
		wakers.set(signal, callbacks);
		waiting = callbacks;
	}
	waiting.add(wake);
	return () => waiting.delete(wake);
}

async function abortableSleep(ms: number, signal?: AbortSignal): Promise<void> {
	if (!signal) return await sleep(ms);
	if (signal.aborted) return;
	if (typeof sleepWithAbort === 'function') {
		// Its own signal, so that thousands of waits add one listener to the run's, and the timer is cleared on abort.
		const own = new AbortController();
		const forget = onAbort(signal, () => own.abort());
		await sleepWithAbort(ms, own.signal).catch(() => undefined); // rejects only on abort
		return forget();
	}
	// sleep() has no abort, so the wait races the signal; its timer runs out harmlessly.
	await new Promise<void>((resolve) => {
		const forget = onAbort(signal, resolve);
		void sleep(ms).then(() => {
			forget();
			resolve();
		});
	});
}

export const realClock: Clock = { now: () => Date.now(), sleep: abortableSleep };

/** The clock every part of the engine reads; only tests replace it. */
export let clock: Clock = realClock;

export function useClock(replacement: Clock): void {
	clock = replacement;
}

/** Waits `ms` unless `signal` aborts first; false when it did. */
export async function wait(ms: number, signal: AbortSignal): Promise<boolean> {
	if (!signal.aborted) await clock.sleep(ms, signal);
	return !signal.aborted;
}

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
