/**
 * Pacing of a run's attempts once the service shows a rate limit. A bound on requests in flight
 * cannot keep a fast run under a rate limit: with short answer times even one request in flight
 * sends faster than most limits, so each time the service's allowance runs out every request in
 * flight is answered 429. Once the run's bound was cut for 429s, or most of its latest answers
 * were 429 (see RunState), the run also spaces its attempts, at the rate the service answered
 * in the last window, and then follows that rate, judged once per window (at least WINDOW_MS and MIN_ANSWERS_TO_JUDGE answers):
 *
 * - more than MAX_THROTTLED_SHARE of the window's answers were 429: slower by CUT_FACTOR, and
 *   down to what the service answered in the window if the pace is what held the run back;
 * - none was 429 and the pace held the run back: faster by GROWTH (gently: after slower windows
 *   the service's allowance has refilled, and it hides the limit for a while); after
 *   PATIENT_WINDOWS such windows in a row twice as much each further window, at most MAX_GROWTH
 *   per second, so that a run paced low while it shared a limit (queue mode) finds the room the
 *   others left;
 * - otherwise: unchanged.
 *
 * The first window after pacing starts is not judged: most of its answers are those of requests
 * sent before it.
 *
 * 429s whose share does not fall when the run sends less are a busy service's noise, not a rate
 * to find: after GIVE_UP_AFTER_FUTILE_CUTS such cuts in a row pacing stops for the rest of the
 * run (its retries handle those 429s; pacing again would only slow the run down step by step).
 */

export const WINDOW_MS = 1000;

/** A window with fewer answers says too little: it is judged together with the next one. */
const MIN_ANSWERS_TO_JUDGE = 10;

/** Trailing answers are counted in buckets of this length over the last window. */
const BUCKET_MS = 100;

const MAX_THROTTLED_SHARE = 0.05;
const CUT_FACTOR = 0.85;
const GROWTH = 0.02;
const PATIENT_WINDOWS = 5;
const MAX_GROWTH = 0.25;

/** A cut is futile when the next window's share of 429s is still this much of the share before it. */
const FUTILE_SHARE_RATIO = 0.75;
const GIVE_UP_AFTER_FUTILE_CUTS = 3;

/** answered: the service handled the request (any status but 429, 503 and 5xx); failed: any other failure. */
export type AnswerKind = 'answered' | 'rate-limited' | 'failed';

export class RatePacer {
	/** Attempts per second while pacing; undefined: not pacing. */
	private pace: number | undefined;

	/** The earliest time the next attempt may leave. */
	private nextSendAt = 0;

	/** Answers per BUCKET_MS over the last window, by bucket number. */
	private readonly answeredBuckets = new Map<number, number>();

	private windowStart = 0;

	private windowAnswers = 0;

	private windowThrottled = 0;

	private windowAnswered = 0;

	/** Attempts that left in this window. */
	private windowSent = 0;

	/** An attempt of this window had to wait for its turn. */
	private windowWaited = false;

	/** The share of 429s of the window that made the last cut, while cuts follow each other. */
	private shareAtLastCut: number | undefined;

	private futileCuts = 0;

	/** The current window is the first since pacing started. */
	private firstWindow = false;

	/** Windows in a row without a 429 in which the pace held the run back. */
	private growthStreak = 0;

	/** Pacing was given up in this run: 429s that do not follow the pace. */
	private givenUp = false;

	/** When an attempt last left or was answered. */
	lastActiveAt: number;

	constructor(private readonly now: () => number = Date.now) {
		this.lastActiveAt = now();
	}

	/** Attempts per second while the run is paced, else undefined. */
	get rate(): number | undefined {
		return this.pace;
	}

	/** How long until the next attempt may leave (0: now, and always when not paced). */
	nextTurnIn(): number {
		if (this.pace === undefined) return 0;
		const now = this.now();
		this.endWindowIfDue(now);
		return Math.max(0, this.nextSendAt - now);
	}

	/** An attempt leaves now; `waited`: it had to wait for its turn. */
	takeTurn(waited: boolean): void {
		const now = this.now();
		this.lastActiveAt = now;
		if (this.pace === undefined) return;
		this.nextSendAt = Math.max(now, this.nextSendAt) + 1000 / this.pace;
		if (waited) this.windowWaited = true;
		this.windowSent++;
	}

	/** How an attempt was answered. */
	onAnswer(kind: AnswerKind): void {
		const now = this.now();
		this.lastActiveAt = now;
		this.endWindowIfDue(now);
		this.windowAnswers++;
		if (kind === 'rate-limited') this.windowThrottled++;
		if (kind === 'answered') {
			this.windowAnswered++;
			this.countAnswered(now);
		}
	}

	/** The service showed a rate limit: from now on the run is paced, at what it answered in the last window. */
	rateLimited(): void {
		if (this.pace !== undefined || this.givenUp) return;
		const now = this.now();
		this.pace = Math.max(1, this.answeredInLastWindow(now));
		this.nextSendAt = now;
		this.beginWindow(now);
		this.firstWindow = true;
	}

	private endWindowIfDue(now: number): void {
		const elapsedMs = now - this.windowStart;
		if (this.pace === undefined || elapsedMs < WINDOW_MS || this.windowAnswers < MIN_ANSWERS_TO_JUDGE) return;
		if (this.firstWindow) {
			this.firstWindow = false;
			return this.beginWindow(now);
		}
		const share = this.windowThrottled / this.windowAnswers;
		// The pace, not something else (few items left, the bound on requests in flight), held the run back.
		const paceBound = this.windowWaited && this.windowSent >= 0.5 * this.pace * (elapsedMs / 1000);
		if (share > MAX_THROTTLED_SHARE) {
			const futile = this.shareAtLastCut !== undefined && share >= this.shareAtLastCut * FUTILE_SHARE_RATIO;
			this.futileCuts = futile ? this.futileCuts + 1 : 0;
			if (this.futileCuts >= GIVE_UP_AFTER_FUTILE_CUTS) return this.stop(now);
			this.shareAtLastCut = share;
			const cut = this.pace * CUT_FACTOR;
			const answeredPerSecond = (this.windowAnswered * 1000) / elapsedMs;
			this.pace = Math.max(1, paceBound ? Math.min(cut, answeredPerSecond) : cut);
			this.growthStreak = 0;
		} else {
			this.shareAtLastCut = undefined;
			this.futileCuts = 0;
			if (share > 0) this.growthStreak = 0;
			else if (paceBound) this.grow(elapsedMs);
		}
		this.beginWindow(now);
	}

	/** Growth per second of the window: a window that needed longer to gather its answers grows as much per second. */
	private grow(elapsedMs: number): void {
		const perSecond = 1 + Math.min(MAX_GROWTH, GROWTH * 2 ** Math.max(0, this.growthStreak++ - PATIENT_WINDOWS));
		this.pace = (this.pace as number) * perSecond ** (elapsedMs / 1000);
	}

	/** The 429s did not follow the pace: they are the service's noise, not a rate to find. */
	private stop(now: number): void {
		this.pace = undefined;
		this.givenUp = true;
		this.beginWindow(now);
	}

	private beginWindow(now: number): void {
		this.windowStart = now;
		this.windowAnswers = 0;
		this.windowThrottled = 0;
		this.windowAnswered = 0;
		this.windowSent = 0;
		this.windowWaited = false;
	}

	private countAnswered(now: number): void {
		const bucket = Math.floor(now / BUCKET_MS);
		this.answeredBuckets.set(bucket, (this.answeredBuckets.get(bucket) ?? 0) + 1);
		const oldest = bucket - WINDOW_MS / BUCKET_MS;
		for (const key of this.answeredBuckets.keys()) if (key <= oldest) this.answeredBuckets.delete(key);
	}

	private answeredInLastWindow(now: number): number {
		const oldest = Math.floor(now / BUCKET_MS) - WINDOW_MS / BUCKET_MS;
		let count = 0;
		for (const [bucket, answered] of this.answeredBuckets) if (bucket > oldest) count += answered;
		return count;
	}
}
