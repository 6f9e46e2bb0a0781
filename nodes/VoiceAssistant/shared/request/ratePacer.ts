// The rate of a service account's attempts once it shows a rate limit, moved by their ends.
import { clock } from '../clock';

/**
 * Spacing of attempts once the service shows a rate limit (a limit on requests in flight cannot
 * hold a fast run under one). Pacing starts at the rate the service handled in the last window,
 * then follows it, judged per window (WINDOW_MS, MIN_ANSWERS_TO_JUDGE answers):
 * - more than MAX_THROTTLED_SHARE 429s: down to the rate the service accepted if the rate held the
 *   run back (at its limit, the limit), else slower by CUT_FACTOR. The first window, whose answers
 *   include those of requests sent before pacing began, only settles.
 * - none while the rate held the run back: faster by GROWTH, doubling that after PATIENT_WINDOWS
 *   such windows, up to MAX_GROWTH a second (a run paced low beside others finds the room they
 *   leave).
 * - a few 429s while the rate held the run back: back to the last rate without any (or what was
 *   accepted, if lower), at most MAX_SETTLES times until a window without any (random 429s would
 *   wear the rate down).
 * - more, with a share that did not fall when the rate was lowered, are noise: after
 *   GIVE_UP_AFTER_FUTILE_CUTS such windows pacing stops and retries handle them.
 * Turns a late timer missed are made up, up to CATCH_UP_MS: the service sees the rate itself.
 */
export const WINDOW_MS = 1000;
const MIN_ANSWERS_TO_JUDGE = 10;
const BUCKET_MS = 100;
const MAX_THROTTLED_SHARE = 0.05;
const CUT_FACTOR = 0.85;
const GROWTH = 0.02;
const PATIENT_WINDOWS = 5;
const MAX_GROWTH = 0.25;
const FUTILE_SHARE_RATIO = 0.75;
const GIVE_UP_AFTER_FUTILE_CUTS = 3;
const CATCH_UP_MS = 25;
const MAX_SETTLES = 2;

/** How the pacer counts an attempt's end. handled: the service handled it (any status but 429 and 5xx); failed: any other failure. */
export type PacerKind = 'handled' | 'rate-limited' | 'failed';

export class RatePacer {
	/** Attempts per second while pacing; undefined: not pacing. */
	private perSecond: number | undefined;
	private nextSendAt = 0;

	/** Attempts the service handled per BUCKET_MS of the last window, by bucket number. */
	private readonly handledBuckets = new Map<number, number>();
	private window = { start: 0, answers: 0, throttled: 0, handled: 0, sent: 0, waited: false };

	/** The share of 429s of the last window, if that window lowered the rate. */
	private loweredAt: number | undefined;
	private futileCuts = 0;

	/** The rate of the last window without a 429. */
	private clearRate: number | undefined;

	/** How often a few 429s lowered the rate since the last window without any. */
	private settles = 0;
	private firstWindow = false;
	private growthStreak = 0;
	private givenUp = false;

	get rate(): number | undefined {
		return this.perSecond;
	}

	/** How long until the next attempt may leave (0: now, and always when not paced). */
	nextTurnIn(): number {
		if (this.perSecond === undefined) return 0;
		const now = clock.now();
		this.endWindowIfDue(now);
		return Math.max(0, this.nextSendAt - now);
	}

	/** An attempt leaves now; `waited`: it had to wait for its turn. */
	takeTurn(waited: boolean): void {
		if (this.perSecond === undefined) return;
		const now = clock.now();
		// Turns a late timer missed are made up, up to CATCH_UP_MS: the rate is kept, not just approached.
		this.nextSendAt = Math.max(now - CATCH_UP_MS, this.nextSendAt) + 1000 / this.perSecond;
		if (waited) this.window.waited = true;
		this.window.sent++;
	}

	onAttemptEnd(kind: PacerKind): void {
		const now = clock.now();
		this.endWindowIfDue(now);
		this.window.answers++;
		if (kind === 'rate-limited') this.window.throttled++;
		if (kind !== 'handled') return;
		this.window.handled++;
		const bucket = Math.floor(now / BUCKET_MS);
		this.handledBuckets.set(bucket, (this.handledBuckets.get(bucket) ?? 0) + 1);
		for (const key of this.handledBuckets.keys())
			if (key <= bucket - WINDOW_MS / BUCKET_MS) this.handledBuckets.delete(key);
	}

	/** The service showed a rate limit: pace from now on, at what it handled in the last window. */
	rateLimited(): void {
		if (this.perSecond !== undefined || this.givenUp) return;
		const now = clock.now();
		const oldest = Math.floor(now / BUCKET_MS) - WINDOW_MS / BUCKET_MS;
		let handled = 0;
		for (const [bucket, count] of this.handledBuckets) if (bucket > oldest) handled += count;
		this.perSecond = Math.max(1, handled);
		this.nextSendAt = now;
		this.beginWindow(now);
		this.firstWindow = true;
	}

	private endWindowIfDue(now: number): void {
		const { start, answers, throttled, handled, sent, waited } = this.window;
		const elapsedMs = now - start;
		if (this.perSecond === undefined || elapsedMs < WINDOW_MS || answers < MIN_ANSWERS_TO_JUDGE)
			return;
		this.beginWindow(now);
		const share = throttled / answers;
		// The pace, not something else (few items left, the concurrency limit), held the run back.
		const paceBound = waited && sent >= 0.5 * this.perSecond * (elapsedMs / 1000);
		// What the service accepted: at its limit, the limit.
		const accepted = (handled * 1000) / elapsedMs;
		// Its answers include those of the requests sent before pacing began.
		const first = this.firstWindow;
		this.firstWindow = false;
		const loweredAt = this.loweredAt;
		this.loweredAt = undefined;
		if (share === 0) {
			[this.futileCuts, this.settles] = [0, 0];
			this.clearRate = this.perSecond;
			if (paceBound && !first) this.grow(elapsedMs);
			return;
		}
		this.growthStreak = 0;
		// The share did not fall when the rate was lowered: random 429s, not a rate limit.
		const futile = loweredAt !== undefined && share >= loweredAt * FUTILE_SHARE_RATIO;
		if (loweredAt !== undefined) this.futileCuts = futile ? this.futileCuts + 1 : 0;
		// A few 429s: just above the limit, back to the last rate without any (or what was accepted),
		// at most MAX_SETTLES times until a window without any (random 429s would wear the rate down).
		if (share <= MAX_THROTTLED_SHARE || first) {
			if (paceBound && (first || this.settles < MAX_SETTLES)) {
				const lowered = this.lower(Math.min(accepted, this.clearRate ?? accepted), share);
				if (lowered && !first) this.settles++;
			}
			return;
		}
		this.settles = 0;
		if (this.futileCuts >= GIVE_UP_AFTER_FUTILE_CUTS) {
			this.perSecond = undefined;
			this.givenUp = true;
			return;
		}
		this.lower(paceBound ? accepted : this.perSecond * CUT_FACTOR, share);
	}

	/** Down to `rate`, if lower; whether it was. */
	private lower(rate: number, share: number): boolean {
		if (rate >= (this.perSecond as number)) return false;
		this.perSecond = Math.max(1, rate);
		this.loweredAt = share;
		return true;
	}

	/** Growth per second of the window: a window that gathered its answers slowly grows as much. */
	private grow(elapsedMs: number): void {
		const perSecond =
			1 + Math.min(MAX_GROWTH, GROWTH * 2 ** Math.max(0, this.growthStreak++ - PATIENT_WINDOWS));
		this.perSecond = (this.perSecond as number) * perSecond ** (elapsedMs / 1000);
	}

	private beginWindow(now: number): void {
		this.window = { start: now, answers: 0, throttled: 0, handled: 0, sent: 0, waited: false };
	}
}
