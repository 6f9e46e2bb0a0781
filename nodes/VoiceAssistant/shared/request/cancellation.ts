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
 * One abort listener per signal, however many waiters queue on it. A run queues thousands of
 * items on the execution's one signal, and every listener on it makes each HTTP request's own
 * add and remove of its abort listener slower.
 */
export class AbortListeners {
	private readonly watched = new WeakSet<AbortSignal>();

	constructor(private readonly onAbort: (signal: AbortSignal) => void) {}

	/** Calls onAbort(signal) when `signal` aborts; listens only on the first call per signal. */
	watch(signal: AbortSignal): void {
		if (this.watched.has(signal)) return;
		this.watched.add(signal);
		signal.addEventListener('abort', () => this.onAbort(signal), { once: true });
	}
}
