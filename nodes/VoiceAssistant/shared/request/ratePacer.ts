// The pacer: an account's rate learned from the service's 429s, at which the admission spaces the
// account's starts (a limit on requests in flight cannot hold a fast run under a rate limit). It
// starts, heard from runs whose window is automatic, when a window's cut brings the 429s since the
// last cut to MIN_THROTTLED_TO_PACE (a single one its Retry-After answers paces nothing) or
// THROTTLED_OF_RECENT_TO_PACE of the latest RECENT ends were 429, at what the service handled in
// the last second it was sent to (never at nothing). Then each period (SECOND_MS and
// MIN_ENDS_TO_JUDGE attempt ends at least) is judged by its share of 429s. More than
// MAX_THROTTLED_SHARE: down to what the service accepted if the rate held the account back, else
// by CUT_FACTOR (the first period only settles). None while the rate held the account back: up by
// GROWTH a second for PATIENT_SECONDS + 1 such seconds, then doubling each second, at most
// MAX_GROWTH a second. A few: back to the last rate without any (or what was accepted, if lower),
// at most MAX_SETTLES times until a period without any. A share that did not fall as the rate was
// lowered is noise: after GIVE_UP_AFTER_FUTILE_CUTS such periods pacing stops for the account.
import { clock } from '../clock';
import { SECOND_MS } from './startTimes';

const RECENT = 20;
const THROTTLED_OF_RECENT_TO_PACE = 16;
const MIN_THROTTLED_TO_PACE = 2;
const MIN_ENDS_TO_JUDGE = 10;
const BUCKET_MS = 100;
const MAX_THROTTLED_SHARE = 0.05;
const CUT_FACTOR = 0.85;
const GROWTH = 0.02;
const PATIENT_SECONDS = 5;
const MAX_GROWTH = 0.5;
const FUTILE_SHARE_RATIO = 0.75;
const GIVE_UP_AFTER_FUTILE_CUTS = 3;
const MAX_SETTLES = 2;

/** How the pacer counts an attempt's end. handled: the service handled it (any status but 429 and 5xx); failed: any other failure. */
export type PacerKind = 'handled' | 'rate-limited' | 'failed';

export class RatePacer {
	/** Attempts a second while pacing (undefined: not pacing); handled per BUCKET_MS of the last second. */
	private perSecond: number | undefined;
	private readonly handledBuckets = new Map<number, number>();
	private period = { start: 0, ends: 0, throttled: 0, handled: 0, sent: 0, waited: false };
	/** The share of 429s of the last period if it lowered the rate; the last rate without any; how often a few lowered it since. */
	private loweredAt: number | undefined;
	private clearRate: number | undefined;
	private settles = 0;
	private futileCuts = 0;
	private growthSeconds = 0;
	/** Whether each of the latest RECENT ends heard from automatic windows was a 429, how many were; 429s since a window's last cut. */
	private readonly recent: boolean[] = [];
	private recentThrottled = 0;
	private throttledSinceCut = 0;
	private firstPeriod = false;
	private givenUp = false;
	/** The account's Retry-After pauses in all (its admission adds each): the service handles nothing then, as it asked, so what it handled is kept on the clock less them. */
	pausedMs = 0;

	/** The rate learned, once the period that ended is judged; undefined: not pacing. */
	get rate(): number | undefined {
		this.endPeriodIfDue(clock.now());
		return this.perSecond;
	}

	/** An attempt of the account starts; `waited`: the rate held it back. */
	started(waited: boolean): void {
		if (waited) this.period.waited = true;
		this.period.sent++;
	}

	/** An attempt ended; `cut`: whether it cut its run's automatic window (undefined: a fixed one, never pacing). */
	onAttemptEnd(kind: PacerKind, cut?: boolean): void {
		const now = clock.now();
		this.endPeriodIfDue(now);
		this.period.ends++;
		if (kind === 'rate-limited') this.period.throttled++;
		if (kind === 'handled') {
			this.period.handled++;
			const bucket = Math.floor((now - this.pausedMs) / BUCKET_MS);
			this.handledBuckets.set(bucket, (this.handledBuckets.get(bucket) ?? 0) + 1);
			for (const key of this.handledBuckets.keys())
				if (key <= bucket - SECOND_MS / BUCKET_MS) this.handledBuckets.delete(key);
		}
		if (cut === undefined) return;
		const throttled = kind === 'rate-limited';
		if (this.recent.push(throttled) > RECENT && this.recent.shift()) this.recentThrottled--;
		this.recentThrottled += Number(throttled);
		this.throttledSinceCut += Number(throttled);
		const mostly = this.recentThrottled >= THROTTLED_OF_RECENT_TO_PACE;
		if (mostly || (cut && this.throttledSinceCut >= MIN_THROTTLED_TO_PACE)) this.rateLimited(now);
		if (cut) this.throttledSinceCut = 0;
	}

	/** The service showed a rate limit: pacing from now on, at what it handled in the last second it was sent to, if anything. */
	private rateLimited(now: number): void {
		if (this.perSecond !== undefined || this.givenUp) return;
		const oldest = Math.floor((now - this.pausedMs) / BUCKET_MS) - SECOND_MS / BUCKET_MS;
		let handled = 0;
		for (const [bucket, count] of this.handledBuckets) if (bucket > oldest) handled += count;
		if (handled === 0) return;
		this.perSecond = handled;
		this.beginPeriod(now);
		this.firstPeriod = true;
	}

	private endPeriodIfDue(now: number): void {
		const { start, ends, throttled, handled, sent, waited } = this.period;
		const elapsedMs = now - start;
		const rate = this.perSecond;
		if (rate === undefined || elapsedMs < SECOND_MS || ends < MIN_ENDS_TO_JUDGE) return;
		this.beginPeriod(now);
		const share = throttled / ends;
		// The rate, not something else (few items left, the limit on requests in flight), held the account back.
		const rateBound = waited && sent >= 0.5 * rate * (elapsedMs / 1000);
		const accepted = (handled * 1000) / elapsedMs;
		const [first, loweredAt] = [this.firstPeriod, this.loweredAt];
		[this.firstPeriod, this.loweredAt] = [false, undefined];
		if (share === 0) {
			[this.futileCuts, this.settles, this.clearRate] = [0, 0, rate];
			if (!rateBound || first) return;
			// Per second of the period: one that gathered its ends slowly grows, and doubles, as much.
			let grown = rate;
			for (let left = elapsedMs / 1000; left > 0; left--) {
				const growth = GROWTH * 2 ** Math.max(0, this.growthSeconds - PATIENT_SECONDS);
				grown *= (1 + Math.min(MAX_GROWTH, growth)) ** Math.min(1, left);
				this.growthSeconds += Math.min(1, left);
			}
			this.perSecond = grown;
			return;
		}
		this.growthSeconds = 0;
		// The share did not fall when the rate was lowered: random 429s, not a rate limit.
		if (loweredAt !== undefined)
			this.futileCuts = share >= loweredAt * FUTILE_SHARE_RATIO ? this.futileCuts + 1 : 0;
		if (share <= MAX_THROTTLED_SHARE || first) {
			if (rateBound && (first || this.settles < MAX_SETTLES)) {
				const lowered = this.lower(Math.min(accepted, this.clearRate ?? accepted), share);
				if (lowered && !first) this.settles++;
			}
			return;
		}
		this.settles = 0;
		if (this.futileCuts < GIVE_UP_AFTER_FUTILE_CUTS)
			this.lower(rateBound ? accepted : rate * CUT_FACTOR, share);
		else [this.perSecond, this.givenUp] = [undefined, true];
	}

	/** Down to `rate`, if lower; whether it was. */
	private lower(rate: number, share: number): boolean {
		if (rate >= (this.perSecond as number)) return false;
		[this.perSecond, this.loweredAt] = [Math.max(1, rate), share];
		return true;
	}

	private beginPeriod(now: number): void {
		this.period = { start: now, ends: 0, throttled: 0, handled: 0, sent: 0, waited: false };
	}
}
