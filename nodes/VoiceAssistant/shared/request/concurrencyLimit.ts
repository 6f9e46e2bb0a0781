// The limit on requests in flight in automatic mode: additive increase, multiplicative decrease,
// moved by the service's answers.

/**
 * Requests in flight when a run starts in automatic mode: a service answering in 100 ms then sees
 * about 320 requests a second before the run knows more.
 */
export const INITIAL_CONCURRENCY = 32;

/**
 * A round in which more than this share of the answers pushed back halves the limit. Below it the
 * pushback is a busy service's noise (a random 429 or 503): the item retries, the limit stays.
 */
export const PUSHBACK_SHARE_TO_CUT = 0.5;

/**
 * Slow start ends once even the fastest answer of a round takes this many times the run's fastest
 * (and QUEUEING_MS more): more requests in flight only wait longer, in this process or at the
 * service (as TCP's HyStart ends it on a rising delay).
 */
const QUEUEING_FACTOR = 2;
const QUEUEING_MS = 20;

/**
 * The limit on requests in flight in automatic mode, additive increase and multiplicative decrease
 * as TCP does, judged per round (as many answers as the limit). It starts at INITIAL_CONCURRENCY
 * and grows by one per answer (doubling per round) until a round pushes back too much or its
 * answers queue, then by one per round; a round with more than PUSHBACK_SHARE_TO_CUT pushback
 * (429, 503, timeouts) halves it. It grows only while the run fills it (at least half of it in
 * flight, as Netflix's concurrency-limits guard it): a run that sends slowly (n8n preparing items,
 * few items left) has no evidence the service takes more. Pure: no clock, no I/O. Never above
 * `ceiling`, never below 1.
 */
export class ConcurrencyLimit {
	private current: number;
	private slowStart = true;
	private roundSize: number;
	private roundAnswers = 0;
	private roundPushbacks = 0;

	/** The fastest answer of the run, and of the round. */
	private fastest = Infinity;
	private roundFastest = Infinity;

	/** How often the limit was halved. */
	cuts = 0;

	constructor(private readonly ceiling: number) {
		this.current = Math.min(INITIAL_CONCURRENCY, ceiling);
		this.roundSize = this.current;
	}

	get limit(): number {
		return this.current;
	}

	/**
	 * An attempt ended: `pushback` when the service asked for less load; `inFlight` counts it;
	 * `tookMs`: how long it took.
	 */
	onAttemptEnd(pushback: boolean, inFlight: number, tookMs?: number): void {
		const full = inFlight * 2 >= this.current;
		if (this.slowStart && !pushback && full) this.grow();
		this.roundAnswers++;
		if (pushback) this.roundPushbacks++;
		if (tookMs !== undefined) {
			this.fastest = Math.min(this.fastest, tookMs);
			this.roundFastest = Math.min(this.roundFastest, tookMs);
		}
		if (this.roundAnswers < this.roundSize) return;
		// Even the round's fastest answer came late: requests queue instead of being served faster.
		if (this.roundFastest > Math.max(QUEUEING_FACTOR * this.fastest, this.fastest + QUEUEING_MS))
			this.slowStart = false;
		this.roundFastest = Infinity;
		if (this.roundPushbacks / this.roundAnswers > PUSHBACK_SHARE_TO_CUT) {
			this.slowStart = false;
			this.current = Math.max(1, Math.floor(this.current / 2));
			this.cuts++;
		} else if (!this.slowStart && full) {
			this.grow();
		}
		this.roundSize = this.current;
		this.roundAnswers = 0;
		this.roundPushbacks = 0;
	}

	private grow(): void {
		this.current = Math.min(this.ceiling, this.current + 1);
	}
}
