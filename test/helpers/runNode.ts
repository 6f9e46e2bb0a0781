/**
 * Runs the Voice Assistant node inside n8n's own execution engine (n8n-core's WorkflowExecute,
 * in process), the way n8n runs a workflow: nothing here stands in for the node's helpers; only
 * the credential store is replaced by one holding the test credential.
 */
import { DirectoryLoader } from 'n8n-core/dist/nodes-loader';
import { ExecutionLifecycleHooks, WorkflowExecute } from 'n8n-core';
import {
	ICredentialsHelper,
	Workflow,
	createDeferredPromise,
	type ICredentialDataDecryptedObject,
	type IDataObject,
	type IHttpRequestOptions,
	type INode,
	type INodeExecutionData,
	type INodeParameters,
	type INodeType,
	type INodeTypes,
	type IRun,
	type IRunExecutionData,
	type IWorkflowExecuteAdditionalData,
	type ICredentials,
	type IVersionedNodeType,
} from 'n8n-workflow';
import { VoiceAssistantApi } from '../../credentials/VoiceAssistantApi.credentials';
import { VoiceAssistant } from '../../nodes/VoiceAssistant/VoiceAssistant.node';

export const NODE_TYPE = 'n8n-nodes-voice-assistant.voiceAssistant';
const credentialType = new VoiceAssistantApi();

function loadNodeType(): INodeType {
	const nodeType = new VoiceAssistant();
	// n8n's loader adds the "Request Options" setting to every declarative node; do the same.
	DirectoryLoader.applyDeclarativeNodeOptionParameters(nodeType);
	return nodeType;
}

class NodeTypes implements INodeTypes {
	private readonly nodeType = loadNodeType();

	getByName(): INodeType | IVersionedNodeType {
		return this.nodeType;
	}

	getByNameAndVersion(): INodeType {
		return this.nodeType;
	}

	getKnownTypes(): IDataObject {
		return {};
	}
}

/** Resolves the credential's generic `authenticate` block the way n8n's credentials helper does. */
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
		workflow: Workflow,
		node: INode,
	): Promise<IHttpRequestOptions> {
		const headers = credentialType.authenticate.properties.headers ?? {};
		const resolved: IDataObject = {};
		for (const [name, value] of Object.entries(headers)) {
			resolved[name] = workflow.expression.getSimpleParameterValue(node, value as string, 'internal', {
				$credentials: credentials,
			}) as string;
		}
		return { ...requestOptions, headers: { ...requestOptions.headers, ...resolved } };
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
	credentials: { apiKey: string; baseUrl: string };
	continueOnFail?: boolean;
	onError?: 'continueRegularOutput' | 'continueErrorOutput' | 'stopWorkflow';
}

export interface RunResult {
	/** Items of the node's outputs: [main] or [success, error] with the error output. */
	outputs: INodeExecutionData[][];
	/** The error that stopped the node, if any. */
	error?: Error & { description?: string; context?: IDataObject; httpCode?: string };
	run: IRun;
}

export async function runNode(options: RunOptions): Promise<RunResult> {
	const node: INode = {
		id: 'voice-assistant-node',
		name: 'Voice Assistant',
		type: NODE_TYPE,
		typeVersion: 1,
		position: [0, 0],
		parameters: options.parameters,
		credentials: { voiceAssistantApi: { id: '1', name: 'Voice Assistant account' } },
		...(options.continueOnFail ? { continueOnFail: true } : {}),
		...(options.onError ? { onError: options.onError } : {}),
	};
	const workflow = new Workflow({
		id: 'test-workflow',
		nodes: [node],
		connections: {},
		active: false,
		nodeTypes: new NodeTypes(),
	});

	const hooks = new ExecutionLifecycleHooks('manual', 'test-execution', {
		id: 'test-workflow',
		name: 'test',
		active: false,
		isArchived: false,
		nodes: [node],
		connections: {},
		createdAt: new Date(),
		updatedAt: new Date(),
	} as never);
	const finished = createDeferredPromise<IRun>();
	hooks.addHandler('workflowExecuteAfter', (run) => finished.resolve(run));

	const additionalData = {
		hooks,
		credentialsHelper: new TestCredentialsHelper(options.credentials),
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

	const runExecutionData: IRunExecutionData = {
		startData: {},
		resultData: { runData: {} },
		executionData: {
			contextData: {},
			metadata: {},
			nodeExecutionStack: [{ node, data: { main: [options.items ?? [{ json: {} }]] }, source: null }],
			waitingExecution: {},
			waitingExecutionSource: null,
		},
	} as IRunExecutionData;

	await new WorkflowExecute(additionalData, 'manual', runExecutionData).processRunExecutionData(workflow);
	const run = await finished.promise;
	const taskData = run.data.resultData.runData[node.name]?.[0];
	return {
		outputs: (taskData?.data?.main ?? []).map((items) => items ?? []),
		error: (taskData?.error ?? run.data.resultData.error) as RunResult['error'],
		run,
	};
}
