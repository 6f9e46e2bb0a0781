// A queue of waiters served in arrival order, each leaving when its run's signal aborts: where a
// request waits for a slot in its run's window, and for its turn at the account's admission.
import { onAbort } from '../clock';

type Waiter<T> = { resolve: (value: T) => void; forget: () => void; patienceMs: number };

/**
 * A waiter whose signal aborts leaves with `leaveValue`; the others keep their place (a Set keeps
 * their order). One listener per signal (clock.onAbort): each slows every HTTP request's own.
 */
export class WaiterQueue<T> {
	private readonly waiting = new Set<Waiter<T>>();

	constructor(private readonly leaveValue: T) {}

	get length(): number {
		return this.waiting.size;
	}

	/** Waits to be served; `patienceMs`: the longest hold it may wait out (serveExpiring). */
	async wait(signal: AbortSignal, patienceMs = Infinity): Promise<T> {
		if (signal.aborted) return this.leaveValue;
		return await new Promise<T>((resolve) => {
			const waiter: Waiter<T> = { resolve, forget: () => undefined, patienceMs };
			waiter.forget = onAbort(signal, () => {
				this.waiting.delete(waiter);
				resolve(this.leaveValue);
			});
			this.waiting.add(waiter);
		});
	}

	/** Resolves the first waiter with `value`; false when nobody waits. */
	serveNext(value: T): boolean {
		const [next] = this.waiting;
		if (!next) return false;
		this.serve(next, value);
		return true;
	}

	/** Resolves with `value` every waiter whose patience is shorter than a hold of `holdMs` from now. */
	serveExpiring(holdMs: number, value: T): void {
		for (const waiter of this.waiting) if (waiter.patienceMs < holdMs) this.serve(waiter, value);
	}

	private serve(waiter: Waiter<T>, value: T): void {
		this.waiting.delete(waiter);
		waiter.forget();
		waiter.resolve(value);
	}
}
