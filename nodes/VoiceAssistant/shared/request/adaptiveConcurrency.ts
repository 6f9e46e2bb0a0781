/**
 * Requests in flight when a run starts in automatic mode. A service answering in 100 ms then
 * sees about 320 requests a second before the run knows more; with 10 (the fixed default of
 * earlier versions) the first second of a run at that latency is spent ramping up.
 */
export const INITIAL_CONCURRENCY = 32;

/**
 * A round in which more than this share of the answers pushed back halves the bound. Below it,
 * pushback is taken for the service's own noise (a random 429 or 503 of a busy service) rather
 * than a sign that this run sends too much: the item waits and retries, the bound stays.
 */
export const PUSHBACK_SHARE_TO_CUT = 0.5;

/**
 * The bound on requests in flight in automatic mode: additive increase, multiplicative decrease,
 * as TCP does, judged per round (as many answered attempts as the bound: about one round trip of
 * every request in flight). It starts at INITIAL_CONCURRENCY and grows by one per answer
 * (doubling per round) until a round pushes back too much; from then on by one per round. A
 * round in which more than PUSHBACK_SHARE_TO_CUT of the answers were 429, 503 or timeouts halves
 * it. Never above the ceiling (Max Concurrent Requests), never below 1.
 */
export class ConcurrencyController {
	private bound: number;

	private slowStart = true;

	/** The bound when the current round began: the round ends after that many answers. */
	private roundSize: number;

	private roundAnswers = 0;

	private roundPushbacks = 0;

	/** The highest bound reached in this run, for the summary line. */
	peak: number;

	/** How often the bound was halved in this run. */
	cuts = 0;

	constructor(private readonly ceiling: number) {
		this.bound = Math.min(INITIAL_CONCURRENCY, ceiling);
		this.peak = this.bound;
		this.roundSize = this.bound;
	}

	get limit(): number {
		return this.bound;
	}

	/** The service answered without pushing back. */
	onAnswer(): void {
		if (this.slowStart) this.grow();
		this.endOfAttempt(false);
	}

	/** The service pushed back (429, 503) or did not answer in time. */
	onPushback(): void {
		this.endOfAttempt(true);
	}

	private endOfAttempt(pushback: boolean): void {
		this.roundAnswers++;
		if (pushback) this.roundPushbacks++;
		if (this.roundAnswers < this.roundSize) return;
		const share = this.roundPushbacks / this.roundAnswers;
		if (share > PUSHBACK_SHARE_TO_CUT) {
			this.slowStart = false;
			this.bound = Math.max(1, Math.floor(this.bound / 2));
			this.cuts++;
		} else if (!this.slowStart) {
			this.grow();
		}
		this.roundSize = this.bound;
		this.roundAnswers = 0;
		this.roundPushbacks = 0;
	}

	private grow(): void {
		this.bound = Math.min(this.ceiling, this.bound + 1);
		this.peak = Math.max(this.peak, this.bound);
	}
}
