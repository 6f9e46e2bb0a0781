// The cap on request starts the user set (Max Requests per Second): at most that many attempts
// start in any window of CAP_WINDOW_MS, evenly spaced.
import { clock } from '../clock';

/** A percent over a second: requests reach the service a few ms apart from how they left. */
export const CAP_WINDOW_MS = 1010;
/** Turns a late timer missed are made up to this much (the window still holds). */
export const CATCH_UP_MS = 10;

/** The starts of the last window, oldest first, and when the next one is due. */
export class StartCap {
	private starts: number[] = [];
	private nextAt = 0;

	/** How long until the next attempt may start at `rate` a second (0: now; Infinity: no cap). */
	nextTurnIn(rate: number): number {
		if (rate === Infinity) return 0;
		const now = clock.now();
		let old = 0;
		while (old < this.starts.length && this.starts[old] <= now - CAP_WINDOW_MS) old++;
		if (old > 0) this.starts = this.starts.slice(old);
		const { starts } = this;
		const full = starts.length >= rate ? starts[starts.length - rate] + CAP_WINDOW_MS : 0;
		return Math.max(0, Math.ceil(Math.max(full, this.nextAt) - now));
	}

	/** An attempt starts now; `rate`: the cap it started under. */
	takeTurn(rate: number): void {
		if (rate === Infinity) return;
		const now = clock.now();
		this.starts.push(now);
		// A turn at most CATCH_UP_MS late keeps the schedule; after an idle spell it starts anew.
		const due = this.nextAt >= now - CATCH_UP_MS ? this.nextAt : now;
		this.nextAt = due + CAP_WINDOW_MS / rate;
	}
}
