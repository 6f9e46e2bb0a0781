import type { Logger } from 'n8n-workflow';

/** Runs with fewer items log only their summary line. */
const PROGRESS_FROM_ITEMS = 100;

export interface ProgressFigures {
	/** The bound on requests in flight now, and the highest it reached. */
	concurrency: () => { now: number; peak: number };
	inFlight: () => number;
	/** Attempts per second while the run is paced to a rate limit, the lowest pace of the run, and the items waiting for their turn. */
	pace: () => { now: number | undefined; lowest: number | undefined; waiting: number };
}

/**
 * Progress of a long run in n8n's log, which is all a user sees while a node runs: a line every
 * tenth of the items (at most every 1,000), and one summary line at the end. Counts and figures
 * only: never a value an item carries, nor the API key.
 */
export class Progress {
	private succeeded = 0;

	private failed = 0;

	private retries = 0;

	/** Items waiting out a Retry-After or a backoff right now. */
	private waiting = 0;

	private readonly every: number;

	private readonly startedAt = Date.now();

	constructor(
		private readonly total: number,
		private readonly logger: Logger,
		private readonly nodeName: string,
		private readonly figures: ProgressFigures,
	) {
		this.every = Math.max(1, Math.min(1000, Math.ceil(total / 10)));
	}

	private get done(): number {
		return this.succeeded + this.failed;
	}

	/** Every item of the run has its outcome. */
	get finished(): boolean {
		return this.done === this.total;
	}

	retryWaitStarted(): void {
		this.retries++;
		this.waiting++;
	}

	retryWaitEnded(): void {
		this.waiting--;
	}

	itemDone(succeeded: boolean): void {
		if (succeeded) this.succeeded++;
		else this.failed++;
		if (this.finished) this.logSummary();
		else if (this.total >= PROGRESS_FROM_ITEMS && this.done % this.every === 0) this.logProgress();
	}

	private logProgress(): void {
		const percent = Math.floor((this.done / this.total) * 100);
		const { now } = this.figures.concurrency();
		const { now: pace, waiting } = this.figures.pace();
		const paced = pace === undefined ? '' : `, paced at ${Math.round(pace)} requests/s (${waiting} waiting for their turn)`;
		this.logger.info(
			`Voice Assistant "${this.nodeName}": ${this.done}/${this.total} items (${percent}%): ${this.succeeded} succeeded, ${this.failed} failed, ${this.waiting} waiting to retry, ${this.figures.inFlight()} in flight of ${now} allowed${paced}`,
		);
	}

	private logSummary(): void {
		const seconds = ((Date.now() - this.startedAt) / 1000).toFixed(1);
		const { peak } = this.figures.concurrency();
		const lowest = this.figures.pace().lowest;
		const paced = lowest === undefined ? '' : `, paced to the service's rate limit (down to ${Math.round(lowest)} requests/s)`;
		this.logger.info(
			`Voice Assistant "${this.nodeName}": done: ${this.total} items in ${seconds} s: ${this.succeeded} succeeded, ${this.failed} failed, ${this.retries} retries, up to ${peak} requests in flight${paced}`,
		);
	}
}
