// The pacer: an account's rate learned from the service's 429s, below the Rate Limit in force (if
// any), at which the admission holds the account's starts. Heard from runs whose window is
// automatic. A 429 of a request started after the last one's news is news (the others are the same
// news), and what it moves depends on where the rate is:
// - not pacing: the rate starts at what the service handled in the last second it was sent to
//   (never at nothing, never above the Rate Limit in force): several processes sharing an account
//   each learn their share;
// - holding a rate: the first news is another process probing, and is let pass; more news means
//   the limit moved: down to what the service handled;
// - probing above a rate that held: back to that rate, and the next hold is twice as long if the
//   probe met 429s within SHORT_PROBE_MS (the limit did not move), HOLD_MS if later.
// A rate holds HOLD_MS, then grows while it holds requests back: GROWTH in the first second,
// doubling each second, at most MAX_GROWTH a second, until it reaches the Rate Limit in force
// (pacing ends) or meets 429s. Cuts that took the rate below GIVE_UP_BELOW of where they began
// without lowering the share of 429s are noise (a busy service's random 429s): pacing stops for
// the account.
import { clock } from '../clock';
import { SECOND_MS } from './rateTickets';

const BUCKET_MS = 100;
const HOLD_MS = 10_000;
const MAX_HOLD_MS = 40_000;
const SHORT_PROBE_MS = 5_000;
const GROWTH = 0.01;
const STEADY_SECONDS = 3;
const MAX_GROWTH = 0.5;
const FUTILE_SHARE_RATIO = 0.75;
const GIVE_UP_BELOW = 0.25;

/** How the pacer counts an attempt's end. handled: the service handled it (any status but 429 and 5xx); failed: any other failure. */
export type PacerKind = 'handled' | 'rate-limited' | 'failed';

export class RatePacer {
	/** Attempts a second while pacing (undefined: not pacing), and the last rate that held without 429s. */
	private perSecond: number | undefined;
	private held = 0;
	/** Handled ends per BUCKET_MS of the unpaused clock, over the last second. */
	private readonly handledBuckets = new Map<number, number>();
	private lastNewsAt = -Infinity;
	private holdMs = HOLD_MS;
	/** When growth starts (the hold's end), the seconds grown since, and whether the hold let news pass. */
	private growFrom = Infinity;
	private grownSeconds = 0;
	private letPass = false;
	/** Ends and 429s since the last news; the cuts since a rate last held: the rate and share of 429s they began at. */
	private since = { ends: 0, throttled: 0 };
	private spell: { rate: number; share: number } | undefined;
	private givenUp = false;
	/** When a start last waited for the rate. */
	private waitedAt = -Infinity;
	/** Pacing began at the Rate Limit in force: another process likely shares the account. */
	cutAtLimit = false;
	/** The account's Retry-After pauses in all (its admission adds each): the service handles nothing then, as it asked, so what it handled is kept on the clock less them. */
	pausedMs = 0;

	/** The rate learned, grown to now, below `limit` (the Rate Limit in force); undefined: not pacing. */
	rate(limit: number | undefined): number | undefined {
		const now = clock.now();
		while (this.perSecond !== undefined && now >= this.growFrom + SECOND_MS) {
			if (this.grownSeconds === 0) [this.held, this.spell] = [this.perSecond, undefined];
			this.growFrom += SECOND_MS;
			// Only a rate that holds requests back has evidence the service may take more.
			if (now - this.waitedAt > SECOND_MS) [this.growFrom, this.grownSeconds] = [now, 0];
			else
				this.perSecond *=
					1 + Math.min(MAX_GROWTH, GROWTH * 2 ** Math.max(0, this.grownSeconds++ - STEADY_SECONDS));
		}
		if (this.perSecond !== undefined && this.perSecond >= (limit ?? Infinity))
			[this.perSecond, this.cutAtLimit] = [undefined, false];
		return this.perSecond;
	}

	/** An attempt of the account starts; `waited`: the rate held it back. */
	started(waited: boolean): void {
		if (waited) this.waitedAt = clock.now();
	}

	/**
	 * An attempt that started at `startedAt` ended; `automatic`: its run's window is automatic (a
	 * fixed one's ends only count as handled); `limit`: the Rate Limit in force.
	 */
	onAttemptEnd(kind: PacerKind, startedAt: number, automatic: boolean, limit?: number): void {
		if (kind === 'handled') {
			const bucket = Math.floor((clock.now() - this.pausedMs) / BUCKET_MS);
			this.handledBuckets.set(bucket, (this.handledBuckets.get(bucket) ?? 0) + 1);
			for (const key of this.handledBuckets.keys())
				if (key <= bucket - SECOND_MS / BUCKET_MS) this.handledBuckets.delete(key);
		}
		if (!automatic) return;
		this.since.ends++;
		if (kind !== 'rate-limited') return;
		this.since.throttled++;
		if (startedAt > this.lastNewsAt && !this.givenUp) this.news(limit);
	}

	/** What the service handled in the last second it was sent to. */
	private handledInLastSecond(): number {
		const oldest = Math.floor((clock.now() - this.pausedMs) / BUCKET_MS) - SECOND_MS / BUCKET_MS;
		let handled = 0;
		for (const [bucket, count] of this.handledBuckets) if (bucket > oldest) handled += count;
		return handled;
	}

	/** News of a rate limit (a 429): where the rate goes. */
	private news(limit: number | undefined): void {
		const now = clock.now();
		const rate = this.rate(limit);
		const share = this.since.throttled / this.since.ends;
		[this.lastNewsAt, this.since] = [now, { ends: 0, throttled: 0 }];
		if (rate !== undefined && rate > this.held) {
			// A probe met 429s: back to the rate that held.
			const short = now - this.growFrom < SHORT_PROBE_MS;
			this.holdMs = short ? Math.min(MAX_HOLD_MS, this.holdMs * 2) : HOLD_MS;
			return this.hold(this.held);
		}
		if (rate !== undefined && !this.letPass) return void (this.letPass = true);
		const handled = this.handledInLastSecond();
		this.spell ??= { rate: rate ?? limit ?? handled, share };
		// The rate fell far and the share of 429s did not: not a rate limit.
		if (rate !== undefined && rate < this.spell.rate * GIVE_UP_BELOW)
			if (share >= this.spell.share * FUTILE_SHARE_RATIO)
				return void ([this.perSecond, this.givenUp] = [undefined, true]);
		if (handled === 0) return;
		this.cutAtLimit ||= rate === undefined && limit !== undefined;
		this.hold(Math.max(1, Math.min(rate ?? limit ?? Infinity, handled)));
	}

	/** Holds `rate` from now on, for the hold's time. */
	private hold(rate: number): void {
		[this.perSecond, this.held, this.letPass] = [rate, rate, false];
		[this.growFrom, this.grownSeconds] = [clock.now() + this.holdMs, 0];
	}
}
