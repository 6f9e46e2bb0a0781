// A rate's start times: at most that many requests start in any second, evenly spaced. The
// account's rate keeps one, and so does a run's own Max Requests per Second. The next turn is
// computed from the rate in force when a request asks for it, so a changed rate holds at once.
import { clock } from '../clock';

/** The second a service counts requests in (and the least the pacer judges its rate over). */
export const SECOND_MS = 1000;
/** Starts are spaced this much wider than the rate: a request reaches the service a few ms after it leaves. */
export const MARGIN = 1.01;
/** A turn a late timer missed is made up to this much later: the rate is kept, not just approached. */
const CATCH_UP_MS = 25;

/** `rate` a second (0.5: one every 2.02 s): at most `count` starts in any `spanMs`, `spacingMs` apart. */
function spanOf(rate: number) {
	const [spacingMs, count] = [(SECOND_MS * MARGIN) / rate, Math.max(1, Math.floor(rate))];
	return { count, spanMs: count * spacingMs, spacingMs };
}

export class StartTimes {
	/** The starts of the last span at `rate`, oldest first, and when the last one was due. */
	private starts: number[] = [];
	private rate: number | undefined;
	private lastDue = -Infinity;

	/**
	 * How long until a request may start at `rate` a second (0: now, and always without a rate): a
	 * spacing of `rate` after the last start was due; starts at another rate count for nothing.
	 */
	nextTurnIn(rate: number | undefined): number {
		if (rate === undefined) return 0;
		const now = clock.now();
		const { count, spanMs, spacingMs } = spanOf(rate);
		if (rate === this.rate) this.starts = this.starts.filter((start) => start > now - spanMs);
		const starts = rate === this.rate ? this.starts : [];
		const full = starts.length >= count ? starts[starts.length - count] + spanMs : 0;
		return Math.max(0, Math.ceil(Math.max(full, this.lastDue + spacingMs) - now));
	}

	/** A request starts now under `rate`; without one nothing is kept. */
	take(rate: number | undefined): void {
		if (rate === undefined) return;
		const now = clock.now();
		if (rate !== this.rate) [this.starts, this.rate] = [[], rate];
		this.starts.push(now);
		// A turn at most CATCH_UP_MS late keeps the spacing; after an idle spell it starts anew.
		const due = this.lastDue + spanOf(rate).spacingMs;
		this.lastDue = due >= now - CATCH_UP_MS ? due : now;
	}

	/** When the starts kept stop holding a request back: 1.01 s after the last, or when the next is due. */
	get quietAt(): number {
		const next = this.rate === undefined ? -Infinity : this.lastDue + spanOf(this.rate).spacingMs;
		return Math.max(next, (this.starts[this.starts.length - 1] ?? 0) + SECOND_MS * MARGIN);
	}
}
