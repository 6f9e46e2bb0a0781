/**
 * Virtual time for the node's clock (shared/clock.ts): sleeps are timers in a list, and time moves
 * only when the test moves it, to the next timer or by a given amount. Deterministic: what a test
 * asserts about waits holds however busy the machine is.
 */
import { onAbort, type Clock } from '../../nodes/VoiceAssistant/shared/clock';

type Timer = { at: number; seq: number; fire: () => void };

export class VirtualClock implements Clock {
	private time = 1_000_000;
	private timers: Timer[] = [];
	private seq = 0;

	/** `abortListener`: the node's one-listener-per-signal registration (a fresh module's, in the model). */
	constructor(private readonly abortListener: typeof onAbort = onAbort) {}

	now = () => this.time;
	/** The time of day as this clock has it: it moves with virtual time. */
	private readonly epoch = Date.now() - this.time;
	date = () => this.epoch + this.time;

	/** Timers not yet fired. */
	get pending(): number {
		return this.timers.length;
	}

	sleep = async (ms: number, signal?: AbortSignal) =>
		await new Promise<void>((resolve) => {
			if (signal?.aborted) return resolve();
			const timer = { at: this.time + Math.max(0, ms), seq: this.seq++, fire: resolve };
			this.timers.push(timer);
			if (signal)
				this.abortListener(signal, () => {
					this.timers = this.timers.filter((other) => other !== timer);
					resolve();
				});
		});

	/** Fires the earliest timer, if it is due by `until`; whether one fired. */
	private fireNext(until: number): boolean {
		this.timers.sort((a, b) => a.at - b.at || a.seq - b.seq);
		if (this.timers.length === 0 || this.timers[0].at > until) return false;
		const next = this.timers.shift() as Timer;
		this.time = Math.max(this.time, next.at);
		next.fire();
		return true;
	}

	/** Moves time on by `ms`, firing every timer due on the way and letting what it wakes run. */
	async advance(ms: number): Promise<void> {
		const until = this.time + ms;
		do await settle();
		while (this.fireNext(until));
		this.time = until;
		await settle();
	}

	/** Runs until `until` settled and no timer is left (or the virtual deadline passed). */
	async runUntilIdle(until: Promise<unknown>, maxVirtualMs = 3_600_000): Promise<void> {
		let settled = false;
		void until.finally(() => (settled = true));
		const end = this.time + maxVirtualMs;
		while (!settled || this.timers.length > 0) {
			await settle();
			if (this.timers.length === 0) continue;
			if (!this.fireNext(end)) throw new Error('the model ran past its virtual deadline');
		}
	}
}

/** Lets every promise callback and I/O callback that is ready run. */
async function settle(): Promise<void> {
	for (let i = 0; i < 5; i++) await new Promise((resolve) => setImmediate(resolve));
}
