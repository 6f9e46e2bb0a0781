import { sleep } from 'n8n-workflow';
import { WaiterQueue } from './cancellation';
import type { RatePacer } from './ratePacer';

/** What the gate needs of a RatePacer. */
export type Turns = Pick<RatePacer, 'nextTurnIn' | 'takeTurn'>;

/**
 * Lets attempts leave one by one at the pacer's current pace, in arrival order. Turns
 * are handed out when they come, not booked ahead: a pace cut slows the very next attempt, even
 * with hundreds of attempts waiting.
 */
export class PaceGate {
	/**
	 * Runs of several executions may share the gate (see servicePace): when one is cancelled, only
	 * its waiters leave; they see the aborted signal and send nothing.
	 */
	private readonly waiting = new WaiterQueue<void>(undefined);

	private pumping = false;

	constructor(private readonly pacer: Turns) {}

	/** Attempts waiting for their turn now. */
	get waitingCount(): number {
		return this.waiting.length;
	}

	/** Resolves when the attempt may leave, or at once when `signal` aborts. */
	async turn(signal: AbortSignal | undefined): Promise<void> {
		if (signal?.aborted) return;
		if (this.waiting.length === 0 && this.pacer.nextTurnIn() === 0) return this.pacer.takeTurn(false);
		const turn = this.waiting.wait(signal);
		if (!this.pumping) void this.pump();
		await turn;
	}

	private async pump(): Promise<void> {
		this.pumping = true;
		while (this.waiting.length > 0) {
			const wait = this.pacer.nextTurnIn();
			if (wait > 0) await sleep(wait);
			else {
				this.pacer.takeTurn(true);
				this.waiting.serveNext(undefined);
			}
		}
		this.pumping = false;
	}
}
