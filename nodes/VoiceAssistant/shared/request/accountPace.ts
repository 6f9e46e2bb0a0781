import { createHash } from 'crypto';
import { clock, WaiterQueue } from './limiter';

/**
 * Spacing of attempts once the service shows a rate limit (a limit on requests in flight cannot
 * hold a fast run under one). Pacing starts at the rate the service answered in the last window,
 * then follows it, judged per window (WINDOW_MS, MIN_ANSWERS_TO_JUDGE answers; the first one not):
 * more than MAX_THROTTLED_SHARE 429s: slower by CUT_FACTOR (down to what was answered when the
 * pace held the run back); none while the pace held it back: faster by GROWTH, doubling that after
 * PATIENT_WINDOWS such windows, up to MAX_GROWTH a second (a run paced low beside others finds the
 * room they leave). 429s whose share does not fall when the run sends less are noise: after
 * GIVE_UP_AFTER_FUTILE_CUTS such cuts pacing stops, retries handle them.
 */
export const WINDOW_MS = 1000;
const MIN_ANSWERS_TO_JUDGE = 10;
const BUCKET_MS = 100;
const MAX_THROTTLED_SHARE = 0.05;
const CUT_FACTOR = 0.85;
const GROWTH = 0.02;
const PATIENT_WINDOWS = 5;
const MAX_GROWTH = 0.25;
const FUTILE_SHARE_RATIO = 0.75;
const GIVE_UP_AFTER_FUTILE_CUTS = 3;

/** answered: the service handled it (any status but 429 and 5xx); failed: any other failure. */
export type AnswerKind = 'answered' | 'rate-limited' | 'failed';

export class RatePacer {
	/** Attempts per second while pacing; undefined: not pacing. */
	private pace: number | undefined;

	private nextSendAt = 0;

	/** Answers per BUCKET_MS of the last window, by bucket number. */
	private readonly answeredBuckets = new Map<number, number>();

	private window = { start: 0, answers: 0, throttled: 0, answered: 0, sent: 0, waited: false };

	private shareAtLastCut: number | undefined;

	private futileCuts = 0;

	private firstWindow = false;

	private growthStreak = 0;

	private givenUp = false;

	/** When an attempt last left or was answered. */
	lastActiveAt = clock.now();

	get rate(): number | undefined {
		return this.pace;
	}

	/** How long until the next attempt may leave (0: now, and always when not paced). */
	nextTurnIn(): number {
		if (this.pace === undefined) return 0;
		const now = clock.now();
		this.endWindowIfDue(now);
		return Math.max(0, this.nextSendAt - now);
	}

	/** An attempt leaves now; `waited`: it had to wait for its turn. */
	takeTurn(waited: boolean): void {
		const now = clock.now();
		this.lastActiveAt = now;
		if (this.pace === undefined) return;
		this.nextSendAt = Math.max(now, this.nextSendAt) + 1000 / this.pace;
		if (waited) this.window.waited = true;
		this.window.sent++;
	}

	onAnswer(kind: AnswerKind): void {
		const now = clock.now();
		this.lastActiveAt = now;
		this.endWindowIfDue(now);
		this.window.answers++;
		if (kind === 'rate-limited') this.window.throttled++;
		if (kind !== 'answered') return;
		this.window.answered++;
		const bucket = Math.floor(now / BUCKET_MS);
		this.answeredBuckets.set(bucket, (this.answeredBuckets.get(bucket) ?? 0) + 1);
		for (const key of this.answeredBuckets.keys()) if (key <= bucket - WINDOW_MS / BUCKET_MS) this.answeredBuckets.delete(key);
	}

	/** The service showed a rate limit: pace from now on, at what it answered in the last window. */
	rateLimited(): void {
		if (this.pace !== undefined || this.givenUp) return;
		const now = clock.now();
		const oldest = Math.floor(now / BUCKET_MS) - WINDOW_MS / BUCKET_MS;
		let answered = 0;
		for (const [bucket, count] of this.answeredBuckets) if (bucket > oldest) answered += count;
		this.pace = Math.max(1, answered);
		this.nextSendAt = now;
		this.beginWindow(now);
		this.firstWindow = true;
	}

	private endWindowIfDue(now: number): void {
		const { start, answers, throttled, answered, sent, waited } = this.window;
		const elapsedMs = now - start;
		if (this.pace === undefined || elapsedMs < WINDOW_MS || answers < MIN_ANSWERS_TO_JUDGE) return;
		this.beginWindow(now);
		if (this.firstWindow) {
			this.firstWindow = false;
			return;
		}
		const share = throttled / answers;
		// The pace, not something else (few items left, the concurrency limit), held the run back.
		const paceBound = waited && sent >= 0.5 * this.pace * (elapsedMs / 1000);
		if (share > MAX_THROTTLED_SHARE) {
			const futile = this.shareAtLastCut !== undefined && share >= this.shareAtLastCut * FUTILE_SHARE_RATIO;
			this.futileCuts = futile ? this.futileCuts + 1 : 0;
			if (this.futileCuts >= GIVE_UP_AFTER_FUTILE_CUTS) {
				this.pace = undefined;
				this.givenUp = true;
				return;
			}
			this.shareAtLastCut = share;
			const cut = this.pace * CUT_FACTOR;
			this.pace = Math.max(1, paceBound ? Math.min(cut, (answered * 1000) / elapsedMs) : cut);
			this.growthStreak = 0;
			return;
		}
		this.shareAtLastCut = undefined;
		this.futileCuts = 0;
		if (share > 0) this.growthStreak = 0;
		else if (paceBound) {
			// Growth per second of the window: a window that gathered its answers slowly grows as much.
			const perSecond = 1 + Math.min(MAX_GROWTH, GROWTH * 2 ** Math.max(0, this.growthStreak++ - PATIENT_WINDOWS));
			this.pace *= perSecond ** (elapsedMs / 1000);
		}
	}

	private beginWindow(now: number): void {
		this.window = { start: now, answers: 0, throttled: 0, answered: 0, sent: 0, waited: false };
	}
}

/**
 * Hands out the pacer's turns one by one when they come (not booked ahead: a cut slows the very
 * next attempt), fairly between the runs that share it: round robin over the runs with waiters,
 * first come first served within a run. An agent's single tool call does not wait behind a bulk
 * run's queue.
 */
/** What the gate needs of a pacer. */
export type Turns = Pick<RatePacer, 'nextTurnIn' | 'takeTurn'>;

export class PaceGate {
	private readonly queues = new Map<object, WaiterQueue<void>>();

	private rotation: object[] = [];

	private next = 0;

	private pumping = false;

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
		if (!this.pumping) void this.pump();
		await turn;
	}

	/** A run that left the pace no longer takes part in the rotation. */
	forget(run: object): void {
		this.queues.delete(run);
		this.rotation = this.rotation.filter((member) => member !== run);
	}

	private async pump(): Promise<void> {
		this.pumping = true;
		while (this.waiting > 0) {
			const wait = this.pacer.nextTurnIn();
			if (wait > 0) await clock.sleep(wait);
			else if (this.serveNextRun()) this.pacer.takeTurn(true);
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

/** A pace unused for this long is dropped, whoever still holds it (a run n8n never finished). */
export const IDLE_PACE_MS = 60_000;

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
	let where = root.trim();
	try {
		const url = new URL(where);
		where = `${url.origin}${url.pathname.replace(/\/+$/, '')}`;
	} catch {
		// left as written: such a Base URL sends nothing anyway
	}
	return createHash('sha256').update(`${where}\n${(apiKey ?? '').trim()}`).digest('hex');
}

export function joinAccountPace(account: string, run: object): AccountPace {
	const now = clock.now();
	for (const [key, pace] of paces) if (now - pace.pacer.lastActiveAt > IDLE_PACE_MS) paces.delete(key);
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
