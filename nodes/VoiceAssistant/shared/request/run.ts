// The Run: n8n's loop over the items of one node run, from the first preSend to the last outcome,
// with what its items share (its window, deadlines, its account's admission, stop and cancel) and
// its lifecycle.
import type { IExecuteSingleFunctions, Logger } from 'n8n-workflow';
import { clock, onAbort, wait } from '../clock';
import type { AttemptEnd } from '../failureModel';
import { Progress } from '../progress';
import type { RequestPolicy } from '../requestPolicy';
import { accountOf, readApiTarget, type ApiTarget } from '../target';
import type { Turn } from './admission';
import { RunTurns } from './runTurns';
import { AttemptFeedback } from './attemptFeedback';
import { WindowSizer } from './windowSizer';
import { Deadlines } from './deadlines';
import { RunWindow } from './runWindow';
import type { ItemLoop } from './itemLoop';
import type { TriesMemory } from './triesMemory';
import type { NodeError } from '../nodeError';
import type { StatedCount } from '../serviceCount';

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
	/** When its requests may start (a Dry Run never takes a turn). */
	private readonly turns: RunTurns;
	/** Its attempts between their start and their end, and the most at once. */
	private inFlight = 0;
	private mostInFlight = 0;

	/** Items that get an outcome: the prepared ones, once n8n's loop is over. */
	private expected: number | undefined;
	private ending: Ending | undefined;
	private target: Promise<ApiTarget> | undefined;

	/** The first failure that stopped the run, and the index of its item. */
	stopError: NodeError | undefined;
	stoppedByItem: number | undefined;
	/** When the caller gives up waiting for the run (it waits `callerWaitsMs`), on the node's clock. */
	readonly callerDeadline: number;

	/** Items whose input was invalid while failures become items: they fail without a request. */
	readonly invalidItems = new Map<number, NodeError>();
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
		this.turns = new RunTurns(loop, this.signal);
		this.progress = new Progress(loop.total, log.logger, log.nodeName, {
			concurrency: () => ({
				now: this.sizer?.limit ?? policy.maxConcurrency,
				peak: this.mostInFlight,
			}),
			inFlight: () => this.inFlight,
			rate: () => ({ ...this.turns.admission?.rateInForce, waiting: this.turns.waiting }),
			heldBack: () => this.turns.held,
		});
		const cancel = () => this.end('cancelled');
		this.stopListening = cancelSignal ? onAbort(cancelSignal, cancel) : () => undefined;
		if (cancelSignal?.aborted) cancel();
		void loop.outcome.then((count) => this.loopOver(count));
		// No wait outlasts the caller, nor does a request: n8n's own way there takes part of its time.
		this.callerDeadline = clock.now() + (callerWaitsMs ?? Infinity) - CALLER_MARGIN_MS;
		if (callerWaitsMs !== undefined)
			void wait(callerWaitsMs - CALLER_MARGIN_MS, this.over.signal).then((due) => {
				if (due) this.controller.abort();
			});
	}

	/** The caller may have given up waiting for the run: nothing more is sent. */
	get callerGaveUp(): boolean {
		return clock.now() >= this.callerDeadline;
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
		this.turns.readyAt = clock.now();
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
			this.turns.setAccount(accountOf(target.root, target.apiKey), target.rate);
			return target;
		});
		return await this.target;
	}

	/** An item's Max Requests per Second: the run keeps the lowest (read before anything is sent). */
	lowerOwnRate(perSecond: number | undefined): void {
		this.turns.lowerOwnRate(perSecond);
	}

	/** Waits for this attempt's turn (runTurns.ts); `patienceMs`: how long the item may wait out the account's pause. */
	async waitForTurn(patienceMs: number): Promise<Turn> {
		return await this.turns.next(patienceMs);
	}

	/** An attempt starts: it is in flight until it ends. */
	attemptStarted(): void {
		this.mostInFlight = Math.max(this.mostInFlight, ++this.inFlight);
	}

	/** How an attempt ended, how long it took, and the service's count its answer stated. */
	attemptEnded(end: AttemptEnd, tookMs: number, count?: StatedCount): void {
		this.inFlight--;
		this.feedback.onAttemptEnd(end, this.turns.admission, tookMs, count);
	}

	/** The service asked to wait (Retry-After) and the item does: so does every request of the account. */
	pauseAccount(ms: number): void {
		this.turns.admission?.pause(ms);
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
		this.turns.leave();
		const skipped = this.loop.total - this.loop.preparedCount;
		const how = {
			abandoned: `abandoned after n8n prepared ${this.loop.preparedCount} of ${this.loop.total} items, nothing sent`,
			finished: skipped > 0 ? `done (n8n could not prepare ${skipped})` : 'done',
			stopped: 'stopped',
			cancelled: 'cancelled',
		}[ending];
		const { batching } = this.loop;
		if (batching && this.loop.total > batching.size) this.turns.held.batching = true;
		this.progress.logSummary(how);
	}
}
