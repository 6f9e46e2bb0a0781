// The cap on request starts the user set (Max Requests per Second): at most that many attempts
// start in any window of CAP_WINDOW_MS, evenly spaced.
import { clock } from '../clock';

/**
 * A second and a half percent: requests started within a second may reach the service a few
 * milliseconds apart from how they left, and the service counts by arrival.
 */
export const CAP_WINDOW_MS = 1005;

/** The starts of the last window, oldest first; the cap's rate is given at each turn (runs of one account may set different ones: the lowest holds). */
export class StartCap {
	private starts: number[] = [];

	/** How long until the next attempt may start at `rate` a second (0: now). */
	nextTurnIn(rate: number | undefined): number {
		if (!rate) return 0;
		const now = clock.now();
		this.forgetBefore(now - CAP_WINDOW_MS);
		const { starts } = this;
		const full = starts.length >= rate ? starts[starts.length - rate] + CAP_WINDOW_MS : 0;
		const spaced = starts.length ? starts[starts.length - 1] + CAP_WINDOW_MS / rate : 0;
		return Math.max(0, Math.ceil(Math.max(full, spaced) - now));
	}

	takeTurn(): void {
		this.starts.push(clock.now());
	}

	private forgetBefore(time: number): void {
		let old = 0;
		while (old < this.starts.length && this.starts[old] <= time) old++;
		if (old > 0) this.starts = this.starts.slice(old);
	}
}
