// The automatic limit of a run's window (Adapt Concurrency): additive increase, multiplicative
// decrease, moved by the ends of the run's attempts. Pure: no clock, no I/O.
import { INITIAL_CONCURRENCY } from '../requestPolicy';

/** More pushback than this share in a round halves the limit; less is a busy service's noise. */
const PUSHBACK_SHARE_TO_CUT = 0.5;
/** Slow start doubles the limit at most once per this long: a service answering in a few ms would otherwise see it double before its first 429 comes back. */
const SLOW_START_DOUBLING_MS = 50;
/** Slow start ends once even a round's fastest attempt takes this many times the run's fastest, and this much more: requests queue. */
const QUEUEING_FACTOR = 2;
const QUEUEING_MS = 20;

/**
 * As TCP does, judged per round (as many ends as the limit): +1 per end (doubling per round, at
 * most once per SLOW_START_DOUBLING_MS) until
 * a round pushes back too much or its attempts queue (TCP's HyStart), then +1 per round; more than
 * PUSHBACK_SHARE_TO_CUT pushback (429, 503, timeouts) halves it. It grows only while the run fills
 * half of it (as Netflix's concurrency-limits): a slow run has no evidence the service takes more.
 */
export class WindowSizer {
	/** Requests in flight allowed now: never above `ceiling`, never below 1. */
	limit: number;
	private slowStart = true;
	private roundSize: number;
	private roundEnds = 0;
	private roundPushbacks = 0;
	/** The fastest attempt of the run, and of the round. */
	private fastest = Infinity;
	private roundFastest = Infinity;
	/** Slow start's limit to double, and since when. */
	private doubling = { from: 0, at: -Infinity };
	/** How often the limit was halved. */
	cuts = 0;

	constructor(private readonly ceiling: number) {
		this.limit = Math.min(INITIAL_CONCURRENCY, ceiling);
		this.roundSize = this.limit;
	}

	/** An attempt ended at `now`: `pushback` when the service asked for less load; `inFlight` counts it; `tookMs` its time. */
	onAttemptEnd(pushback: boolean, inFlight: number, tookMs: number | undefined, now: number): void {
		const full = inFlight * 2 >= this.limit;
		if (now - this.doubling.at >= SLOW_START_DOUBLING_MS)
			this.doubling = { from: this.limit, at: now };
		if (this.slowStart && !pushback && full && this.limit < 2 * this.doubling.from) this.grow();
		this.roundEnds++;
		if (pushback) this.roundPushbacks++;
		this.fastest = Math.min(this.fastest, tookMs ?? Infinity);
		this.roundFastest = Math.min(this.roundFastest, tookMs ?? Infinity);
		if (this.roundEnds < this.roundSize) return;
		if (this.roundFastest > Math.max(QUEUEING_FACTOR * this.fastest, this.fastest + QUEUEING_MS))
			this.slowStart = false;
		this.roundFastest = Infinity;
		if (this.roundPushbacks / this.roundEnds > PUSHBACK_SHARE_TO_CUT) {
			this.slowStart = false;
			this.limit = Math.max(1, Math.floor(this.limit / 2));
			this.cuts++;
		} else if (!this.slowStart && full) this.grow();
		[this.roundSize, this.roundEnds, this.roundPushbacks] = [this.limit, 0, 0];
	}

	private grow(): void {
		this.limit = Math.min(this.ceiling, this.limit + 1);
	}
}
