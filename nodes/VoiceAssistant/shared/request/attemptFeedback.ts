// The attempt feedback: what the end of each attempt of a run moves: the automatic limit of its
// window, then its account's admission (the pacer, which learns from the ends of automatic
// windows and hears whether the end cut the window).
import { clock } from '../clock';
import type { AttemptEnd } from '../failureModel';
import type { StatedCount } from '../serviceCount';
import type { AccountAdmission } from './admission';
import type { PacerKind } from './ratePacer';
import type { RunWindow } from './runWindow';
import type { WindowSizer } from './windowSizer';

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
 * In automatic mode the window's limit hears each end first; a 429 while the account has a rate
 * (set or learned) is the rate's to answer, not pushback. Then the account's admission hears it.
 */
export class AttemptFeedback {
	constructor(
		private readonly sizer: WindowSizer | undefined,
		private readonly window: RunWindow,
	) {}

	/** `tookMs`: from the attempt's start to its end; `count`: the service's count its answer stated. */
	onAttemptEnd(
		end: AttemptEnd,
		admission?: AccountAdmission,
		tookMs = 0,
		count?: StatedCount,
	): void {
		const kind = pacerKind(end);
		if (!this.sizer) return admission?.attemptEnded(kind, tookMs, undefined, count);
		const paced = admission?.rateInForce.now !== undefined;
		const pushback = isPushback(end) && !(paced && kind === 'rate-limited');
		const cutsBefore = this.sizer.cuts;
		this.sizer.onAttemptEnd(pushback, this.window.inUse, tookMs, clock.now());
		this.window.setLimit(this.sizer.limit);
		admission?.attemptEnded(kind, tookMs, this.sizer.cuts !== cutsBefore, count);
	}
}
