// The preSend of every operation: the item joins its run (item 0 of a node run starts it, the
// others join it while n8n's loop is on, the send step finds it again), then its request is built
// and checked against the spec, and its Max Requests per Second read, without awaiting anything.
import type {
	IDataObject,
	IExecuteSingleFunctions,
	IHttpRequestOptions,
	PreSendAction,
} from 'n8n-workflow';
import { keepForDryRun } from '../dryRun';
import { readMaxRequestsPerSecond, readRequestPolicy } from '../requestPolicy';
import { buildRequest, type RequestContract } from '../spec/contract';
import { invalidInputError, problemFromText } from '../spec/validation';
import { ItemLoop } from './itemLoop';
import { readBatching, readLoopItem, type LoopItem } from './n8nAdapter';
import { thrownError } from '../output';
import { Run } from './run';
import { triesOf } from './triesMemory';

/** The run that item 0 began last, per node run. */
const latestRun = new WeakMap<object, Run>();

/** Each item's request, from its preSend to its send step: its run, and the item as preSend read it. */
const runOfRequest = new WeakMap<object, { run: Run; item: LoopItem }>();

/**
 * Called from every item's preSend: n8n prepares a node run's items in order, item 0 first. Item
 * 0 (or the first item n8n could prepare) starts a run; the others join it while n8n's loop is
 * on. A run that item 0 of a later try finds still preparing was abandoned by n8n.
 */
function joinRun(context: IExecuteSingleFunctions, request: object): { run: Run; item: LoopItem } {
	const item = readLoopItem(context);
	let run = latestRun.get(item.nodeRun);
	// After a Stop, n8n's loop may go on preparing the rest (a Batching pause ends): they join the ended run.
	const afterStop = item.cancelSignal?.aborted === true;
	if (!run || (!afterStop && (item.itemIndex === 0 || !run.loop.preparing))) {
		if (run?.loop.preparing) run.end('abandoned');
		const batching = readBatching(context);
		run = startRun(
			context,
			item,
			new ItemLoop(item.itemCount, batching, item.skipsFailedItems, item.cancelSignal),
		);
		latestRun.set(item.nodeRun, run);
	}
	const joined = { run, item };
	runOfRequest.set(request, joined);
	return joined;
}

/** The run of a request and its item: every operation's routing has this preSend before its send step. */
export function runOf(request: object): { run: Run; item: LoopItem } {
	return runOfRequest.get(request) as { run: Run; item: LoopItem };
}

/** The run that item 0 of a node run starts, with the node's Options and, under Retry On Fail, the node run's memory of earlier tries. */
function startRun(context: IExecuteSingleFunctions, item: LoopItem, loop: ItemLoop): Run {
	const policy = readRequestPolicy(context.getNodeParameter('options', {}) as IDataObject);
	const log = { logger: context.logger, nodeName: item.node.name };
	const earlierTries = item.retryOnFail ? triesOf(item.nodeRun) : undefined;
	return new Run(loop, policy, log, item.cancelSignal, earlierTries, item.callerWaitsMs);
}

/**
 * The preSend hook of an operation: joins the run and builds the request, checked against the
 * spec, and reads the item's Max Requests per Second (the run keeps the lowest). It awaits nothing
 * before that: n8n calls every item's preSend inside its item loop, and the run sends nothing
 * until the loop is over, so one invalid item (without On Error: Continue) means nothing is sent;
 * its error is thrown once n8n's loop is over. With On Error: Continue the invalid item alone
 * fails, without a request.
 */
export function prepareRequest(contract: RequestContract): PreSendAction {
	return async function (this: IExecuteSingleFunctions, options: IHttpRequestOptions) {
		const { run, item } = joinRun(this, options);
		run.loop.itemPrepared(item.itemIndex);
		const built = buildRequest(contract, options, this);
		const ownRate = readMaxRequestsPerSecond(this);
		run.lowerOwnRate(ownRate.perSecond);
		const problems = 'problems' in built ? built.problems : [];
		if (ownRate.problem) problems.push(problemFromText(ownRate.problem));
		if (!('problems' in built) && problems.length === 0) {
			if (contract.body) options.body = built.body;
			options.qs = built.qs;
			return options;
		}
		// Dry Run (shared/dryRun.ts): the problems go to the item's output; nothing fails, nothing is sent.
		if (keepForDryRun(this, options, problems)) return options;
		const error = invalidInputError(item, problems);
		if (item.failuresBecomeItems) {
			run.invalidItems.set(item.itemIndex, error);
			return options;
		}
		run.stop(error, item.itemIndex);
		run.finishItem(false);
		// n8n awaits its items once its loop is over: a rejection during a Batching pause would be
		// unhandled until then.
		await run.loop.outcome;
		throw thrownError(item, error);
	};
}
