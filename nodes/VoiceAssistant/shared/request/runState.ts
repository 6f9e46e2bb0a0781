import type {
	IDataObject,
	IExecuteSingleFunctions,
	IHttpRequestOptions,
	Logger,
	NodeApiError,
	NodeOperationError,
} from 'n8n-workflow';
import { ConcurrencyController } from './adaptiveConcurrency';
import { ConcurrencyLimiter } from './limiter';
import { Progress } from './progress';
import type { AnswerKind } from './ratePacer';
import { joinServicePace, leaveServicePace, type ServicePace } from './servicePace';
import { type RequestPolicy, readRequestPolicy } from './requestPolicy';
import { isPushback, type FailureKind } from './retry';
import { readApiTarget, type ApiTarget } from './target';

/**
 * State shared by the items of one run of the node: the concurrency limiter (and in automatic
 * mode its controller), the credential, the execution's cancel signal, the progress log and the
 * first error that stops the run.
 */
export class RunState {
	readonly limiter: ConcurrencyLimiter;

	/** Automatic mode only: moves the limiter's bound with the service's answers. */
	private readonly controller: ConcurrencyController | undefined;

	/**
	 * Automatic mode only, once the credential is read: the pace of the service account, shared
	 * with the runs of this process that send to it at the same time (see joinServicePace).
	 */
	private pace: ServicePace | undefined;

	/** Attempts of this run waiting for their turn at the pace now. */
	private waitingForTurn = 0;

	/** The lowest pace this run was held to. */
	private lowestPace: number | undefined;

	/** 429 answers since the bound was last cut. */
	private throttledSinceCut = 0;

	/** Whether each of the latest answers was a 429. */
	private readonly recentAnswers = new RecentCount(RECENT_ANSWERS);

	readonly progress: Progress;

	/** Set when an item failed and the node does not continue on fail: nothing more is sent. */
	stopError: NodeApiError | NodeOperationError | undefined;

	/** The item whose failure set stopError. */
	stoppedBy = 0;

	/** Items whose input was invalid while the node continues on fail: answered without a request. */
	readonly invalidItems = new Map<number, NodeOperationError>();

	private target: Promise<ApiTarget> | undefined;

	constructor(
		readonly policy: RequestPolicy,
		/** Aborted when the user (or n8n) cancels the execution. */
		readonly signal: AbortSignal | undefined,
		log: { total: number; logger: Logger; nodeName: string },
	) {
		this.controller = policy.adaptiveConcurrency ? new ConcurrencyController(policy.maxConcurrency) : undefined;
		this.limiter = new ConcurrencyLimiter(this.controller?.limit ?? policy.maxConcurrency);
		this.progress = new Progress(log.total, log.logger, log.nodeName, {
			concurrency: () => ({
				now: this.controller?.limit ?? policy.maxConcurrency,
				peak: this.controller?.peak ?? policy.maxConcurrency,
			}),
			inFlight: () => this.limiter.inUse - this.waitingForTurn,
			pace: () => ({ now: this.pacer?.rate, lowest: this.lowestPace, waiting: this.waitingForTurn }),
		});
	}

	private get pacer() {
		return this.pace?.pacer;
	}

	/** Waits until the pace lets the next attempt leave (at once when the run is not paced). */
	async waitForTurn(): Promise<void> {
		if (!this.pace) return;
		this.waitingForTurn++;
		try {
			await this.pace.gate.turn(this.signal);
		} finally {
			this.waitingForTurn--;
		}
	}

	/** An item's outcome is known (sent or not); after the last one the run leaves the shared pace. */
	itemDone(succeeded: boolean): void {
		this.progress.itemDone(succeeded);
		if (this.progress.finished && this.pace) leaveServicePace(this.pace);
	}

	/** How an attempt ended (undefined: an answer that is not an error): moves the automatic bound. */
	attemptEnded(failure: FailureKind | undefined): void {
		if (!this.controller) return;
		const cutsBefore = this.controller.cuts;
		// Once the run is paced, its 429s move the pace, not the bound on requests in flight.
		const paced = this.pacer?.rate !== undefined;
		if (failure === 'rate-limited') this.throttledSinceCut++;
		// Most of the latest answers were 429: a rate limit, without waiting for the round to end.
		if (this.recentAnswers.add(failure === 'rate-limited') >= THROTTLED_OF_RECENT_TO_PACE) this.pacer?.rateLimited();
		if (failure !== undefined && isPushback(failure) && !(paced && failure === 'rate-limited')) this.controller.onPushback();
		else this.controller.onAnswer();
		this.limiter.setLimit(this.controller.limit);
		this.pacer?.onAnswer(answerKind(failure));
		if (this.pacer?.rate !== undefined) this.lowestPace = Math.min(this.lowestPace ?? Infinity, this.pacer.rate);
		if (this.controller.cuts === cutsBefore) return;
		// A round that mostly pushed back, with 429s among it: the service limits the rate too.
		if (this.throttledSinceCut > 0) this.pacer?.rateLimited();
		this.throttledSinceCut = 0;
	}

	/** Called when an item failed and the node does not continue on fail: items not yet sent will not be. */
	stop(error: NodeApiError | NodeOperationError, itemIndex: number): void {
		if (this.stopError) return;
		this.stopError = error;
		this.stoppedBy = itemIndex;
	}

	/** The credential is read once per run: n8n would otherwise decrypt it for every item. */
	async apiTarget(context: IExecuteSingleFunctions): Promise<ApiTarget> {
		this.target ??= readApiTarget(context).then((target) => {
			if (this.controller) this.pace = joinServicePace(target);
			return target;
		});
		return await this.target;
	}
}

function answerKind(failure: FailureKind | undefined): AnswerKind {
	if (failure === undefined || failure === 'client-error') return 'answered';
	return failure === 'rate-limited' ? 'rate-limited' : 'failed';
}

/**
 * Pacing also starts when this many of the latest RECENT_ANSWERS answers were 429. Random 429s
 * of a busy service (30% of the answers, say) practically never reach it (p ≈ 5·10⁻⁶ per answer).
 */
const RECENT_ANSWERS = 20;
const THROTTLED_OF_RECENT_TO_PACE = 16;

/** How many of the latest `size` flags were true. */
class RecentCount {
	private readonly flags: boolean[] = [];

	private count = 0;

	constructor(private readonly size: number) {}

	/** Adds the latest flag; returns the count among the latest `size` once there are that many. */
	add(flag: boolean): number {
		this.flags.push(flag);
		if (flag) this.count++;
		if (this.flags.length > this.size && this.flags.shift()) this.count--;
		return this.flags.length < this.size ? 0 : this.count;
	}
}

/**
 * The number of items of this run of the node (main input, or the tool call's input). With
 * Execute Once n8n runs the node on the first item only, while `executeData` keeps them all.
 */
function itemCount(context: IExecuteSingleFunctions): number {
	const input = context.getExecuteData()?.data;
	const count = (input?.main?.[0] ?? input?.ai_tool?.[0] ?? [undefined]).length;
	return context.getNode().executeOnce === true ? Math.min(1, count) : count;
}

/** The run that item 0 began last, per `executeData` (the object all items of a run share). */
const latestRun = new WeakMap<object, RunState>();

/** The run each item's request belongs to, from its preSend to its answer. */
const runOfRequest = new WeakMap<object, RunState>();

/**
 * Called from every item's preSend. A run of the node is a manual or scheduled execution, each
 * try of n8n's Retry On Fail, or each call of an AI Agent tool; the last two reuse the same
 * `executeData`, so it cannot tell runs apart. But n8n prepares the items of a run in order and
 * synchronously, item 0 first: item 0 starts a fresh state and the others join it. The state is
 * pinned to the item's request so the send step finds it whatever runs in between.
 */
export function joinRun(context: IExecuteSingleFunctions, request: IHttpRequestOptions): RunState {
	const key = context.getExecuteData() ?? context;
	let state = context.getItemIndex() === 0 ? undefined : latestRun.get(key);
	if (!state) {
		// Read once per run: a limit on requests in flight cannot differ between items.
		const policy = readRequestPolicy(context.getNodeParameter('options', {}) as IDataObject);
		const log = { total: itemCount(context), logger: context.logger, nodeName: context.getNode().name };
		state = new RunState(policy, context.getExecutionCancelSignal?.(), log);
		latestRun.set(key, state);
	}
	runOfRequest.set(request, state);
	return state;
}

/** The run of a request that went through preSend (every operation's routing has one). */
export function runOf(context: IExecuteSingleFunctions, request: object): RunState {
	return runOfRequest.get(request) ?? joinRun(context, request as IHttpRequestOptions);
}
