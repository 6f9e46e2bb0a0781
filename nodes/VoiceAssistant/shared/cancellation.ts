import * as n8nWorkflow from 'n8n-workflow';
import { sleep } from 'n8n-workflow';

/** Thrown inside the node when the execution is cancelled; never reaches the user as a failure. */
export class CancelledError extends Error {
	constructor() {
		super('The execution was cancelled');
		this.name = 'CancelledError';
	}
}

export const cancelledError = () => new CancelledError();

type SleepWithAbort = (ms: number, signal?: AbortSignal) => Promise<void>;

/** n8n-workflow 1.x and 2.8 export it; 2.41 does not. */
const sleepWithAbort = (n8nWorkflow as { sleepWithAbort?: SleepWithAbort }).sleepWithAbort;

/** The same on any n8n: sleep() has no abort, so the wait races the signal (its timer runs out harmlessly). */
async function raceAbort(ms: number, signal: AbortSignal): Promise<void> {
	await new Promise<void>((resolve, reject) => {
		const onAbort = () => reject(cancelledError());
		signal.addEventListener('abort', onAbort, { once: true });
		void sleep(ms).then(() => {
			signal.removeEventListener('abort', onAbort);
			resolve();
		});
	});
}

/** Waits `ms`; throws CancelledError as soon as the execution is cancelled. */
export async function waitUnlessCancelled(ms: number, signal: AbortSignal | undefined): Promise<void> {
	if (signal?.aborted) throw cancelledError();
	if (!signal) return await sleep(ms);
	if (typeof sleepWithAbort !== 'function') return await raceAbort(ms, signal);
	try {
		await sleepWithAbort(ms, signal);
	} catch (error) {
		if (signal.aborted) throw cancelledError();
		throw error;
	}
}

/** Throws CancelledError when the execution was cancelled. */
export function throwIfCancelled(signal: AbortSignal | undefined): void {
	if (signal?.aborted) throw cancelledError();
}
