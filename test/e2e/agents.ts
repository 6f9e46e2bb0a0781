/**
 * The node as a tool of n8n's AI Agent, offline: the agent's OpenAI Chat Model talks to a
 * scripted model on 127.0.0.1 (tools/fake-openai.js) through an OpenAI credential whose Base URL
 * points at it. The two set-ups, the fake model and the agent workflow of agent.e2e.test.ts and
 * flow-control.e2e.test.ts.
 *
 * Both set-ups are real in n8n 1.123.50 and 2.8.4: AI Agent 2.2 with the model node 1.2 (Chat
 * Completions; the example workflow's), where n8n calls the tool inside the agent, and AI Agent
 * 3 with the model node 1.3 (Responses API), where the engine runs the tool node.
 */
import { startFakeOpenAi, type FakeOpenAi } from '../../tools/fake-openai';
import { TOOL_NODE_TYPE, voiceAssistant, workflow, type NodeSpec, type Workflow } from './helpers';
import type { CredentialSpec } from './session';

export const AGENT = 'AI Agent';
export const MODEL = 'OpenAI Chat Model';
export const OPENAI_KEY = 'sk-e2e-fake-model-key-7d1e';
export const OPENAI_CREDENTIAL = { id: 'vaFakeOpenAi001', name: 'OpenAI (fake model)' };

export interface AgentSetup {
	label: string;
	agentVersion: number;
	modelVersion: number;
	/** The model API the model node calls in this set-up. */
	path: string;
}
export const AGENT_SETUPS: AgentSetup[] = [
	{
		label: 'AI Agent 2.2, model node 1.2',
		agentVersion: 2.2,
		modelVersion: 1.2,
		path: '/v1/chat/completions',
	},
	{
		label: 'AI Agent 3, model node 1.3',
		agentVersion: 3,
		modelVersion: 1.3,
		path: '/v1/responses',
	},
];

/** The fake model for the test file, started before its tests and stopped after them; returns a getter. */
export function useFakeModel(): () => FakeOpenAi {
	let model: FakeOpenAi | undefined;
	beforeAll(async () => {
		model = await startFakeOpenAi();
	});
	afterAll(async () => {
		await model?.stop();
	});
	return () => model as FakeOpenAi;
}

/** The OpenAI credential whose Base URL points at the fake model. */
export const openAiCredential = (model: FakeOpenAi): CredentialSpec => ({
	...OPENAI_CREDENTIAL,
	type: 'openAiApi',
	data: { apiKey: OPENAI_KEY, url: model.baseUrl },
});

/** A parameter the model fills in: `$fromAI()`. */
export const fromAi = (key: string, description: string) =>
	`={{ $fromAI('${key}', '${description}', 'string') }}`;

/** This package's node as an agent's tool, described by hand. */
export const tool = (
	name: string,
	description: string,
	parameters: Record<string, unknown>,
): NodeSpec =>
	voiceAssistant(
		name,
		{ descriptionType: 'manual', toolDescription: description, ...parameters },
		{ type: TOOL_NODE_TYPE },
	);

/**
 * `before` (a trigger, and what feeds the agent) → AI Agent asked `prompt`, with its OpenAI
 * Chat Model and `tools` as its tools.
 */
export function agentWorkflow(
	id: string,
	name: string,
	setup: AgentSetup,
	before: NodeSpec[],
	prompt: string,
	tools: NodeSpec[],
): Workflow {
	const agent: NodeSpec = {
		name: AGENT,
		type: '@n8n/n8n-nodes-langchain.agent',
		typeVersion: setup.agentVersion,
		parameters: { promptType: 'define', text: prompt, options: {} },
	};
	const model: NodeSpec = {
		name: MODEL,
		type: '@n8n/n8n-nodes-langchain.lmChatOpenAi',
		typeVersion: setup.modelVersion,
		parameters: { model: { __rl: true, mode: 'id', value: 'gpt-4o-mini' }, options: {} },
		credentials: { openAiApi: OPENAI_CREDENTIAL },
	};
	const wf = workflow(id, name, [...before, agent, model, ...tools]);
	// workflow() chains the nodes: the model and the tools connect to the agent instead.
	delete wf.connections[AGENT];
	wf.connections[MODEL] = {
		ai_languageModel: [[{ node: AGENT, type: 'ai_languageModel', index: 0 }]],
	};
	for (const each of tools)
		wf.connections[each.name] = { ai_tool: [[{ node: AGENT, type: 'ai_tool', index: 0 }]] };
	return wf;
}

/** Playground Call → Start's parameters as a tool: every field from the model ($fromAI) but the dialer. */
export const START_CALL_PARAMETERS = {
	resource: 'playgroundCall',
	operation: 'start',
	assistant: { __rl: true, mode: 'id', value: fromAi('assistant_id', 'The id of the assistant') },
	dialerId: 'dialer-main',
	firstName: fromAi('first_name', 'First name'),
	lastName: fromAi('last_name', 'Last name'),
	email: fromAi('email', 'Email address'),
	phoneNumbers: fromAi('phone_numbers', 'Phone numbers, separated by commas'),
};

/** Segment Contact → Update's parameters as a tool: every field from the model ($fromAI). */
export const UPDATE_CONTACT_PARAMETERS = {
	resource: 'segmentContact',
	operation: 'update',
	contactId: fromAi('contact_id', 'The id of the contact'),
	contactFirstName: fromAi('first_name', 'First name'),
	contactLastName: fromAi('last_name', 'Last name'),
	phone: fromAi('phone', 'Phone number'),
};

/** Playground Call → Start as a tool. */
export const startCallTool = (extra: Partial<NodeSpec> = {}): NodeSpec => ({
	...tool('Start playground call', 'Has a voice assistant call a person.', START_CALL_PARAMETERS),
	...extra,
});
