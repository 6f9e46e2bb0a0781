// This process's share of the count a service states (serviceCount.ts): the window's quota less
// what others used of it. The count used is the account's, across every process and key; less this
// process's own requests that started in the window before the answered one (those answered 429
// left out: the service counts only what it took), it is what others used. Once others use it, a
// RESERVE is kept for what they sent since; at least one request a window, so a count is heard
// again. A count not heard again for two windows (at least STALE_MS) is forgotten: the service
// stopped stating it. The account's pacer (request/ratePacer.ts) paces at the share.
import { clock, SECOND_MS } from './clock';
import type { StatedCount } from './serviceCount';

/** Of the quota, what is kept once others use the account (below it, others' use is the count's noise). */
const RESERVE = 0.02;
/** Own starts are counted in this many parts of the window. */
const PARTS = 100;
const STALE_MS = 5000;

/** What the count says, a second: the service's stated limit and this process's share of it; its quota and window. */
export interface Stated {
	perSecond: number;
	share: number;
	quota: number;
	windowMs: number;
}

export class CountShare {
	/** The count as last stated, and when (undefined: none, or none for two windows). */
	private last: { stated: Stated; at: number } | undefined;
	/** Own starts in parts of the window (a second's until one is stated). */
	private readonly starts = new Map<number, number>();
	private windowMs = SECOND_MS;

	get stated(): Stated | undefined {
		if (this.last && clock.now() - this.last.at > Math.max(STALE_MS, 2 * this.windowMs))
			this.last = undefined;
		return this.last?.stated;
	}

	/** A request of this process started at `at` (`by` -1: one the service refused). */
	started(at: number, by = 1): void {
		const part = Math.floor((at * PARTS) / this.windowMs);
		this.starts.set(part, (this.starts.get(part) ?? 0) + by);
		for (const key of this.starts.keys()) if (key <= part - 2 * PARTS) this.starts.delete(key);
	}

	/** The answer to a request started at `startedAt` stated `count` (`throttled`: a 429). */
	heard(count: StatedCount, startedAt: number, throttled: boolean): void {
		const { quota } = count;
		// A window the fields do not state is as long as the longest reset heard for this quota.
		const windowMs = Math.max(
			count.windowMs,
			quota === this.last?.stated.quota ? this.last.stated.windowMs : 0,
		);
		if (windowMs !== this.windowMs) {
			this.windowMs = windowMs;
			this.starts.clear();
		}
		if (throttled) this.started(startedAt, -1);
		const perSecond = (quota * SECOND_MS) / windowMs;
		let share = perSecond;
		if (count.remaining !== undefined) {
			const own = this.startsBetween(startedAt - windowMs, startedAt);
			const others = Math.max(0, quota - count.remaining - own);
			const kept = others > quota * RESERVE ? Math.ceil(quota * RESERVE) : 0;
			share = (Math.max(1, quota - kept - others) * SECOND_MS) / windowMs;
		}
		this.last = { stated: { perSecond, share, quota, windowMs }, at: clock.now() };
	}

	/** Own starts after `from` up to `to`, in whole parts of the window. */
	private startsBetween(from: number, to: number): number {
		const [first, last] = [from, to].map((at) => Math.floor((at * PARTS) / this.windowMs));
		let own = 0;
		for (const [part, count] of this.starts) if (part >= first && part <= last) own += count;
		return own;
	}
}
