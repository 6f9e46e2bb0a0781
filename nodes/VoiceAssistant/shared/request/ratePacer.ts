// The pacer: an account's rate learned from the service's 429s, below the Rate Limit in force (if
// any), heard from runs whose window is automatic. Pacing starts at what the service handled in
// the last second it was sent to (never at nothing) on evidence of a rate limit: without a Rate
// Limit, THROTTLED_OF_RECENT_TO_PACE of the latest RECENT ends 429, or a window's cut with 2 429s
// since the last; with one, a 429 while it holds requests back once the service handled
// SET_SHARE_TO_PACE of it (another process shares the account: each learns its share). Then a
// 429 of a request started after the last news is news: while a rate holds, the first is another
// process probing (let pass), more cut to what the service handled; a probe goes back (within
// SHORT_PROBE_MS to the held rate, the next hold twice as long up to MAX_HOLD_MS; later to its last
// step's rate, the next hold HOLD_MS). A rate holds HOLD_MS, then grows while it holds requests
// back, by GROWTH of the Rate Limit pacing began under (or the rate it began at, or its own if
// higher) a second for STEADY_SECONDS, then doubling, at most MAX_GROWTH, up to the Rate Limit
// (pacing ends). Cuts of a spell go below GIVE_UP_BELOW of where they began only after its first
// second; if the share of 429s then is not below FUTILE_SHARE_RATIO of that second's, it is a busy
// service's noise: pacing stops for the account. The rules in words: docs/how-it-works.md.
import { clock } from '../clock';
import { SECOND_MS } from './rateTickets';

const BUCKET_MS = 10;
const HOLD_MS = 10_000;
const MAX_HOLD_MS = 20_000;
const SHORT_PROBE_MS = 5_000;
const GROWTH = 0.01;
const STEADY_SECONDS = 3;
const MAX_GROWTH = 0.5;
const FUTILE_SHARE_RATIO = 0.75;
const GIVE_UP_BELOW = 0.25;
const MIN_ENDS_TO_JUDGE = 20;
const RECENT = 20;
const THROTTLED_OF_RECENT_TO_PACE = 16;
const SET_SHARE_TO_PACE = 0.1;

/** How the pacer counts an attempt's end. handled: the service handled it (any status but 429 and 5xx); failed: any other failure. */
export type PacerKind = 'handled' | 'rate-limited' | 'failed';

export class RatePacer {
	/** Attempts a second while pacing (undefined: not pacing). */
	private perSecond: number | undefined;
	/** The rate the last hold held, and the rate of the last second of growth that met no 429. */
	private held = 0;
	private grown = 0;
	/** Handled ends per BUCKET_MS of the unpaused clock, over the last second. */
	private readonly handledBuckets = new Map<number, number>();
	private lastNewsAt = -Infinity;
	private holdMs = HOLD_MS;
	/** When the hold ends, when the next second of growth starts and how many went before it; whether the hold let news pass. */
	private holdUntil = Infinity;
	private nextStepAt = Infinity;
	private steps = 0;
	private letPass = false;
	/** What growth is a share of: the Rate Limit in force when pacing began, or the rate it began at. */
	private reference = 0;
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
	/** Pacing began at the Rate Limit in force: another process likely shares the account. */
	cutAtLimit = false;
	/** The account's Retry-After pauses in all (its admission adds each): the service handles nothing then, as it asked, so what it handled is kept on the clock less them. */
	pausedMs = 0;

	/** The rate learned, grown to now, below `limit` (the Rate Limit in force); undefined: not pacing. */
	rate(limit: number | undefined): number | undefined {
		const now = clock.now();
		while (this.perSecond !== undefined && now >= this.nextStepAt) {
			// The rate held through the hold, or a second of growth, without a 429.
			if (this.steps === 0) this.spell = undefined;
			this.grown = this.perSecond;
			// Only a rate that holds requests back has evidence the service may take more.
			if (now - this.waitedAt > SECOND_MS) [this.nextStepAt, this.steps] = [now + SECOND_MS, 0];
			else {
				const doublings = Math.max(0, this.steps++ + 1 - STEADY_SECONDS);
				this.perSecond +=
					Math.max(this.reference, this.perSecond) * Math.min(MAX_GROWTH, GROWTH * 2 ** doublings);
				this.nextStepAt += SECOND_MS;
			}
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
	 * An attempt that started at `startedAt` ended; `cut`: whether it cut its run's automatic window
	 * (undefined: a fixed one, whose ends only count as handled); `limit`: the Rate Limit in force.
	 */
	onAttemptEnd(end: { kind: PacerKind; startedAt: number; cut?: boolean }, limit?: number): void {
		const { kind, startedAt, cut } = end;
		if (kind === 'handled') {
			const bucket = Math.floor((clock.now() - this.pausedMs) / BUCKET_MS);
			this.handledBuckets.set(bucket, (this.handledBuckets.get(bucket) ?? 0) + 1);
			for (const key of this.handledBuckets.keys())
				if (key <= bucket - SECOND_MS / BUCKET_MS) this.handledBuckets.delete(key);
		}
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
		if (!throttled || startedAt <= this.lastNewsAt || this.givenUp) return;
		if (this.rate(limit) !== undefined) return this.news(limit);
		const handled = this.handledInLastSecond();
		// With a Rate Limit, 429s at the rate it holds the account to: another process shares it.
		const atLimit =
			clock.now() - this.waitedAt <= SECOND_MS && handled >= SET_SHARE_TO_PACE * limit!;
		const evidence =
			limit === undefined
				? this.recentThrottled >= THROTTLED_OF_RECENT_TO_PACE || cutAfterTwo
				: atLimit;
		if (evidence && handled > 0) this.start(Math.min(limit ?? Infinity, handled), limit);
	}

	/** What the service handled in the last second it was sent to. */
	private handledInLastSecond(): number {
		const oldest = Math.floor((clock.now() - this.pausedMs) / BUCKET_MS) - SECOND_MS / BUCKET_MS;
		let handled = 0;
		for (const [bucket, count] of this.handledBuckets) if (bucket > oldest) handled += count;
		return handled;
	}

	/** Pacing starts at `rate`, below `limit` (the Rate Limit in force, if any). */
	private start(rate: number, limit: number | undefined): void {
		this.reference = limit ?? rate;
		this.lastNewsAt = clock.now();
		this.spell = { rate, from: this.lastNewsAt, ends: 0, throttled: 0 };
		this.cutAtLimit = limit !== undefined;
		this.hold(rate);
	}

	/** News of a rate limit (a 429) while pacing: where the rate goes. */
	private news(limit: number | undefined): void {
		const now = clock.now();
		const rate = this.rate(limit) as number;
		this.lastNewsAt = now;
		if (rate > this.held) {
			// A probe met 429s: back to the rate that held.
			const short = now - this.holdUntil < SHORT_PROBE_MS;
			this.holdMs = short ? Math.min(MAX_HOLD_MS, this.holdMs * 2) : HOLD_MS;
			return this.hold(short ? this.held : this.grown);
		}
		if (!this.letPass) return void (this.letPass = true);
		const spell = (this.spell ??= { rate, from: now, ends: 0, throttled: 0 });
		let cut = Math.min(rate, this.handledInLastSecond());
		if (cut < spell.rate * GIVE_UP_BELOW) {
			const { firstShare, ends, throttled } = spell;
			// Until the spell's first second is over there is nothing to judge by.
			if (firstShare === undefined || ends < MIN_ENDS_TO_JUDGE) cut = spell.rate * GIVE_UP_BELOW;
			// The rate fell far and the share of 429s did not: not a rate limit.
			else if (throttled / ends >= firstShare * FUTILE_SHARE_RATIO)
				return void ([this.perSecond, this.givenUp] = [undefined, true]);
		}
		this.hold(Math.max(1, cut));
	}

	/** Holds `rate` from now on, for the hold's time. */
	private hold(rate: number): void {
		[this.perSecond, this.held, this.grown, this.letPass] = [rate, rate, rate, false];
		this.holdUntil = this.nextStepAt = clock.now() + this.holdMs;
		this.steps = 0;
	}
}
