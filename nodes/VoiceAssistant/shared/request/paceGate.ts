// The gate in front of a pace: hands out the pacer's turns one by one, round robin between the
// runs that share it.
import { clock, onAbort } from '../clock';
import type { RatePacer } from './ratePacer';
import { WaiterQueue } from './waiterQueue';

/** What the gate needs of a pacer. */
export type Turns = Pick<RatePacer, 'nextTurnIn' | 'takeTurn'>;

/**
 * Hands out the pacer's turns one by one when they come (not booked ahead: a cut slows the very
 * next attempt), fairly between the runs that share it: round robin over the runs with waiters,
 * first come first served within a run. An agent's single tool call does not wait behind a bulk
 * run's queue.
 */
export class PaceGate {
	private readonly queues = new Map<object, WaiterQueue<void>>();
	private rotation: object[] = [];
	private next = 0;
	private pumping = false;

	/** Ends the pump's wait for the next turn once nobody waits for it (its timer cleared). */
	private pause: AbortController | undefined;
	private readonly watched = new WeakSet<AbortSignal>();

	constructor(private readonly pacer: Turns) {}

	get waiting(): number {
		let count = 0;
		for (const queue of this.queues.values()) count += queue.length;
		return count;
	}

	/** Resolves when the attempt may leave, or when `signal` aborts first. */
	async turn(run: object, signal: AbortSignal): Promise<void> {
		if (signal.aborted) return;
		if (this.waiting === 0 && this.pacer.nextTurnIn() === 0) return this.pacer.takeTurn(false);
		let queue = this.queues.get(run);
		if (!queue) {
			queue = new WaiterQueue<void>(undefined);
			this.queues.set(run, queue);
			this.rotation.push(run);
		}
		const turn = queue.wait(signal);
		// Registered after the queue's own: when the signal aborts, its waiters have left first.
		if (!this.watched.has(signal)) {
			this.watched.add(signal);
			onAbort(signal, () => this.pauseIfIdle());
		}
		if (!this.pumping) void this.pump();
		await turn;
	}

	/** A run that left the pace no longer takes part in the rotation. */
	forget(run: object): void {
		this.queues.delete(run);
		this.rotation = this.rotation.filter((member) => member !== run);
		this.pauseIfIdle();
	}

	private pauseIfIdle(): void {
		if (this.waiting === 0) this.pause?.abort();
	}

	private async pump(): Promise<void> {
		this.pumping = true;
		while (this.waiting > 0) {
			const wait = this.pacer.nextTurnIn();
			if (wait > 0) {
				this.pause = new AbortController();
				await clock.sleep(wait, this.pause.signal);
			} else if (this.serveNextRun()) this.pacer.takeTurn(true);
		}
		this.pumping = false;
	}

	private serveNextRun(): boolean {
		for (let step = 0; step < this.rotation.length; step++) {
			const index = (this.next + step) % this.rotation.length;
			if (this.queues.get(this.rotation[index])?.serveNext(undefined)) {
				this.next = index + 1;
				return true;
			}
		}
		return false;
	}
}
