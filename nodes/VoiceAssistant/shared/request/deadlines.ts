// The deadlines of a run's attempts in flight, on one timer that is armed only while an attempt is.
import { clock, onAbort } from '../clock';

/**
 * n8n gives every item of a run item 0's Timeout, and the caller's deadline is the run's, so
 * deadlines come in the order attempts start, and the timer waits for the earliest one still in
 * flight. A timer per attempt would be armed and cleared thousands of times. The timer is cleared
 * once no attempt is in flight, and when the run ends (`over`).
 */
export class Deadlines {
	private pending: Array<{ at: number; expire: (() => void) | undefined }> = [];

	private head = 0;

	/** Attempts in flight: started, neither settled nor expired. */
	private live = 0;
	private watching = false;

	/** Ends the timer's wait early: nothing is in flight any more, or the run is over. */
	private pause: AbortController | undefined;

	constructor(private readonly over: AbortSignal) {
		onAbort(over, () => this.pause?.abort());
	}

	/** Calls `expire` once `ms` passed, unless the function it returns was called first. */
	start(ms: number, expire: () => void): () => void {
		const entry = { at: clock.now() + ms, expire: expire as (() => void) | undefined };
		this.pending.push(entry);
		this.live++;
		if (!this.watching) void this.watch();
		return () => {
			if (!entry.expire) return;
			entry.expire = undefined;
			if (--this.live === 0) this.pause?.abort();
		};
	}

	private async watch(): Promise<void> {
		this.watching = true;
		while (!this.over.aborted && this.live > 0) {
			while (!this.pending[this.head].expire) this.head++;
			const next = this.pending[this.head];
			if (next.at > clock.now()) {
				this.pause = new AbortController();
				await clock.sleep(next.at - clock.now(), this.pause.signal);
				continue;
			}
			const expire = next.expire as () => void;
			next.expire = undefined;
			this.head++;
			this.live--;
			expire();
		}
		[this.pending, this.head, this.watching, this.pause] = [
			this.pending.slice(this.head),
			0,
			false,
			undefined,
		];
	}
}
