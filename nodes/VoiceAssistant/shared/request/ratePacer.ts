// The pacer: the account's rate as the service shows it, below the Rate Limit in force (if any):
// where the service states its count, this process's share of it (countShare.ts); from the 429s
// of automatic windows, a learned rate (the lower of the two holds). Pacing
// starts at what the service handled in the last second it was sent to (never at nothing) on
// evidence of a rate limit: without a Rate Limit, THROTTLED_OF_RECENT_TO_PACE of the latest RECENT
// ends 429, or a window's cut with 2 429s since the last; with one, a 429 while it holds requests
// back once the service handled SET_SHARE_TO_PACE of it (another process shares the account).
// Each news (a 429 of a request started after the last news) cuts the rate to BACK_OFF of what
// the service took (what it handled in the last second, or the rate below MIN_TO_JUDGE):
// processes sharing an account cut by the same share. While it holds requests back the rate grows
// back to what the service took, by RETURN a second; holds there PLATEAU seconds; then grows by
// GROWTH of itself a second, twice as much each second after, at most MAX_GROWTH, up to the Rate
// Limit (pacing ends): a process left alone is back at the limit within seconds. Cuts of a spell
// (since a rate last held a second) go below GIVE_UP_BELOW of where they began only after its
// first second; if the share of 429s then is not below FUTILE_SHARE_RATIO of that second's, it is a
// busy service's noise: pacing stops for the account. The rules in words: docs/how-it-works.md.
import { clock, SECOND_MS } from '../clock';
import { CountShare } from '../countShare';
import type { StatedCount } from '../serviceCount';

const BUCKET_MS = 10;
const BACK_OFF = 0.9;
const MIN_TO_JUDGE = 10;
const GROWTH = 0.05;
const RETURN = 0.1;
const PLATEAU = 2;
const MAX_GROWTH = 1;
const FUTILE_SHARE_RATIO = 0.75;
const GIVE_UP_BELOW = 0.25;
const MIN_ENDS_TO_JUDGE = 20;
const RECENT = 20;
const THROTTLED_OF_RECENT_TO_PACE = 16;
const SET_SHARE_TO_PACE = 0.1;
/** How the pacer counts an attempt's end. handled: the service handled it (any status but 429 and 5xx); failed: any other failure. */
export type PacerKind = 'handled' | 'rate-limited' | 'failed';

export class RatePacer {
	/** Attempts a second learned from 429s (undefined: not pacing). */
	private perSecond: number | undefined;
	/** Handled ends per BUCKET_MS of the unpaused clock, over the last second. */
	private readonly handledBuckets = new Map<number, number>();
	private lastNewsAt = -Infinity;
	/** When the next second of growth starts, seconds at or above what the service took before the news, and that rate. */
	private nextStepAt = Infinity;
	private steps = 0;
	private took = 0;
	/** The cuts since a rate last held: the rate they began at, when; its first second's share of 429s, the ends and 429s since. */
	private spell:
		| { rate: number; from: number; firstShare?: number; ends: number; throttled: number }
		| undefined;
	private givenUp = false;
	/** Whether each of the latest RECENT ends was a 429, and how many were. */
	private readonly recent: boolean[] = [];
	private recentThrottled = 0;
	/** 429s since a window's last cut. */
	private throttledSinceCut = 0;
	/** When a start last waited for the rate. */
	private waitedAt = -Infinity;
	/** This process's share of the service's stated count. */
	readonly count = new CountShare();
	/** Pacing began at the Rate Limit in force: another process likely shares the account. */
	cutAtLimit = false;
	/** The account's Retry-After pauses in all (its admission adds each): the service handles nothing then, as it asked, so what it handled is kept on the clock less them. */
	pausedMs = 0;

	/** The rate, grown to now: the learned one, or this process's share of a stated limit; undefined: neither. */
	rate(limit: number | undefined): number | undefined {
		const now = clock.now();
		while (this.perSecond !== undefined && now >= this.nextStepAt) {
			// A second of growth without a 429: the spell of cuts is over.
			this.spell = undefined;
			// Only a rate that holds requests back (a start waited within its spacing) has evidence the service may take more.
			if (now - this.waitedAt > SECOND_MS * Math.max(1, 2 / this.perSecond))
				this.nextStepAt = now + SECOND_MS;
			else {
				// Back to what the service took, RETURN a second; held there PLATEAU seconds; then faster and faster.
				if (this.perSecond < this.took)
					this.perSecond = Math.min(this.took, this.perSecond * (1 + RETURN));
				else if (this.steps++ >= PLATEAU)
					this.perSecond *= 1 + Math.min(MAX_GROWTH, GROWTH * 2 ** (this.steps - 1 - PLATEAU));
				this.nextStepAt += SECOND_MS;
			}
		}
		if (this.perSecond !== undefined && this.perSecond >= (limit ?? Infinity))
			[this.perSecond, this.cutAtLimit] = [undefined, false];
		const share = this.count.stated?.share ?? Infinity;
		return share < (this.perSecond ?? Infinity) ? share : this.perSecond;
	}

	/** An attempt of the account starts; `waited`: the rate held it back. */
	started(waited: boolean): void {
		if (waited) this.waitedAt = clock.now();
		this.count.started(clock.now());
	}

	/**
	 * An attempt that started at `startedAt` ended; `cut`: whether it cut its run's automatic window
	 * (undefined: a fixed one, whose ends only count as handled); `count`: the service's count, if
	 * its answer stated one; `limit`: the Rate Limit in force.
	 */
	onAttemptEnd(
		end: { kind: PacerKind; startedAt: number; cut?: boolean; count?: StatedCount },
		limit?: number,
	): void {
		const { kind, startedAt, cut, count } = end;
		if (kind === 'handled') {
			const bucket = Math.floor((clock.now() - this.pausedMs) / BUCKET_MS);
			this.handledBuckets.set(bucket, (this.handledBuckets.get(bucket) ?? 0) + 1);
			for (const key of this.handledBuckets.keys())
				if (key <= bucket - SECOND_MS / BUCKET_MS) this.handledBuckets.delete(key);
		}
		if (count) this.count.heard(count, startedAt, kind === 'rate-limited');
		if (cut === undefined) return;
		const { spell } = this;
		if (spell) {
			spell.ends++;
			if (kind === 'rate-limited') spell.throttled++;
			if (spell.firstShare === undefined && clock.now() - spell.from >= SECOND_MS)
				[spell.firstShare, spell.ends, spell.throttled] = [spell.throttled / spell.ends, 0, 0];
		}
		const throttled = kind === 'rate-limited';
		if (this.recent.push(throttled) > RECENT && this.recent.shift()) this.recentThrottled--;
		this.recentThrottled += Number(throttled);
		this.throttledSinceCut += Number(throttled);
		const cutAfterTwo = cut && this.throttledSinceCut >= 2;
		if (cut) this.throttledSinceCut = 0;
		// A 429 whose count says nothing remained is the count's to answer (its share), not news.
		if (!throttled || startedAt <= this.lastNewsAt || this.givenUp || count?.remaining === 0)
			return;
		this.rate(limit);
		if (this.perSecond !== undefined) return this.news();
		const handled = this.handledInLastSecond();
		// With a Rate Limit, 429s at the rate it holds the account to: another process shares it.
		const atLimit =
			clock.now() - this.waitedAt <= SECOND_MS && handled >= SET_SHARE_TO_PACE * limit!;
		const evidence =
			limit === undefined
				? this.recentThrottled >= THROTTLED_OF_RECENT_TO_PACE || cutAfterTwo
				: atLimit;
		if (!evidence || handled === 0) return;
		const rate = Math.min(limit ?? Infinity, handled);
		this.cutAtLimit = limit !== undefined;
		this.spell = { rate, from: clock.now(), ends: 0, throttled: 0 };
		this.hold(rate);
	}

	/** What the service handled in the last second it was sent to. */
	private handledInLastSecond(): number {
		const oldest = Math.floor((clock.now() - this.pausedMs) / BUCKET_MS) - SECOND_MS / BUCKET_MS;
		let handled = 0;
		for (const [bucket, count] of this.handledBuckets) if (bucket > oldest) handled += count;
		return handled;
	}

	/** News of a rate limit (a 429) while pacing: the rate goes to BACK_OFF of what the service handled. */
	private news(): void {
		const rate = this.perSecond as number;
		const handled = this.handledInLastSecond();
		const spell = (this.spell ??= { rate, from: clock.now(), ends: 0, throttled: 0 });
		const took = handled >= MIN_TO_JUDGE ? Math.min(rate, handled) : rate;
		let cut = BACK_OFF * took;
		if (cut < spell.rate * GIVE_UP_BELOW) {
			const { firstShare, ends, throttled } = spell;
			// Until the spell's first second is over there is nothing to judge by.
			if (firstShare === undefined || ends < MIN_ENDS_TO_JUDGE) cut = spell.rate * GIVE_UP_BELOW;
			// The rate fell far and the share of 429s did not: not a rate limit.
			else if (throttled / ends >= firstShare * FUTILE_SHARE_RATIO)
				return void ([this.perSecond, this.givenUp] = [undefined, true]);
		}
		this.hold(cut, took);
	}

	/** Paces at `rate` from now on, what the service `took` before; growth starts a second later. */
	private hold(rate: number, took = rate): void {
		[this.perSecond, this.took, this.lastNewsAt, this.steps] = [rate, took, clock.now(), 0];
		this.nextStepAt = clock.now() + SECOND_MS;
	}
}
