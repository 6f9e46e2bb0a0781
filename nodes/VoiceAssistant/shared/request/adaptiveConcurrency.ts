/** Requests in flight when a run starts in automatic mode (the fixed default of earlier versions). */
export const INITIAL_CONCURRENCY = 10;

/**
 * The bound on requests in flight in automatic mode: additive increase, multiplicative decrease,
 * as TCP does. It starts at INITIAL_CONCURRENCY and grows by one per answer (doubling per round
 * trip) until the service first pushes back; from then on by one per round trip. Pushback (429,
 * 503, a timeout) halves it, at most once per round: the requests in flight when the service
 * pushed back all meet the same pressure and must not cut it again and again. Never above the
 * ceiling (Max Concurrent Requests), never below 1.
 */
export class ConcurrencyController {
	private bound: number;

	private slowStart = true;

	/** Answers since the bound last grew, after slow start: a full round of them adds one. */
	private answersInRound = 0;

	/** Attempts completed since the last cut, and the bound then: no cut yet, so Infinity. */
	private completedSinceCut = Infinity;

	private boundAtCut = 0;

	/** The highest bound reached in this run, for the summary line. */
	peak: number;

	constructor(private readonly ceiling: number) {
		this.bound = Math.min(INITIAL_CONCURRENCY, ceiling);
		this.peak = this.bound;
	}

	get limit(): number {
		return this.bound;
	}

	/** The service answered without pushing back. */
	onAnswer(): void {
		this.completedSinceCut++;
		if (this.slowStart || ++this.answersInRound >= this.bound) {
			this.answersInRound = 0;
			this.bound = Math.min(this.ceiling, this.bound + 1);
		}
		this.peak = Math.max(this.peak, this.bound);
	}

	/** The service pushed back (429, 503) or did not answer in time. */
	onPushback(): void {
		this.slowStart = false;
		if (this.completedSinceCut < this.boundAtCut) {
			this.completedSinceCut++;
			return;
		}
		this.boundAtCut = this.bound;
		this.completedSinceCut = 0;
		this.answersInRound = 0;
		this.bound = Math.max(1, Math.floor(this.bound / 2));
	}
}
