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
 * Slow start grows the bound by one per answer (doubling per round trip) while the run's fastest
 * answer took less than this, and by one more per this much of it, up to MAX_SLOW_START_STEP: ×4
 * per round trip at 100 ms, ×5 at 200 ms and slower. A slow service is then not fed 32 requests
 * at a time for seconds while a fast one reaches its limit in milliseconds. The cap bounds the
 * overshoot when such a service also limits the rate: a round trip sends at most five times what
 * the one before showed it takes.
 */
export const SLOW_START_STEP_MS = 50;

export const MAX_SLOW_START_STEP = 4;

/**
 * The bound on requests in flight in automatic mode: additive increase, multiplicative decrease,
 * as TCP does, judged per round (as many answered attempts as the bound: about one round trip of
 * every request in flight). It starts at INITIAL_CONCURRENCY and grows by one per answer
 * (doubling per round) until a round pushes back too much; from then on by one per round. A
 * round in which more than PUSHBACK_SHARE_TO_CUT of the answers were 429, 503 or timeouts halves
 * it. Never above the ceiling (Max Concurrent Requests), never below 1. Slow start grows faster
 * when answers take longer (SLOW_START_STEP_MS).
 */
export class ConcurrencyController {
	private bound: number;

	private slowStart = true;

	/**
	 * The run's fastest answer: the service's own round trip. A single answer's time also holds
	 * the wait in n8n's busy event loop, which grows with the bound itself.
	 */
	private fastestAnswerMs = Infinity;

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

	/** The service answered without pushing back, `answerMs` after the attempt began. */
	onAnswer(answerMs = 0): void {
		this.fastestAnswerMs = Math.min(this.fastestAnswerMs, answerMs);
		if (this.slowStart) this.grow(slowStartStep(this.fastestAnswerMs));
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

	private grow(step = 1): void {
		this.bound = Math.min(this.ceiling, this.bound + step);
		this.peak = Math.max(this.peak, this.bound);
	}
}

/** How much one answer grows the bound in slow start: see SLOW_START_STEP_MS. */
function slowStartStep(fastestAnswerMs: number): number {
	return Math.min(MAX_SLOW_START_STEP, 1 + Math.floor(Math.max(0, fastestAnswerMs) / SLOW_START_STEP_MS));
}
