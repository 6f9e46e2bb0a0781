// The attempt feedback: what the end of each attempt of a run moves: the automatic limit of its
// window, and its account's pacer (which also hears whether the end cut the window).
import type { AttemptEnd } from '../failureModel';
import type { WindowSizer } from './windowSizer';
import type { RunWindow } from './runWindow';
import type { PacerKind, RatePacer } from './ratePacer';

/** The service asks for less load: automatic concurrency halves (429, 503, a timeout). */
function isPushback(end: AttemptEnd): boolean {
	return end === 'rate-limited' || end === 'unavailable' || end === 'timeout';
}

/** Ends that tell nothing about load: the service handled the request, with success or a refusal. */
const HANDLED = new Set<AttemptEnd>(['answered', 'unusable', 'redirect', 'client-error']);

/** How the pacer counts an attempt's end. */
function pacerKind(end: AttemptEnd): PacerKind {
	if (HANDLED.has(end)) return 'handled';
	return end === 'rate-limited' ? 'rate-limited' : 'failed';
}

/**
 * In automatic mode the window's limit hears each end, then the pacer with whether it cut the window
 * (its rule starts pacing); a fixed window's ends start no pacing. Once pacing, 429s move the rate.
 */
export class AttemptFeedback {
	constructor(
		private readonly sizer: WindowSizer | undefined,
		private readonly window: RunWindow,
	) {}

	/** `tookMs`: from the attempt's start to its end. */
	onAttemptEnd(end: AttemptEnd, pacer: RatePacer | undefined, tookMs?: number): void {
		const kind = pacerKind(end);
		if (!this.sizer) return pacer?.onAttemptEnd(kind);
		const paced = pacer?.rate !== undefined;
		const cutsBefore = this.sizer.cuts;
		const pushback = isPushback(end) && !(paced && kind === 'rate-limited');
		this.sizer.onAttemptEnd(pushback, this.window.inUse, tookMs);
		this.window.setLimit(this.sizer.limit);
		pacer?.onAttemptEnd(kind, this.sizer.cuts !== cutsBefore);
	}
}
