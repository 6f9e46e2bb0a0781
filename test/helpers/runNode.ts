/**
 * Runs the Voice Assistant node inside n8n's own execution engine (n8n-core's WorkflowExecute,
 * in process), the way n8n runs a workflow: nothing here stands in for the node's helpers; only
 * the credential store is replaced by one holding the test credential.
 */
import { DirectoryLoader } from 'n8n-core/dist/nodes-loader';
import {
	ExecutionLifecycleHooks,
	LoadOptionsContext,
	RoutingNode,
	SupplyDataContext,
	WorkflowExecute,
} from 'n8n-core';
import { makeHandleToolInvocation } from 'n8n-core/dist/execution-engine/node-execution-context/utils/get-input-connection-data';
import {
	ICredentialsHelper,
	Workflow,
	createDeferredPromise,
	createRunExecutionData,
	type ICredentialDataDecryptedObject,
	type IDataObject,
	type IHttpRequestOptions,
	type INode,
	type INodeExecutionData,
	type INodeListSearchResult,
	type INodeParameters,
	type INodeType,
	type INodeTypes,
	type IExecuteFunctions,
	type IRun,
	type IWorkflowExecuteAdditionalData,
	type ICredentials,
	type IVersionedNodeType,
} from 'n8n-workflow';
import { VoiceAssistantApi } from '../../credentials/VoiceAssistantApi.credentials';
import { VoiceAssistant } from '../../nodes/VoiceAssistant/VoiceAssistant.node';
import { CREDENTIAL_TYPE, NODE_TYPE, TOOL_NODE_TYPE } from '../../tools/package-names';

const credentialType = new VoiceAssistantApi();

/** Every run of the node in this process, settled or not: the tests wait for the last one. */
export const nodeRuns: Array<Promise<unknown>> = [];

/**
 * A declarative node as n8n loads it: `nodeType` (the Voice Assistant of nodes/ unless given, e.g.
 * the built one of dist/ or a modified copy) with n8n's additions.
 */
export function loadNodeType(nodeType: INodeType = new VoiceAssistant()): INodeType {
	// n8n's loader adds the "Request Options" setting to every declarative node; do the same.
	DirectoryLoader.applyDeclarativeNodeOptionParameters(nodeType);
	// n8n's NodeTypes gives a declarative node this execute() (packages/cli node-types.ts), the
	// production path with the execution's cancel signal; without it n8n-core takes a test-only path.
	nodeType.execute = async function (this: IExecuteFunctions) {
		const run = new RoutingNode(this as never, nodeType).runNode();
		nodeRuns.push(run.catch(() => undefined));
		return (await run) ?? [];
	};
	return nodeType;
}

const INPUT_TYPE = 'test.input';

/** Stands for whatever node feeds ours in a workflow (a CRM, a Code node): outputs the test's items. */
class InputNode implements INodeType {
	description = {
		displayName: 'Input',
		name: 'input',
		group: ['input'],
		version: 1,
		description: 'Outputs the items of the test',
		defaults: { name: 'Input' },
		inputs: ['main'],
		outputs: ['main'],
		properties: [{ displayName: 'Items', name: 'items', type: 'json', default: '[]' }],
	} as INodeType['description'];

	async execute(this: IExecuteFunctions): Promise<INodeExecutionData[][]> {
		const items = JSON.parse(this.getNodeParameter('items', 0) as string) as INodeExecutionData[];
		return [items.map((item, index) => ({ ...item, pairedItem: { item: index } }))];
	}
}

class NodeTypes implements INodeTypes {
	constructor(private readonly nodeType: INodeType = loadNodeType()) {}

	private readonly inputType = new InputNode();

	getByName(type: string): INodeType | IVersionedNodeType {
		return this.getByNameAndVersion(type);
	}

	getByNameAndVersion(type: string): INodeType {
		return type === INPUT_TYPE ? this.inputType : this.nodeType;
	}

	getKnownTypes(): IDataObject {
		return {};
	}
}

/** Applies the credential's `authenticate` function the way n8n's credentials helper does. */
class TestCredentialsHelper extends ICredentialsHelper {
	constructor(private readonly data: ICredentialDataDecryptedObject) {
		super();
	}

	getParentTypes(): string[] {
		return [];
	}

	async authenticate(
		credentials: ICredentialDataDecryptedObject,
		_typeName: string,
		requestOptions: IHttpRequestOptions,
	): Promise<IHttpRequestOptions> {
		return await credentialType.authenticate(credentials, requestOptions);
	}

	async preAuthentication(): Promise<undefined> {
		return undefined;
	}

	async getCredentials(): Promise<ICredentials> {
		throw new Error('not used by the node');
	}

	async getDecrypted(): Promise<ICredentialDataDecryptedObject> {
		return { ...this.data };
	}

	async updateCredentials(): Promise<void> {}

	async updateCredentialsOauthTokenData(): Promise<void> {}

	getCredentialsProperties() {
		return credentialType.properties;
	}
}

export interface RunOptions {
	parameters: INodeParameters;
	items?: INodeExecutionData[];
	credentials: { apiKey: string; baseUrl: string } & Record<string, string | boolean | number>;
	continueOnFail?: boolean;
	onError?: 'continueRegularOutput' | 'continueErrorOutput' | 'stopWorkflow';
	/** Another node type to run in the same harness (benchmarks compare against a probe node). */
	nodeType?: INodeType;
	/** The Voice Assistant node built another way (a test's own field table), loaded as n8n loads it. */
	voiceAssistant?: VoiceAssistant;
	/**
	 * n8n's node settings Retry On Fail (with Max Tries and Wait Between Tries in ms). n8n-core
	 * reads a Wait Between Tries of 0 as its default, 1,000 ms (workflow-execute.js:
	 * `waitBetweenTries || 1000`): tries without a wait say 1.
	 */
	retryOnFail?: { maxTries: number; waitBetweenTries: number };
	/** n8n's node setting Execute Once: the node runs on the first input item only. */
	executeOnce?: boolean;
	/** Called once the run started, with a function that cancels the execution as the Stop button does. */
	onStart?: (cancel: () => void) => void;
	/** The node's name (default "Voice Assistant") and its credential's (default "Test account"). */
	nodeName?: string;
	credentialName?: string;
	/** The node's typeVersion, as a saved workflow stores it (default 1). */
	typeVersion?: number;
}

export interface RunResult {
	/** Items of the node's outputs: [main] or [success, error] with the error output. */
	outputs: INodeExecutionData[][];
	/** The error that stopped the node, if any. */
	error?: Error & { description?: string; context?: IDataObject; httpCode?: string };
	run: IRun;
}

/** What n8n hands every node context of an execution: the hooks, the credential store, the URLs. */
function additionalDataOf(
	hooks: ExecutionLifecycleHooks,
	credentials: RunOptions['credentials'],
): IWorkflowExecuteAdditionalData {
	return {
		hooks,
		credentialsHelper: new TestCredentialsHelper(credentials),
		executionId: 'test-execution',
		currentNodeExecutionIndex: 0,
		restApiUrl: 'http://127.0.0.1/rest',
		instanceBaseUrl: 'http://127.0.0.1/',
		formWaitingBaseUrl: 'http://127.0.0.1/form-waiting',
		webhookBaseUrl: 'http://127.0.0.1/webhook',
		webhookWaitingBaseUrl: 'http://127.0.0.1/webhook-waiting',
		webhookTestBaseUrl: 'http://127.0.0.1/webhook-test',
		variables: {},
		logAiEvent: () => {},
	} as unknown as IWorkflowExecuteAdditionalData;
}

/** A node of a test workflow at [0, 0] unless told; with the test account of `credentialType` if given. */
function testNode(
	fields: Pick<INode, 'id' | 'name' | 'type' | 'parameters'> & Partial<INode>,
	credentialType?: string,
	credentialName = 'Test account',
): INode {
	const credentials = credentialType && { [credentialType]: { id: '1', name: credentialName } };
	return { typeVersion: 1, position: [0, 0], ...(credentials ? { credentials } : {}), ...fields };
}

export async function runNode(options: RunOptions): Promise<RunResult> {
	const node = testNode(
		{
			id: 'voice-assistant-node',
			name: options.nodeName ?? 'Voice Assistant',
			type: NODE_TYPE,
			parameters: options.parameters,
			...(options.typeVersion === undefined ? {} : { typeVersion: options.typeVersion }),
			...(options.continueOnFail ? { continueOnFail: true } : {}),
			...(options.onError ? { onError: options.onError } : {}),
			...(options.retryOnFail ? { retryOnFail: true, ...options.retryOnFail } : {}),
			...(options.executeOnce ? { executeOnce: true } : {}),
		},
		options.nodeType?.description.credentials?.[0]?.name ?? CREDENTIAL_TYPE,
		options.credentialName,
	);
	const input = testNode({
		id: 'input-node',
		name: 'Input',
		type: INPUT_TYPE,
		position: [-200, 0],
		parameters: { items: JSON.stringify(options.items ?? [{ json: {} }]) },
	});
	const connections = { Input: { main: [[{ node: node.name, type: 'main' as const, index: 0 }]] } };
	const workflow = new Workflow({
		id: 'test-workflow',
		nodes: [input, node],
		connections,
		active: false,
		nodeTypes: new NodeTypes(
			options.nodeType ?? (options.voiceAssistant && loadNodeType(options.voiceAssistant)),
		),
	});

	const hooks = new ExecutionLifecycleHooks('manual', 'test-execution', {
		id: 'test-workflow',
		name: 'test',
		active: false,
		isArchived: false,
		nodes: [input, node],
		connections,
		createdAt: new Date(),
		updatedAt: new Date(),
	} as never);
	const finished = createDeferredPromise<IRun>();
	hooks.addHandler('workflowExecuteAfter', (run) => finished.resolve(run));

	const additionalData = additionalDataOf(hooks, options.credentials);

	const runExecutionData = createRunExecutionData({
		executionData: {
			nodeExecutionStack: [{ node: input, data: { main: [[{ json: {} }]] }, source: null }],
		},
	});

	const execution = new WorkflowExecute(
		additionalData,
		'manual',
		runExecutionData,
	).processRunExecutionData(workflow);
	options.onStart?.(() => execution.cancel());
	await execution;
	const run = await finished.promise;
	const taskData = run.data.resultData.runData[node.name]?.[0];
	return {
		outputs: (taskData?.data?.main ?? []).map((items) => items ?? []),
		error: (taskData?.error ?? run.data.resultData.error) as RunResult['error'],
		run,
	};
}

/** How a tool call reaches the node: an AI Agent 2's, or an MCP client's through n8n's MCP Server Trigger (in the process it runs in, or on a queue-mode worker). */
type Caller = 'agent' | 'mcp' | 'mcp-worker';

/**
 * The node's tool as n8n runs it for `caller`, one call per entry of `calls` (each the model's
 * arguments). An AI Agent's and an MCP trigger's: n8n-core's own tool wrapper
 * (`makeHandleToolInvocation`: a SupplyDataContext per try, the arguments as input, Retry On Fail
 * around each call) with the caller's execute data. A queue-mode worker's (n8n 2.8+
 * JobProcessor.invokeTool): the node's execute once, with execute data of its own whose source is
 * null. Returns what each call gave its caller: the text, and for an MCP client whether it is an
 * error (`isError`: the call threw, as the trigger answers it).
 */
export async function callAsTool(
	options: Omit<RunOptions, 'items'> & { calls: IDataObject[]; caller?: Caller },
): Promise<string[]> {
	return (await callTool(options)).map(({ text }) => text);
}

export async function callTool(
	options: Omit<RunOptions, 'items'> & { calls: IDataObject[]; caller?: Caller },
): Promise<Array<{ isError: boolean; text: string }>> {
	const caller = options.caller ?? 'agent';
	const nodeType = loadNodeType();
	const agent = testNode({
		id: 'agent-node',
		name: caller === 'agent' ? 'AI Agent' : 'MCP Server Trigger',
		type: caller === 'agent' ? INPUT_TYPE : '@n8n/n8n-nodes-langchain.mcpTrigger',
		parameters: {},
	});
	const tool = testNode(
		{
			id: 'voice-assistant-tool',
			name: 'Voice Assistant Tool',
			type: TOOL_NODE_TYPE,
			position: [0, 200],
			parameters: options.parameters,
			...(options.retryOnFail ? { retryOnFail: true, ...options.retryOnFail } : {}),
		},
		CREDENTIAL_TYPE,
	);
	const connections = {
		[tool.name]: { ai_tool: [[{ node: agent.name, type: 'ai_tool' as const, index: 0 }]] },
	};
	const workflow = new Workflow({
		id: 'tool-workflow',
		nodes: [agent, tool],
		connections,
		active: false,
		nodeTypes: new NodeTypes(nodeType),
	});
	const hooks = new ExecutionLifecycleHooks('manual', 'tool-execution', {
		id: 'tool-workflow',
		name: 'tool',
		active: false,
		isArchived: false,
		nodes: [agent, tool],
		connections,
		createdAt: new Date(),
		updatedAt: new Date(),
	} as never);
	const additionalData = additionalDataOf(hooks, options.credentials);
	const runExecutionData = createRunExecutionData();
	const mode = caller === 'agent' ? 'manual' : 'webhook';
	const callerData = { node: agent, data: { main: [[{ json: {} }]] }, source: null };
	const cancel = new AbortController();
	const contextFactory = (runIndex: number) =>
		new SupplyDataContext(
			workflow,
			tool,
			additionalData,
			mode,
			runExecutionData,
			runIndex,
			[],
			{},
			'ai_tool',
			callerData,
			[],
			caller === 'agent' ? cancel.signal : undefined,
			agent,
		);
	const invoke = makeHandleToolInvocation(contextFactory, tool, nodeType, runExecutionData);
	const onWorker = async (args: IDataObject) => {
		const input = [[{ json: args }]];
		const context = new SupplyDataContext(
			workflow,
			tool,
			additionalData,
			'webhook',
			runExecutionData,
			0,
			input[0],
			{ main: input },
			'ai_tool',
			{ node: tool, data: { main: input }, source: null },
			[],
		);
		context.addInputData('ai_tool', input);
		const result = await (
			nodeType.execute as (this: unknown) => Promise<INodeExecutionData[][]>
		).call(context);
		return JSON.stringify(result[0].map((item) => item.json));
	};
	const answers: Array<{ isError: boolean; text: string }> = [];
	for (const args of options.calls) {
		try {
			const text = caller === 'mcp-worker' ? await onWorker(args) : await invoke(args);
			answers.push({ isError: false, text: text as string });
		} catch (error) {
			if (caller === 'agent') throw error;
			answers.push({ isError: true, text: `Error: ${(error as Error).message}` });
		}
	}
	return answers;
}

/**
 * The Assistant picker as the editor fills it: n8n-core's LoadOptionsContext for the node with
 * the test credential (its real request helpers), and the node's listSearch method.
 */
export async function searchAssistants(
	credentials: RunOptions['credentials'],
	filter?: string,
): Promise<INodeListSearchResult> {
	const nodeType = loadNodeType();
	const node = testNode(
		{
			id: 'voice-assistant-node',
			name: 'Voice Assistant',
			type: NODE_TYPE,
			parameters: { resource: 'playgroundCall', operation: 'start' },
		},
		CREDENTIAL_TYPE,
	);
	const workflow = new Workflow({
		id: 'picker-workflow',
		nodes: [node],
		connections: {},
		active: false,
		nodeTypes: new NodeTypes(nodeType),
	});
	const hooks = new ExecutionLifecycleHooks('manual', 'picker', {} as never);
	const context = new LoadOptionsContext(
		workflow,
		node,
		additionalDataOf(hooks, credentials),
		'assistant',
	);
	return await nodeType.methods!.listSearch!.searchAssistants.call(context, filter);
}
