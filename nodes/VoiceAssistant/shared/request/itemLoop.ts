// n8n's item loop of one node run as the node watches it through each item's preSend, and
// Batching's pauses in it: when the loop is over, what it prepared, when each batch is due.
import { clock, onAbort } from '../clock';
import type { Batching } from './n8nAdapter';

/**
 * n8n's loop over one node run's items, as the node sees it through each item's preSend. runNode
 * calls every item's preSend synchronously inside the loop (makeRequest runs up to its first
 * await), and the loop awaits nothing but Batching's pauses: so a microtask queued while item 0
 * is prepared runs once the loop has ended (or paused). Ended with items missing, it either
 * skipped them (2.39.4+ under On Error: Continue: the others are sent) or threw (nothing is sent:
 * n8n reports its own error). With Batching, a pause longer than the batch interval without a new
 * item means the loop is over.
 */
export class ItemLoop {
	private prepared = 0;
	private reachedEnd = false;
	private over = false;

	/** The run ended: the watch ends at once (its timer cleared). */
	private stopped = false;
	private wake: (() => void) | undefined;

	/** The number of items the run sends once the loop is over, or undefined when it threw. */
	readonly outcome: Promise<number | undefined>;

	constructor(
		readonly total: number,
		readonly batching: Batching | undefined,
		private readonly skipsFailedItems: boolean,
		cancelSignal: AbortSignal | undefined,
	) {
		this.outcome = this.watch(cancelSignal ?? new AbortController().signal);
	}

	/** The loop may still prepare an item of this run. */
	get preparing(): boolean {
		return !this.over;
	}

	get preparedCount(): number {
		return this.prepared;
	}

	stopWatching(): void {
		this.stopped = true;
		this.wake?.();
	}

	/**
	 * Batching's due time for the `turn`-th attempt of a run whose loop was over at `readyAt`: a
	 * batch of `size` per interval. Undefined without Batching.
	 */
	batchDue(turn: number, readyAt: number): number | undefined {
		const { batching } = this;
		if (!batching) return undefined;
		return readyAt + Math.floor(turn / batching.size) * batching.intervalMs;
	}

	itemPrepared(itemIndex: number): void {
		this.prepared++;
		if (itemIndex >= this.total - 1) this.reachedEnd = true;
		this.wake?.();
	}

	private async watch(cancelSignal: AbortSignal): Promise<number | undefined> {
		await Promise.resolve();
		while (this.batching && !this.reachedEnd && !cancelSignal.aborted && !this.stopped) {
			const before = this.prepared;
			// A new item ends the pause early (and clears its timer).
			const pause = new AbortController();
			this.wake = () => pause.abort();
			const forget = onAbort(cancelSignal, this.wake);
			await clock.sleep(this.batching.intervalMs + 1000, pause.signal);
			forget();
			if (this.prepared === before) break;
		}
		this.wake = undefined;
		this.over = true;
		return this.reachedEnd || this.skipsFailedItems ? this.prepared : undefined;
	}
}
