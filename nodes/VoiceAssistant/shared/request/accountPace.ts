import { createHash } from 'crypto';
import { clock, onAbort } from '../clock';
import { parseUrl } from '../url';
import { WaiterQueue } from './limiter';
import { RatePacer } from './ratePacer';

/** What the gate needs of a pacer. */
export type Turns = Pick<RatePacer, 'nextTurnIn' | 'takeTurn'>;

/**
 * Hands out the pacer's turns one by one when they come (not booked ahead: a cut slows the very
 * next attempt), fairly between the runs that share it: round robin over the runs with waiters,
 * first come first served within a run. An agent's single tool call does not wait behind a bulk
 * run's queue.
 */
export class PaceGate {
	private readonly queues = new Map<object, WaiterQueue<void>>();

	private rotation: object[] = [];

	private next = 0;

	private pumping = false;

	/** Ends the pump's wait for the next turn once nobody waits for it (its timer cleared). */
	private pause: AbortController | undefined;

	private readonly watched = new WeakSet<AbortSignal>();

	constructor(private readonly pacer: Turns) {}

	get waiting(): number {
		let count = 0;
		for (const queue of this.queues.values()) count += queue.length;
		return count;
	}

	/** Resolves when the attempt may leave, or when `signal` aborts first. */
	async turn(run: object, signal: AbortSignal): Promise<void> {
		if (signal.aborted) return;
		if (this.waiting === 0 && this.pacer.nextTurnIn() === 0) return this.pacer.takeTurn(false);
		let queue = this.queues.get(run);
		if (!queue) {
			queue = new WaiterQueue<void>(undefined);
			this.queues.set(run, queue);
			this.rotation.push(run);
		}
		const turn = queue.wait(signal);
		// Registered after the queue's own: when the signal aborts, its waiters have left first.
		if (!this.watched.has(signal)) {
			this.watched.add(signal);
			onAbort(signal, () => this.pauseIfIdle());
		}
		if (!this.pumping) void this.pump();
		await turn;
	}

	/** A run that left the pace no longer takes part in the rotation. */
	forget(run: object): void {
		this.queues.delete(run);
		this.rotation = this.rotation.filter((member) => member !== run);
		this.pauseIfIdle();
	}

	private pauseIfIdle(): void {
		if (this.waiting === 0) this.pause?.abort();
	}

	private async pump(): Promise<void> {
		this.pumping = true;
		while (this.waiting > 0) {
			const wait = this.pacer.nextTurnIn();
			if (wait > 0) {
				this.pause = new AbortController();
				await clock.sleep(wait, this.pause.signal);
			} else if (this.serveNextRun()) this.pacer.takeTurn(true);
		}
		this.pumping = false;
	}

	private serveNextRun(): boolean {
		for (let step = 0; step < this.rotation.length; step++) {
			const index = (this.next + step) % this.rotation.length;
			if (this.queues.get(this.rotation[index])?.serveNext(undefined)) {
				this.next = index + 1;
				return true;
			}
		}
		return false;
	}
}

/**
 * The pace of one service account and the runs of this process sending to it. A rate limit
 * belongs to the account, not to a run: runs that overlap (two executions, an agent's tool calls
 * during a bulk run, a worker's executions) take turns at one pace. Runs that do not overlap share
 * nothing: the last run to leave ends the pace.
 */
export class AccountPace {
	readonly pacer = new RatePacer();

	readonly gate = new PaceGate(this.pacer);

	readonly members = new Set<object>();

	constructor(readonly account: string) {}
}

/** By a hash of the account: the map never holds the key. */
const paces = new Map<string, AccountPace>();

/** One key per account however it is written: the host's case, a trailing slash or spaces around the key. */
export function accountOf(root: string, apiKey: string | undefined): string {
	const where = root.trim();
	const url = parseUrl(where);
	// A Base URL that is not a URL is left as written: it sends nothing anyway.
	const account = url ? `${url.origin}${url.pathname.replace(/\/+$/, '')}` : where;
	return createHash('sha256')
		.update(`${account}\n${(apiKey ?? '').trim()}`)
		.digest('hex');
}

export function joinAccountPace(account: string, run: object): AccountPace {
	let pace = paces.get(account);
	if (!pace) {
		pace = new AccountPace(account);
		paces.set(account, pace);
	}
	pace.members.add(run);
	return pace;
}

export function leaveAccountPace(pace: AccountPace, run: object): void {
	pace.members.delete(run);
	pace.gate.forget(run);
	if (pace.members.size === 0 && paces.get(pace.account) === pace) paces.delete(pace.account);
}

/** The accounts paced in this process now (for tests and the model's invariants). */
export function pacedAccounts(): number {
	return paces.size;
}
