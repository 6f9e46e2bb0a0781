// The attempt feedback: what the end of each attempt of a run moves: the automatic limit of its
// window, and its account's pacer.
import type { AttemptEnd } from '../failureModel';
import type { WindowSizer } from './windowSizer';
import type { RunWindow } from './runWindow';
import type { PacerKind, RatePacer } from './ratePacer';

/** Pacing also starts when this many of the latest RECENT attempt ends were 429 (random 429s practically never do). */
const RECENT = 20;
const THROTTLED_OF_RECENT_TO_PACE = 16;

/** The service asks for less load: automatic concurrency halves (429, 503, a timeout). */
function isPushback(end: AttemptEnd): boolean {
	return end === 'rate-limited' || end === 'unavailable' || end === 'timeout';
}

/** Ends that tell nothing about load: the service handled the request, with success or a refusal. */
const HANDLED: ReadonlySet<AttemptEnd> = new Set([
	'answered',
	'unusable',
	'redirect',
	'client-error',
]);

/** How the pacer counts an attempt's end. */
function pacerKind(end: AttemptEnd): PacerKind {
	if (HANDLED.has(end)) return 'handled';
	return end === 'rate-limited' ? 'rate-limited' : 'failed';
}

/**
 * What each attempt's end moves: the account's pacer hears every one; in automatic mode the limit
 * on requests in flight hears it too, and pacing starts when the ends show a rate limit (a round
 * cut with 429s in it, or most of the latest ends 429). Once pacing, 429s move the pacer's rate,
 * not the limit. A run with a fixed Max Concurrent Requests never starts pacing.
 */
export class AttemptFeedback {
	/** Whether each of the latest RECENT attempt ends was a 429, and how many were. */
	private readonly recent: boolean[] = [];
	private recentThrottled = 0;
	private throttledSinceCut = 0;

	constructor(
		private readonly limit: WindowSizer | undefined,
		private readonly window: RunWindow,
	) {}

	/** `tookMs`: from the attempt's start to its end. */
	onAttemptEnd(end: AttemptEnd, pacer: RatePacer | undefined, tookMs?: number): void {
		const kind = pacerKind(end);
		pacer?.onAttemptEnd(kind);
		if (!this.limit) return;
		const throttled = kind === 'rate-limited';
		if (throttled) this.throttledSinceCut++;
		this.recent.push(throttled);
		if (throttled) this.recentThrottled++;
		if (this.recent.length > RECENT && this.recent.shift()) this.recentThrottled--;
		if (this.recentThrottled >= THROTTLED_OF_RECENT_TO_PACE) pacer?.rateLimited();
		const paced = pacer?.rate !== undefined;
		const cutsBefore = this.limit.cuts;
		this.limit.onAttemptEnd(isPushback(end) && !(paced && throttled), this.window.inUse, tookMs);
		this.window.setLimit(this.limit.limit);
		if (this.limit.cuts === cutsBefore) return;
		// A round that mostly pushed back, with 429s among it: the service limits the rate too.
		if (this.throttledSinceCut > 0) pacer?.rateLimited();
		this.throttledSinceCut = 0;
	}
}
