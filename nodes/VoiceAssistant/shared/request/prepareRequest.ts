// The preSend of every operation: the item joins its run (item 0 starts it), then its request is
// built and checked against the spec, without awaiting anything.
import type {
	IDataObject,
	IExecuteSingleFunctions,
	IHttpRequestOptions,
	PreSendAction,
} from 'n8n-workflow';
import { keepForDryRun } from '../dryRun';
import { readRequestPolicy } from '../requestPolicy';
import { buildRequest, type RequestContract } from '../spec/contract';
import { invalidInputError } from '../spec/validation';
import type { ItemLoop } from './itemLoop';
import type { LoopItem } from './n8nAdapter';
import { Run } from './run';
import { joinRun } from './runRegistry';
import { triesOf } from './triesMemory';

/** The run that item 0 of a node run starts, with the node's Options and, under Retry On Fail, the node run's memory of earlier tries. */
function startRun(context: IExecuteSingleFunctions, item: LoopItem, loop: ItemLoop): Run {
	const policy = readRequestPolicy(context.getNodeParameter('options', {}) as IDataObject);
	const log = { logger: context.logger, nodeName: item.node.name };
	return new Run(
		loop,
		policy,
		log,
		item.cancelSignal,
		item.retryOnFail ? triesOf(item.nodeRun) : undefined,
	);
}

/**
 * The preSend hook of an operation: joins the run and builds the request, checked against the
 * spec. It never awaits: n8n calls every item's preSend inside its item loop, and the run sends
 * nothing until the loop is over, so one invalid item (without Continue On Fail) means nothing is
 * sent. With Continue On Fail the invalid item alone fails, without a request.
 */
export function prepareRequest(contract: RequestContract): PreSendAction {
	return async function (this: IExecuteSingleFunctions, options: IHttpRequestOptions) {
		const { run, item } = joinRun(this, options, (first, loop) => startRun(this, first, loop));
		run.loop.itemPrepared(item.itemIndex);
		const built = buildRequest(contract, options, this);
		if (!('problems' in built)) {
			if (contract.body) options.body = built.body;
			options.qs = built.qs;
			return options;
		}
		// Dry Run (shared/dryRun.ts): the problems go to the item's output; nothing fails, nothing is sent.
		if (keepForDryRun(this, options, built.problems)) return options;
		const error = invalidInputError(item.node, built.problems, item.itemIndex);
		if (item.failuresBecomeItems) {
			run.invalidItems.set(item.itemIndex, error);
			return options;
		}
		run.stop(error, item.itemIndex);
		run.finishItem(false);
		throw error;
	};
}
