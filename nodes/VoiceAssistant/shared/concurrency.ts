/** A FIFO counting semaphore: at most `limit` holders at once, waiters served in arrival order. */
export class ConcurrencyLimiter {
	private active = 0;

	private readonly waiting: Array<() => void> = [];

	constructor(private readonly limit: number) {}

	async acquire(): Promise<void> {
		if (this.active < this.limit) {
			this.active++;
			return;
		}
		await new Promise<void>((resolve) => this.waiting.push(resolve));
	}

	/** Hands the slot straight to the next waiter, so a late arrival cannot jump the queue. */
	release(): void {
		const next = this.waiting.shift();
		if (next) next();
		else this.active--;
	}

	get inUse(): number {
		return this.active;
	}
}
