// A run's log lines: its progress every so often on big runs, and one summary saying how it ended.
import type { Logger } from 'n8n-workflow';
import { clock } from './clock';
import type { SetLimit } from './rate';
import { heldBackWords, rateWords, seconds, type HeldBack } from './runWords';

/** Runs with fewer items log only their summary line. */
const PROGRESS_FROM_ITEMS = 100;

interface ProgressFigures {
	/** The limit on requests in flight now, and the most requests that were in flight at once. */
	concurrency: () => { now: number; peak: number };
	/** Attempts between their start and their end (one waiting for its turn or a retry is not). */
	inFlight: () => number;
	/** The account's rate now, its Rate Limit in force and the service's stated count, and the attempts waiting for their turn. */
	rate: () => {
		now?: number;
		limit?: SetLimit;
		stated?: Parameters<typeof rateWords>[2];
		waiting: number;
	};
	heldBack: () => HeldBack;
}

/**
 * A long run's progress in n8n's log, all a user sees while a node runs: a line every tenth of the
 * items (at most every 1,000), and a summary line when the run ends. Counts and figures only.
 */
export class Progress {
	private succeeded = 0;
	private failed = 0;
	private retries = 0;
	private retryWaiting = 0;
	private readonly every: number;
	private readonly startedAt = clock.now();

	constructor(
		private readonly total: number,
		private readonly logger: Logger,
		private readonly nodeName: string,
		private readonly figures: ProgressFigures,
	) {
		this.every = Math.max(1, Math.min(1000, Math.ceil(total / 10)));
	}

	get done(): number {
		return this.succeeded + this.failed;
	}

	retryWaitStarted(): void {
		this.retries++;
		this.retryWaiting++;
	}

	retryWaitEnded(): void {
		this.retryWaiting--;
	}

	itemDone(succeeded: boolean): void {
		if (succeeded) this.succeeded++;
		else this.failed++;
		// The last item's summary line is the Run's to log: it knows how the run ended.
		if (this.done < this.total && this.total >= PROGRESS_FROM_ITEMS && this.done % this.every === 0)
			this.logProgress();
	}

	private logProgress(): void {
		const { now: rate, limit, stated, waiting } = this.figures.rate();
		const paced =
			rate === undefined
				? ''
				: `, paced at ${rateWords(rate, limit, stated)} (${waiting} waiting for their turn)`;
		this.logger.info(
			`Voice Assistant "${this.nodeName}": ${this.done}/${this.total} items (${Math.floor((this.done / this.total) * 100)}%): ${this.succeeded} succeeded, ${this.failed} failed, ${this.retryWaiting} waiting to retry, ${this.figures.inFlight()} in flight of ${this.figures.concurrency().now} allowed${paced}`,
		);
	}

	private summarized = false;

	/** Once per run: when every item has its outcome, or when the run ends before. */
	logSummary(how: string): void {
		if (this.summarized) return;
		this.summarized = true;
		this.logger.info(
			`Voice Assistant "${this.nodeName}": ${how}: ${this.total} items in ${seconds(clock.now() - this.startedAt)} s: ${this.succeeded} succeeded, ${this.failed} failed, ${this.retries} retries, up to ${this.figures.concurrency().peak} requests in flight${heldBackWords(this.figures.heldBack())}`,
		);
	}
}
