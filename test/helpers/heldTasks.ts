/**
 * Work held in a run's window until a test ends it, and what a window's use() resolved: shared by
 * test/runWindow.test.ts and test/waiterQueue.test.ts.
 */
import { createDeferredPromise, type IDeferredPromise } from 'n8n-workflow';

/** A signal that never aborts: use() then always runs the work. */
export const NEVER = new AbortController().signal;

/** What use() resolved, 'cancelled' for work it never ran. */
export const orCancelled = async <T>(result: Promise<T | undefined>) =>
	(await result) ?? 'cancelled';

/** Lets every pending promise callback run. */
export const settle = async () => await new Promise<void>((resolve) => setImmediate(resolve));

/** A task that runs until the test ends it, recording when it started. */
export function heldTask(name: string, started: string[]) {
	const end: IDeferredPromise<string> = createDeferredPromise<string>();
	const task = async () => {
		started.push(name);
		return await end.promise;
	};
	return { task, end };
}
