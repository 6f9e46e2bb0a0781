// Time as the node sees it, and the cancellable wait on each n8n version: the one clock every part
// of the node reads (the tests replace it). Monotonic: a wall clock stepped back or forward (NTP, a
// restored VM) moves no wait, pause or deadline.
import * as n8nWorkflow from 'n8n-workflow';

/** Time as the node sees it: real by default; the tests set a faster or virtual one (useClock). */
export interface Clock {
	/** Milliseconds on a clock that never jumps (not the time of day). */
	now(): number;
	/** The time of day (ms since 1970), for what names one: an HTTP date's Retry-After, an error's words. */
	date(): number;
	/** Resolves after `ms` (Infinity: only when `signal` aborts), or as soon as `signal` aborts. */
	sleep(ms: number, signal?: AbortSignal): Promise<void>;
	/** A random number in [0, 1) for a wait's random part (tests give a seeded one); Math.random without it. */
	random?(): number;
}

/** The longest one timer holds (Node arms a longer one for 1 ms): longer waits take several. */
const LONGEST_TIMER_MS = 2 ** 31 - 1;

/** The second a service counts requests in. */
export const SECOND_MS = 1000;

type Sleep = (ms: number, signal?: AbortSignal) => Promise<void>;

/**
 * The host n8n's timers (a community node may not arm its own). n8n-workflow 1.x and 2.8 export
 * `sleepWithAbort(ms, signal)`; from 2.39 on, n8n-workflow re-exports `@n8n/utils/sleep`, whose
 * `sleep(ms, signal)` takes the signal instead. Both clear their timer when the signal aborts and
 * then reject; 2.8's `sleep(ms)` ignores a second argument. Checked on each n8n version by
 * test/clock.test.ts and the e2e suite.
 */
const { sleepWithAbort, sleep } = n8nWorkflow as unknown as {
	sleepWithAbort?: Sleep;
	sleep: Sleep;
};
const clearingSleep: Sleep = typeof sleepWithAbort === 'function' ? sleepWithAbort : sleep;

/** Callbacks to run when a signal aborts: one listener per signal, however many wait on it. */
const wakers = new WeakMap<AbortSignal, Set<() => void>>();

/** Runs `wake` when `signal` aborts; returns the function that forgets it. */
export function onAbort(signal: AbortSignal, wake: () => void): () => void {
	let waiting = wakers.get(signal);
	if (!waiting) {
		const callbacks = new Set<() => void>();
		signal.addEventListener('abort', () => callbacks.forEach((callback) => callback()), {
			once: true,
		});
		wakers.set(signal, callbacks);
		waiting = callbacks;
	}
	waiting.add(wake);
	return () => waiting.delete(wake);
}

async function abortableSleep(ms: number, signal?: AbortSignal): Promise<void> {
	if (signal?.aborted) return;
	// A signal of its own, so that thousands of waits add one listener to the run's.
	const own = new AbortController();
	const forget = signal ? onAbort(signal, () => own.abort()) : () => undefined;
	let left = ms;
	do {
		const step = Math.min(left, LONGEST_TIMER_MS);
		left -= step;
		await (signal ? clearingSleep(step, own.signal) : sleep(step)).catch(() => undefined); // rejects only on abort
	} while (left > 0 && !own.signal.aborted);
	forget();
}

export const realClock: Clock = {
	now: () => performance.now(),
	date: () => Date.now(),
	sleep: abortableSleep,
};

/** The clock every part of the node reads; only tests replace it. */
export let clock: Clock = realClock;

export function useClock(replacement: Clock): void {
	clock = replacement;
}

/** A random part of `ms`: waits that would meet another process's at the same moment do not. */
export const jitter = (ms: number): number => ms * (clock.random?.() ?? Math.random());

/** Waits `ms` unless `signal` aborts first; false when it did. */
export async function wait(ms: number, signal: AbortSignal): Promise<boolean> {
	if (!signal.aborted) await clock.sleep(ms, signal);
	return !signal.aborted;
}
