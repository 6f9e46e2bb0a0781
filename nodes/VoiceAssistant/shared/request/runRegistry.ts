// Which run each item's request belongs to: the run item 0 of a node run started, joined by the
// other items in their preSend and found again by their send step.
import type { IExecuteSingleFunctions } from 'n8n-workflow';
import { NodeOperationError } from 'n8n-workflow';
import { ItemLoop } from './itemLoop';
import { readBatching, readLoopItem, type LoopItem } from './n8nAdapter';
import type { Run } from './run';

/** The run that item 0 began last, per node run. */
const latestRun = new WeakMap<object, Run>();

/** Each item's request, from its preSend to its send step: its run, and the item as preSend read it. */
const runOfRequest = new WeakMap<object, { run: Run; item: LoopItem }>();

/**
 * Called from every item's preSend: n8n prepares a node run's items in order, item 0 first. Item
 * 0 (or the first item n8n could prepare) starts a run; the others join it while n8n's loop is
 * on. A run that item 0 of a later try finds still preparing was abandoned by n8n.
 */
export function joinRun(
	context: IExecuteSingleFunctions,
	request: object,
	start: (item: LoopItem, loop: ItemLoop) => Run,
): { run: Run; item: LoopItem } {
	const item = readLoopItem(context);
	let run = latestRun.get(item.nodeRun);
	// After a Stop, n8n's loop may go on preparing the rest (a Batching pause ends): they join the ended run.
	const afterStop = item.cancelSignal?.aborted === true;
	if (!run || (!afterStop && (item.itemIndex === 0 || !run.loop.preparing))) {
		if (run?.loop.preparing) run.end('abandoned');
		run = start(
			item,
			new ItemLoop(item.itemCount, readBatching(context), item.skipsFailedItems, item.cancelSignal),
		);
		latestRun.set(item.nodeRun, run);
	}
	const joined = { run, item };
	runOfRequest.set(request, joined);
	return joined;
}

/** The run of a request that went through preSend (every operation's routing has one), and its item. */
export function runOf(
	context: IExecuteSingleFunctions,
	request: object,
): { run: Run; item: LoopItem } {
	const joined = runOfRequest.get(request);
	if (!joined)
		throw new NodeOperationError(context.getNode(), "The request skipped the node's preparation", {
			itemIndex: context.getItemIndex(),
		});
	return joined;
}
