// n8n's declarative loop as the node reads it: each item as a LoopItem (its node run, the items of
// its loop, Batching, the cancel signal, whether failures become items).
import type { IDataObject, IExecuteSingleFunctions, INode } from 'n8n-workflow';
import * as n8nWorkflow from 'n8n-workflow';
import { NodeOperationError } from 'n8n-workflow';

/*
 * The inferences the node makes about n8n's declarative loop live here, but for three that act
 * where they are used: the watch of the loop (itemLoop.ts), items prepared in order, item 0 first
 * (prepareRequest.ts), and item 0's Timeout for every item (deadlines.ts), all relying on the first
 * point below. The n8n-core code they rely on (dist/execution-engine/), the same in 1.123.50,
 * 2.8.4 and 2.41.1 unless said:
 * - routing-node.js RoutingNode.runNode: one loop over `(inputData.main ?? inputData.ai_tool)[0]`
 *   calls each item's preSend (makeRequest runs up to its first await), reading Request Options for
 *   item 0; Batching's `await sleep(batchInterval)` is its only pause. 2.39.4+: a try/catch per item.
 * - workflow-execute.js: Retry On Fail runs runNode again with the same executionData; Execute
 *   Once cuts inputData to its first item before the context is made.
 * - node-execution-context/utils/get-input-connection-data.js makeHandleToolInvocation: a tool
 *   call inside an agent gets the agent's executeData, each of its tries `[[{ json: toolArgs }]]`;
 *   requests-response.js: AI Agent 3 has the engine run each tool call as a node run of its own.
 * - base-execute-context.js keeps `inputData` and `executeData` on every item's context; the
 *   request helper (request-helper-functions.js, 2.41: request-helpers/authentication.js) aborts
 *   a request on the context's getExecutionCancelSignal().
 * - webhook-context.js getInputConnectionData: an MCP client's tool call through n8n's MCP Server
 *   Trigger runs inside the trigger's webhook with the trigger's executeData; the trigger
 *   (@n8n/n8n-nodes-langchain McpServer.js, 2.x protocol/MessageFormatter.js) answers a thrown
 *   error as `isError`, an output item as a plain result. 2.8+ in queue mode (n8n's
 *   scaling/job-processor.js invokeTool): a worker runs the tool with executeData of its own whose
 *   `source` is null, and main gives up after 120,000 ms (QueuedExecutionStrategy's default, which
 *   scaling.service.js keeps: no setting changes it). No client's cancel or deadline reaches the
 *   node: McpServer.js invokes the tool without the MCP SDK's request signal (which the client's
 *   `notifications/cancelled` or a closed connection aborts), webhook-context.js passes
 *   getInputConnectionData no abort signal, nor does invokeTool its SupplyDataContext (whose job has
 *   left `runningJobs`, out of stopJob's reach): in the trigger's own process a call runs to its end.
 * test/n8nAdapter.test.ts and test/itemLoop.test.ts (n8n-core 2.8.1 in process) and
 * test/e2e/adapter.e2e.test.ts (real n8n, every version claimed) check them.
 */

/** n8n's Batching (Request Options): this many items, then a pause. */
export interface Batching {
	size: number;
	intervalMs: number;
}

/** One item as n8n's loop hands it to the node. */
export interface LoopItem {
	node: INode;
	itemIndex: number;
	/** The node run the item belongs to: the tries of n8n's Retry On Fail share it. */
	nodeRun: object;
	/** The items n8n's loop goes through in this node run. */
	itemCount: number;
	/** n8n goes on past an item it cannot prepare, giving that item its own error. */
	skipsFailedItems: boolean;
	/** Aborted when the execution is cancelled. */
	cancelSignal: AbortSignal | undefined;
	asTool: boolean;
	/**
	 * A failed item becomes an output item instead of failing the node: under On Error: Continue, and
	 * for an AI Agent's tool (a thrown error reaches an AI Agent 2.x's model as an empty result, and
	 * ends a 3.x's run); never for an MCP client's (its error is the client's `isError`).
	 */
	failuresBecomeItems: boolean;
	/** How long the caller waits for the call (an MCP client's through a queue-mode worker); undefined: as long as it takes. */
	callerWaitsMs: number | undefined;
	retryOnFail: boolean;
}

/** `inputData` of the item's context (a private field in every version). */
type LoopInput = {
	main?: Array<Array<{ json?: unknown }>>;
	ai_tool?: Array<Array<{ json?: unknown }>>;
};

function loopInput(context: IExecuteSingleFunctions): LoopInput | undefined {
	return (context as unknown as { inputData?: LoopInput }).inputData;
}

/**
 * The node run an item belongs to, the same object on every try of n8n's Retry On Fail: the execute
 * data of a node run n8n scheduled (an execution, each pass of a loop, an AI Agent 3 tool call);
 * for a tool call inside an agent's run, whose execute data is the agent's, the call's arguments
 * object; otherwise (no known n8n) the loop's input, which every item of one loop shares.
 */
function nodeRunOf(context: IExecuteSingleFunctions): object {
	const executeData = context.getExecuteData?.();
	if (executeData?.node?.name === context.getNode().name) return executeData;
	const input = loopInput(context);
	const toolArgs = input?.ai_tool?.[0]?.[0]?.json;
	if (executeData && toolArgs !== null && typeof toolArgs === 'object') return toolArgs;
	if (input) return input;
	throw new NodeOperationError(
		context.getNode(),
		'This n8n version runs the node in a way it does not know',
		{
			itemIndex: context.getItemIndex(),
			description:
				'n8n gave the node neither its execution data nor its input, so it cannot tell which items belong together. Nothing was sent.',
		},
	);
}

/** The number of items n8n's loop goes through (Execute Once already applied); a tool call is one. */
function itemCount(context: IExecuteSingleFunctions): number {
	const input = loopInput(context);
	return (input?.main ?? input?.ai_tool)?.[0]?.length ?? 1;
}

/**
 * From n8n-core 2.39.4 on, runNode wraps each item's preparation in a try/catch and, under
 * On Error: Continue, gives the item n8n's error and goes on with the next; up to 2.39.3 (so 1.123
 * and 2.8) the error ends the loop and n8n passes the input through. The node cannot see n8n-core:
 * n8n-workflow's `toHostname` marks the new loop, as that same code of 2.39.4 calls it and
 * n8n-workflow 2.39.2 (which n8n-core 2.39.4 needs) added it.
 */
const LOOP_SKIPS_FAILED_ITEMS =
	typeof (n8nWorkflow as { toHostname?: unknown }).toHostname === 'function';

/** runNode reads Batching from the node's Request Options: a pause of `batchInterval` before every `batchSize`-th item. */
export function readBatching(context: IExecuteSingleFunctions): Batching | undefined {
	const { batching } = context.getNodeParameter('requestOptions', {}) as {
		batching?: { batch?: IDataObject };
	};
	const size = Number(batching?.batch?.batchSize);
	const intervalMs = Number(batching?.batch?.batchInterval);
	return intervalMs > 0 ? { size: size > 0 ? size : 1, intervalMs } : undefined;
}

/** n8n makes a `…Tool` node type of a node that is `usableAsTool`, and the workflow names that type. */
function runsAsTool(node: INode): boolean {
	return node.type.endsWith('Tool');
}

const MCP_SERVER_TRIGGER = '@n8n/n8n-nodes-langchain.mcpTrigger';
const MCP_WORKER_CALL_MS = 120_000;

/** A tool call of an MCP client: in the process its trigger runs in, or on a queue-mode worker. */
function mcpCallOf(context: IExecuteSingleFunctions): 'trigger' | 'worker' | undefined {
	const executeData = context.getExecuteData?.();
	if (executeData?.node?.type === MCP_SERVER_TRIGGER) return 'trigger';
	const own = executeData?.node?.name === context.getNode().name;
	return own && executeData?.source === null ? 'worker' : undefined;
}

export function readLoopItem(context: IExecuteSingleFunctions): LoopItem {
	const node = context.getNode();
	const asTool = runsAsTool(node);
	const continueOnFail = context.continueOnFail();
	const mcp = asTool ? mcpCallOf(context) : undefined;
	return {
		node,
		itemIndex: context.getItemIndex(),
		nodeRun: nodeRunOf(context),
		itemCount: asTool ? 1 : itemCount(context),
		skipsFailedItems: LOOP_SKIPS_FAILED_ITEMS && continueOnFail,
		cancelSignal: context.getExecutionCancelSignal?.(),
		asTool,
		failuresBecomeItems: mcp === undefined && (continueOnFail || asTool),
		callerWaitsMs: mcp === 'worker' ? MCP_WORKER_CALL_MS : undefined,
		retryOnFail: node.retryOnFail === true,
	};
}

/** The context an attempt sends through: n8n's request helper aborts the request on its getExecutionCancelSignal(). */
export function withCancelSignal<T extends IExecuteSingleFunctions>(
	context: T,
	signal: AbortSignal,
): T {
	return Object.create(context, { getExecutionCancelSignal: { value: () => signal } }) as T;
}
