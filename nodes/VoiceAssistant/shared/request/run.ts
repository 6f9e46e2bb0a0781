import { createHash } from 'crypto';
import type {
	IDataObject,
	IExecuteSingleFunctions,
	IHttpRequestOptions,
	INodeExecutionData,
	Logger,
	NodeApiError,
	NodeOperationError,
} from 'n8n-workflow';
import { readApiTarget, type ApiTarget } from '../target';
import { accountOf, joinAccountPace, leaveAccountPace, type AccountPace, type AnswerKind } from './accountPace';
import { ConcurrencyLimit } from './concurrencyLimit';
import { isPushback, mayHaveReceived, type FailureKind } from './failure';
import { clock, Limiter, wait } from './limiter';
import { Progress } from '../progress';
import { readRequestPolicy, type RequestPolicy } from '../requestPolicy';

export type NodeError = NodeApiError | NodeOperationError;
export type Outcome = { items: INodeExecutionData[] } | { error: NodeError };

/** Why a run ended before every item had its outcome, or that it did. */
type Ending = 'finished' | 'stopped' | 'cancelled' | 'abandoned';

/** Pacing also starts when this many of the latest RECENT answers were 429 (random 429s practically never do). */
const RECENT = 20;
const THROTTLED_OF_RECENT_TO_PACE = 16;

/** n8n's Batching (Request Options): this many items, then a pause. */
export interface Batching {
	size: number;
	intervalMs: number;
}

/**
 * One run of the node: a manual or scheduled execution, one try of n8n's Retry On Fail, or one
 * AI Agent tool call. Its lifecycle:
 * 1. preparing: n8n's item loop runs every item's preSend (`itemPrepared`); nothing is sent yet;
 * 2. sending, once every item is prepared (`whenPrepared`); if n8n's loop threw mid-way the run is
 *    abandoned and sends nothing;
 * 3. ended (`end`), when every item has its outcome, or when it is abandoned or cancelled: it
 *    leaves the account pace and its signal aborts, so whatever still waits sends nothing.
 * A stop (an item failed without Continue On Fail) aborts the signal too: every wait leaves, and
 * the check at the moment of sending (`mayStartAttempt`) lets no request start after it.
 */
export class Run {
	private readonly controller = new AbortController();

	/** Aborted by a stop, a cancel or the run's end: every wait of the run leaves on it. */
	readonly signal: AbortSignal = this.controller.signal;

	readonly limiter: Limiter;

	private readonly limit: ConcurrencyLimit | undefined;

	private pace: AccountPace | undefined;

	private prepared = 0;

	private readyAt: number | undefined;

	private ending: Ending | undefined;

	private target: Promise<ApiTarget> | undefined;

	/** The first failure that stopped the run, and its item. */
	stopError: NodeError | undefined;

	stoppedBy = 0;

	/** Items whose input was invalid while failures become items: answered without a request. */
	readonly invalidItems = new Map<number, NodeOperationError>();

	/** Whether each of the latest RECENT answers was a 429, and how many were. */
	private readonly recent: boolean[] = [];

	private recentThrottled = 0;

	private throttledSinceCut = 0;

	private turns = 0;

	private paceWaiting = 0;

	private lowestPace: number | undefined;

	readonly progress: Progress;

	private readonly stopListening: () => void;

	constructor(
		readonly total: number,
		readonly policy: RequestPolicy,
		log: { logger: Logger; nodeName: string },
		executionSignal: AbortSignal | undefined,
		private readonly batching: Batching | undefined,
		/** Outcomes kept across n8n's Retry On Fail tries of one execution, when it is on. */
		readonly earlierTries: TriesMemory | undefined,
	) {
		this.limit = policy.adaptiveConcurrency ? new ConcurrencyLimit(policy.maxConcurrency) : undefined;
		this.limiter = new Limiter(this.limit?.limit ?? policy.maxConcurrency);
		this.progress = new Progress(total, log.logger, log.nodeName, {
			concurrency: () => ({ now: this.limit?.limit ?? policy.maxConcurrency, peak: this.limiter.peak }),
			inFlight: () => this.limiter.inUse - this.paceWaiting,
			pace: () => ({ now: this.pace?.pacer.rate, lowest: this.lowestPace, waiting: this.paceWaiting }),
		});
		const cancel = () => this.end('cancelled');
		executionSignal?.addEventListener('abort', cancel, { once: true });
		this.stopListening = () => executionSignal?.removeEventListener('abort', cancel);
		if (executionSignal?.aborted) cancel();
	}

	get cancelled(): boolean {
		return this.ending === 'cancelled';
	}

	/** n8n's loop is still preparing this run's items: a later item may join it. */
	get preparing(): boolean {
		return this.readyAt === undefined && !this.ending;
	}

	/** Items n8n's loop prepared so far. */
	get preparedCount(): number {
		return this.prepared;
	}

	get ended(): boolean {
		return this.ending !== undefined;
	}

	get abandoned(): boolean {
		return this.ending === 'abandoned';
	}

	/** Resolves once every item is prepared (a watch of the preparation waits for it or a pause). */
	private readonly allPrepared = new Promise<void>((resolve) => (this.markPrepared = resolve));

	private markPrepared!: () => void;

	/**
	 * n8n's item loop prepared one more item (valid or not). The loop is done once it prepared the
	 * last item: n8n 2.41 and later skip an item whose parameters fail under Continue On Fail (it
	 * gets n8n's error), so the run sends the items that were prepared.
	 */
	itemPrepared(itemIndex: number): void {
		this.prepared++;
		if (itemIndex < this.total - 1) return;
		this.readyAt = clock.now();
		this.markPrepared();
	}

	/** A later run of the same node began: this one, if still unprepared, was abandoned by n8n. */
	abandonIfUnprepared(): void {
		if (this.readyAt === undefined) this.end('abandoned');
	}

	/**
	 * Resolves true once every item is prepared, false when the run cannot send (ended, or n8n's
	 * loop stopped before the last item). n8n prepares the items in one synchronous loop, so the
	 * first send step runs after it finished or threw; with Batching, the loop pauses between
	 * batches, and a pause longer than the batch interval without a new item means it threw.
	 */
	async whenPrepared(): Promise<boolean> {
		this.preparation ??= this.watchPreparation();
		await this.preparation;
		return this.readyAt !== undefined && !this.signal.aborted;
	}

	private preparation: Promise<void> | undefined;

	private async watchPreparation(): Promise<void> {
		while (this.readyAt === undefined && !this.signal.aborted) {
			const before = this.prepared;
			if (this.batching) await Promise.race([clock.sleep(this.batching.intervalMs + 1000, this.signal), this.allPrepared]);
			if (this.prepared === before && this.readyAt === undefined && !this.signal.aborted) this.end('abandoned');
		}
	}

	/** The credential is read once per run: n8n would otherwise decrypt it for every item. */
	async apiTarget(context: IExecuteSingleFunctions): Promise<ApiTarget> {
		this.target ??= readApiTarget(context).then((target) => {
			this.joinPace(accountOf(target.root, target.apiKey));
			return target;
		});
		return await this.target;
	}

	/** In automatic mode, a prepared run takes turns at its account's pace until it ends. */
	joinPace(account: string): void {
		if (this.limit && !this.ending && !this.pace) this.pace = joinAccountPace(account, this);
	}

	/**
	 * Waits for this attempt's turn: n8n's Batching (a batch per interval after the run is ready),
	 * then the account's pace. Returns whether a request may start now: never after a stop, a
	 * cancel or the run's end, however long it waited.
	 */
	async mayStartAttempt(): Promise<boolean> {
		const turn = this.turns++;
		if (this.batching && this.readyAt !== undefined) {
			const due = this.readyAt + Math.floor(turn / this.batching.size) * this.batching.intervalMs;
			if (due > clock.now()) await wait(due - clock.now(), this.signal);
		}
		if (this.pace && !this.signal.aborted) {
			this.paceWaiting++;
			await this.pace.gate.turn(this, this.signal);
			this.paceWaiting--;
		}
		return !this.signal.aborted;
	}

	/** How an attempt ended (undefined: an answer that is not an error): feeds the limit and the pace. */
	answered(failure: FailureKind | undefined): void {
		const pacer = this.pace?.pacer;
		const kind: AnswerKind = failure === undefined || failure === 'client-error' ? 'answered' : failure === 'rate-limited' ? 'rate-limited' : 'failed';
		pacer?.onAnswer(kind);
		if (!this.limit) return;
		const throttled = kind === 'rate-limited';
		if (throttled) this.throttledSinceCut++;
		this.recent.push(throttled);
		if (throttled) this.recentThrottled++;
		if (this.recent.length > RECENT && this.recent.shift()) this.recentThrottled--;
		if (this.recentThrottled >= THROTTLED_OF_RECENT_TO_PACE) pacer?.rateLimited();
		// Once paced, 429s move the pace, not the limit on requests in flight.
		const paced = pacer?.rate !== undefined;
		const cutsBefore = this.limit.cuts;
		this.limit.onAnswer(failure !== undefined && isPushback(failure) && !(paced && throttled), this.limiter.inUse);
		this.limiter.setLimit(this.limit.limit);
		if (pacer?.rate !== undefined) this.lowestPace = Math.min(this.lowestPace ?? Infinity, pacer.rate);
		if (this.limit.cuts === cutsBefore) return;
		// A round that mostly pushed back, with 429s among it: the service limits the rate too.
		if (this.throttledSinceCut > 0) pacer?.rateLimited();
		this.throttledSinceCut = 0;
	}

	/** An item failed and failures do not become items: nothing more of the run is sent. */
	stop(error: NodeError, itemIndex: number): void {
		if (this.stopError) return;
		this.stopError = error;
		this.stoppedBy = itemIndex;
		this.controller.abort();
	}

	/** An item has its outcome; after the last one the run ends. */
	finishItem(succeeded: boolean): void {
		this.progress.itemDone(succeeded);
		if (this.progress.done >= (this.readyAt === undefined ? this.total : this.prepared)) this.end(this.stopError ? 'stopped' : 'finished');
	}

	/** Leaves every shared structure; later calls change nothing. */
	end(ending: Ending): void {
		if (this.ending) return;
		this.ending = ending;
		this.controller.abort();
		this.stopListening();
		if (this.pace) leaveAccountPace(this.pace, this);
		this.progress.logSummary(ending === 'abandoned' ? `abandoned after n8n prepared ${this.prepared} of ${this.total} items, nothing sent` : ending === 'finished' ? 'done' : ending);
	}
}

/**
 * What earlier tries of n8n's Retry On Fail got, per item, in one execution: an item answered
 * with success, or one the service may have received (see mayHaveReceived), is not sent again by
 * a later try; it returns the same result or fails with the same error. Keyed by the execution's
 * data of the node (n8n passes the same object to every try), so it is freed with the execution;
 * a fingerprint of the request makes sure it is the same request.
 */
export class TriesMemory {
	private readonly outcomes = new Map<number, { fingerprint: string; outcome: Outcome }>();

	static fingerprint(request: Pick<IHttpRequestOptions, 'method' | 'qs' | 'body'> & { url?: string }): string {
		const { method, url, qs, body } = request;
		return createHash('sha256').update(JSON.stringify([method, url, qs, body])).digest('base64');
	}

	recall(itemIndex: number, fingerprint: string): Outcome | undefined {
		const kept = this.outcomes.get(itemIndex);
		return kept?.fingerprint === fingerprint ? kept.outcome : undefined;
	}

	keep(itemIndex: number, fingerprint: string, outcome: Outcome, failure?: { method: string; kind: FailureKind }): void {
		if ('items' in outcome || (failure && mayHaveReceived(failure.method, failure.kind))) {
			this.outcomes.set(itemIndex, { fingerprint, outcome });
		}
	}
}

const triesOfExecution = new WeakMap<object, TriesMemory>();

/**
 * The number of items n8n's loop prepares: the input it iterates (one for Execute Once; for an
 * AI Agent tool call, the call itself).
 */
function itemCount(context: IExecuteSingleFunctions): number {
	if (context.getNode().type.endsWith('Tool')) return 1;
	const loopInput = (context as { inputData?: { main?: unknown[][]; ai_tool?: unknown[][] } }).inputData;
	const items = loopInput?.main?.[0] ?? loopInput?.ai_tool?.[0] ?? context.getExecuteData()?.data?.main?.[0] ?? [undefined];
	return context.getNode().executeOnce === true ? Math.min(1, items.length) : items.length;
}

function readBatching(context: IExecuteSingleFunctions): Batching | undefined {
	const { batching } = context.getNodeParameter('requestOptions', {}) as { batching?: { batch?: IDataObject } };
	const size = Number(batching?.batch?.batchSize);
	const intervalMs = Number(batching?.batch?.batchInterval);
	return intervalMs > 0 ? { size: size > 0 ? size : 1, intervalMs } : undefined;
}

/** The run that item 0 began last, per the execution's data of the node. */
const latestRun = new WeakMap<object, Run>();

/** The run each item's request belongs to, from its preSend to its answer. */
const runOfRequest = new WeakMap<object, Run>();

/**
 * Called from every item's preSend. n8n prepares the items of a run in order, item 0 first: item
 * 0 (or the first item n8n could prepare) starts a run and the others join it while it is still
 * preparing. A run that item 0 of a later try or tool call finds still unprepared was abandoned.
 */
export function joinRun(context: IExecuteSingleFunctions, request: IHttpRequestOptions): Run {
	const key = context.getExecuteData() ?? context;
	let run = latestRun.get(key);
	if (context.getItemIndex() === 0 || !run?.preparing) {
		run?.abandonIfUnprepared();
		const node = context.getNode();
		let tries: TriesMemory | undefined;
		if (node.retryOnFail === true) {
			tries = triesOfExecution.get(key) ?? new TriesMemory();
			triesOfExecution.set(key, tries);
		}
		const policy = readRequestPolicy(context.getNodeParameter('options', {}) as IDataObject);
		const log = { logger: context.logger, nodeName: node.name };
		run = new Run(itemCount(context), policy, log, context.getExecutionCancelSignal?.(), readBatching(context), tries);
		latestRun.set(key, run);
	}
	runOfRequest.set(request, run);
	return run;
}

/** The run of a request that went through preSend (every operation's routing has one). */
export function runOf(context: IExecuteSingleFunctions, request: object): Run {
	return runOfRequest.get(request) ?? joinRun(context, request as IHttpRequestOptions);
}
