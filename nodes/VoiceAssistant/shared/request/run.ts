// The Run: n8n's loop over the items of one node run, from the first preSend to the last outcome,
// with what its items share (its window, deadlines, its account's admission, stop and cancel) and
// its lifecycle.
import type { IExecuteSingleFunctions, Logger } from 'n8n-workflow';
import { clock, onAbort, wait } from '../clock';
import type { AttemptEnd } from '../failureModel';
import { Progress } from './progress';
import type { HeldBack } from '../runWords';
import type { RequestPolicy } from '../requestPolicy';
import { accountOf, readApiTarget, type ApiTarget } from '../target';
import { AccountAdmission, joinAdmission, type Member, type Turn } from './admission';
import { AttemptFeedback } from './attemptFeedback';
import { WindowSizer } from './windowSizer';
import { Deadlines } from './deadlines';
import { RunWindow } from './runWindow';
import type { ItemLoop } from './itemLoop';
import type { Ticket } from './rateTickets';
import type { TriesMemory } from './triesMemory';
import type { NodeError } from '../nodeError';

/** Of the time a caller waits, what a request leaves unused (the call's way to the worker and back). */
const CALLER_MARGIN_MS = 10_000;

/** Why a run ended before every item had its outcome, or that it did. */
type Ending = 'finished' | 'stopped' | 'cancelled' | 'abandoned';

/**
 * A pass of n8n's loop over the items of one node run: one per try of n8n's Retry On Fail (each AI
 * Agent tool call is a node run). Its lifecycle:
 * 1. preparing: n8n's loop runs every item's preSend; nothing is sent yet;
 * 2. sending, once the loop is over (`maySend`); if n8n's loop threw, the run is abandoned
 *    and sends nothing;
 * 3. ended (`end`), when every prepared item has its outcome, or when it is abandoned or
 *    cancelled: it leaves its account's admission and its signal aborts, so whatever waits sends nothing.
 * A stop (an item failed without On Error: Continue) aborts the signal too: every wait leaves, and
 * the check right before each attempt lets no request start after it.
 */
export class Run {
	private readonly controller = new AbortController();

	/** Aborted by a stop, a cancel or the run's end: every wait of the run leaves on it. */
	readonly signal: AbortSignal = this.controller.signal;
	readonly window: RunWindow;

	/** Aborted when the run ends, not by a stop: the deadlines of attempts still in flight hold. */
	private readonly over = new AbortController();
	readonly deadlines = new Deadlines(this.over.signal);
	private readonly sizer: WindowSizer | undefined;
	private readonly feedback: AttemptFeedback;
	/** Its account's admission, joined at its first turn (a Dry Run never takes one). */
	private admission: AccountAdmission | undefined;
	private member: (Member & { account: string }) | undefined;
	/** The node's own Max Requests per Second (held.ownRate, the lowest its items give): an admission of the run's own, whose turn comes first. */
	private own: { admission: AccountAdmission; member: Member } | undefined;
	/** How long its account's rate, its own rate and Retry-After pauses held it back; n8n's Batching held a request. */
	private readonly held: HeldBack = { rateMs: 0, ownMs: 0, pauseMs: 0, batching: false };
	/** Its attempts between their start and their end, and the most at once. */
	private inFlight = 0;
	private mostInFlight = 0;
	private readyAt: number | undefined;

	/** Items that get an outcome: the prepared ones, once n8n's loop is over. */
	private expected: number | undefined;
	private ending: Ending | undefined;
	private target: Promise<ApiTarget> | undefined;

	/** The first failure that stopped the run, and the index of its item. */
	stopError: NodeError | undefined;
	stoppedByItem: number | undefined;
	/** The caller gave up waiting for the run (it waits `callerWaitsMs`): nothing more is sent. */
	callerGaveUp = false;

	/** Items whose input was invalid while failures become items: they fail without a request. */
	readonly invalidItems = new Map<number, NodeError>();
	private turns = 0;
	private turnWaiting = 0;
	readonly progress: Progress;
	private readonly stopListening: () => void;

	constructor(
		readonly loop: ItemLoop,
		readonly policy: RequestPolicy,
		log: { logger: Logger; nodeName: string },
		cancelSignal: AbortSignal | undefined,
		/** Outcomes kept across n8n's Retry On Fail tries of the node run, when it is on. */
		readonly earlierTries: TriesMemory | undefined,
		/** How long the caller waits (an MCP client's call on a queue-mode worker); undefined: as long as it takes. */
		readonly callerWaitsMs?: number,
	) {
		this.sizer = policy.adaptiveConcurrency ? new WindowSizer(policy.maxConcurrency) : undefined;
		this.window = new RunWindow(this.sizer?.limit ?? policy.maxConcurrency);
		this.feedback = new AttemptFeedback(this.sizer, this.window);
		this.progress = new Progress(loop.total, log.logger, log.nodeName, {
			concurrency: () => ({
				now: this.sizer?.limit ?? policy.maxConcurrency,
				peak: this.mostInFlight,
			}),
			inFlight: () => this.inFlight,
			rate: () => ({ ...this.admission?.rateInForce, waiting: this.turnWaiting }),
			heldBack: () => this.held,
		});
		const cancel = () => this.end('cancelled');
		this.stopListening = cancelSignal ? onAbort(cancelSignal, cancel) : () => undefined;
		if (cancelSignal?.aborted) cancel();
		void loop.outcome.then((count) => this.loopOver(count));
		// No request starts once the caller may have given up: n8n's own way there takes part of its time.
		if (callerWaitsMs !== undefined)
			void wait(callerWaitsMs - CALLER_MARGIN_MS, this.over.signal).then((due) => {
				if (!due) return;
				this.callerGaveUp = true;
				this.controller.abort();
			});
	}

	get cancelled(): boolean {
		return this.ending === 'cancelled';
	}

	get abandoned(): boolean {
		return this.ending === 'abandoned';
	}

	/** n8n's loop is over: it threw (undefined) or prepared `count` items to send. */
	private loopOver(count: number | undefined): void {
		if (count === undefined) return this.end('abandoned');
		this.readyAt = clock.now();
		this.expected = count;
		if (this.progress.done >= count) this.end(this.stopError ? 'stopped' : 'finished');
	}

	/** Resolves once n8n's loop is over: whether the run may send (not abandoned, stopped or cancelled). */
	async maySend(): Promise<boolean> {
		await this.loop.outcome;
		return !this.signal.aborted;
	}

	/** The credential is read once per run: n8n would otherwise decrypt it for every item. */
	async apiTarget(context: IExecuteSingleFunctions): Promise<ApiTarget> {
		this.target ??= readApiTarget(context).then((target) => {
			const account = accountOf(target.root, target.apiKey);
			this.member = { account, limit: target.rate, held: this.held };
			this.held.limitSet = target.rate !== undefined;
			return target;
		});
		return await this.target;
	}

	/** An item's Max Requests per Second: the run keeps the lowest (read before anything is sent). */
	lowerOwnRate(perSecond: number | undefined): void {
		if (perSecond !== undefined)
			this.held.ownRate = Math.min(this.held.ownRate ?? Infinity, perSecond);
	}

	/**
	 * Waits for this attempt's turn: n8n's Batching (a batch per interval after the run is ready),
	 * the run's own rate, then its account's admission. It ends early on a stop, a cancel or the
	 * run's end (undefined): the caller checks the signal right before it sends, so no request
	 * starts after one. `patienceMs`: how long the item may wait out the account's pause.
	 */
	async waitForTurn(patienceMs: number): Promise<Turn> {
		const turn = this.turns++;
		const due = this.readyAt === undefined ? undefined : this.loop.batchDue(turn, this.readyAt);
		if (due !== undefined && due > clock.now()) {
			this.held.batching = true;
			await wait(due - clock.now(), this.signal);
		}
		if (this.signal.aborted || !this.member) return undefined;
		this.admission ??= joinAdmission(this.member.account, this.member);
		this.turnWaiting++;
		const own = await this.ownTurn();
		const taken = own && (await this.admission.turn(this.member, this.signal, patienceMs));
		this.turnWaiting--;
		if (!own || !taken || 'pausedUntil' in taken) {
			own?.giveBack(false);
			return taken;
		}
		return { giveBack: (reached) => [taken, own].forEach((ticket) => ticket.giveBack(reached)) };
	}

	/** Its own rate's turn (without one, at once): the run's own requests keep it. */
	private async ownTurn(): Promise<Ticket | undefined> {
		const { ownRate } = this.held;
		if (ownRate === undefined) return { giveBack: () => undefined };
		if (!this.own) {
			const held = { rateMs: 0, pauseMs: 0 };
			const member = { limit: { perSecond: ownRate, words: '' }, held };
			this.own = { admission: new AccountAdmission('a run of its own'), member };
			this.own.admission.join(member);
		}
		const turn = await this.own.admission.turn(this.own.member, this.signal, Infinity);
		this.held.ownMs = this.own.member.held.rateMs;
		return turn && !('pausedUntil' in turn) ? turn : undefined;
	}

	/** An attempt starts: it is in flight until it ends. */
	attemptStarted(): void {
		this.mostInFlight = Math.max(this.mostInFlight, ++this.inFlight);
	}

	/** How an attempt ended, and how long it took. */
	attemptEnded(end: AttemptEnd, tookMs: number): void {
		this.inFlight--;
		this.feedback.onAttemptEnd(end, this.admission, tookMs);
	}

	/** The service asked to wait (Retry-After) and the item does: so does every request of the account. */
	pauseAccount(ms: number): void {
		this.admission?.pause(ms);
	}

	/** An item failed and failures do not become items: nothing more of the run is sent. */
	stop(error: NodeError, itemIndex: number): void {
		if (this.stopError) return;
		this.stopError = error;
		this.stoppedByItem = itemIndex;
		this.controller.abort();
	}

	/** An item has its outcome; after the last one the run ends. */
	finishItem(succeeded: boolean): void {
		this.progress.itemDone(succeeded);
		if (this.progress.done >= (this.expected ?? this.loop.total))
			this.end(this.stopError ? 'stopped' : 'finished');
	}

	/** Leaves every shared structure; later calls change nothing. */
	end(ending: Ending): void {
		if (this.ending) return;
		this.ending = ending;
		this.controller.abort();
		this.over.abort();
		this.stopListening();
		this.loop.stopWatching();
		if (this.admission) this.admission.leave(this.member as Member);
		this.own?.admission.leave(this.own.member);
		const skipped = this.loop.total - this.loop.preparedCount;
		const how = {
			abandoned: `abandoned after n8n prepared ${this.loop.preparedCount} of ${this.loop.total} items, nothing sent`,
			finished: skipped > 0 ? `done (n8n could not prepare ${skipped})` : 'done',
			stopped: 'stopped',
			cancelled: 'cancelled',
		}[ending];
		const { batching } = this.loop;
		if (batching && this.loop.total > batching.size) this.held.batching = true;
		this.progress.logSummary(how);
	}
}
