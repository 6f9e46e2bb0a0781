/**
 * The node as a tool of n8n's AI Agent, in a real n8n and offline: the agent's OpenAI Chat
 * Model talks to a scripted model on 127.0.0.1 (tools/fake-openai.js) through an OpenAI
 * credential whose Base URL points at it, and the tools talk to the API simulator. Each test
 * checks what the simulator received, what the model was given as tool results, and that the
 * API key never reaches the model.
 *
 * Two set-ups (agents.ts): AI Agent 2.2 with the model node 1.2 (Chat Completions), and AI
 * Agent 3 with the model node 1.3 (Responses API). Tool calls one after another keep the
 * credential's Rate Limit: each is a run of its own, and the account's rate holds across them.
 */
import {
	API_KEY,
	CONTACT_PATH,
	CREDENTIAL_TYPE,
	MAYA,
	manualTrigger,
	outputOf,
	readExamples,
	requestedVersions,
	simulatorCredential,
	startedManually,
	expectSuccess,
	useImportedN8n,
	useSimulatorProcess,
	type Workflow,
} from './helpers';
import {
	AGENT,
	AGENT_SETUPS,
	MODEL,
	OPENAI_CREDENTIAL,
	OPENAI_KEY,
	UPDATE_CONTACT_PARAMETERS,
	agentWorkflow,
	openAiCredential,
	startCallTool,
	tool,
	useFakeModel,
} from './agents';
import { toolResults, type ModelRequest, type Reply } from '../../tools/fake-openai';

const sim = useSimulatorProcess();
const model = useFakeModel();

const listAssistants = tool('List assistants', 'Lists the voice assistants of the account.', {
	resource: 'assistant',
	operation: 'getAll',
	returnAll: true,
});
const startCall = startCallTool();
const updateContact = tool(
	'Update contact',
	'Updates a contact of a segment.',
	UPDATE_CONTACT_PARAMETERS,
);

/** The same tool with a credential of the same account that sets its Rate Limit: 1 request a second. */
const RATED_CREDENTIAL = { id: 'vaSimulatorRated1', name: 'Voice Assistant (simulator, rated)' };
const ratedUpdateContact = {
	...updateContact,
	credentials: { [CREDENTIAL_TYPE]: RATED_CREDENTIAL },
};

const CALL_PROMPT =
	'Have an English assistant call Ada Lovelace, ada@example.com, +14155550101 and +14155550102.';
const CONTACT_PROMPT = 'Update the contacts crm-404 and crm-9001: Ada Lovelace, +14155550101.';

const suiteWorkflows = AGENT_SETUPS.flatMap((setup, i) => [
	agentWorkflow(
		`vaE2eAgentCall${i}`,
		`e2e: agent (${setup.label})`,
		setup,
		[manualTrigger()],
		CALL_PROMPT,
		[listAssistants, startCall],
	),
	agentWorkflow(
		`vaE2eAgentFail${i}`,
		`e2e: agent (${setup.label})`,
		setup,
		[manualTrigger()],
		CONTACT_PROMPT,
		[updateContact],
	),
	agentWorkflow(
		`vaE2eAgentRate${i}`,
		`e2e: agent, rated credential (${setup.label})`,
		setup,
		[manualTrigger()],
		CONTACT_PROMPT,
		[ratedUpdateContact],
	),
]);

// The example, started by hand with the message its chat trigger would get, its model with a credential.
const example = readExamples().find((wf) => wf.id === 'vaExAgentTools01') as Workflow;
const exampleCopy = startedManually(example, 'vaE2eXAgent', 'When chat message received', [
	{ sessionId: 'e2e-session', action: 'sendMessage', chatInput: CALL_PROMPT },
]);
const exampleModel = exampleCopy.nodes.find((node) => node.name === MODEL);
if (exampleModel) exampleModel.credentials = { openAiApi: OPENAI_CREDENTIAL };

/** The text of every request the model received: the API key must never be in it. */
const everythingTheModelGot = (requests: ModelRequest[]) =>
	JSON.stringify(requests.map(({ headers, body }) => ({ headers, body })));

/** The tool results of the model's last request, parsed where they are JSON text. */
function lastToolResults(requests: ModelRequest[]): unknown[] {
	return toolResults(requests[requests.length - 1]).map(({ content }) => {
		try {
			return JSON.parse(String(content));
		} catch {
			return content;
		}
	});
}

const CALL = {
	first_name: 'Ada',
	last_name: 'Lovelace',
	email: 'ada@example.com',
	phone_number: ['+14155550101', '+14155550102'],
	assistant_id: MAYA,
	dialer_id: 'dialer-main',
};
const CALL_SCRIPT: Reply[] = [
	{ toolCalls: [{ name: 'List_assistants', arguments: {} }] },
	{
		toolCalls: [
			{
				name: 'Start_playground_call',
				arguments: {
					assistant_id: MAYA,
					first_name: 'Ada',
					last_name: 'Lovelace',
					email: 'ada@example.com',
					phone_numbers: '+14155550101, +14155550102',
				},
			},
		],
	},
	{ content: 'Maya is calling Ada Lovelace now.' },
];

describe.each(requestedVersions())('n8n %s: the node as an AI Agent tool', (version) => {
	const { execute, requests } = useImportedN8n(sim, version, () => ({
		credentials: [
			simulatorCredential(sim().url),
			{
				...RATED_CREDENTIAL,
				type: CREDENTIAL_TYPE,
				data: { apiKey: API_KEY, baseUrl: sim().url, rateLimit: 1 },
			},
			openAiCredential(model()),
		],
		workflows: [...suiteWorkflows, exampleCopy],
	}));

	afterEach(() => {
		expect(everythingTheModelGot(model().requests())).not.toContain(API_KEY);
	});

	/** Runs an agent workflow with the model's script; the script must be used up. */
	async function runAgent(id: string, script: Reply[]) {
		model().script(script);
		const result = expectSuccess(await execute(id));
		expect(model().remaining()).toBe(0);
		return result;
	}

	/** The agent listed the assistants, then started the call with the model's arguments. */
	async function expectListThenCall(modelPath: string) {
		const received = await requests();
		expect(received.map((request) => `${request.method} ${request.path}`)).toEqual([
			'GET /api/v1/user/listAssistant',
			'POST /api/v1/playground/call',
		]);
		expect(received[0]).toMatchObject({ query: {}, rawBody: '' });
		expect(received[1].query).toEqual({});
		for (const request of received) expect(request.headers['x-api-key']).toBe(API_KEY);
		expect(received[1].headers['content-type']).toBe('application/json');
		expect(JSON.parse(received[1].rawBody)).toStrictEqual(CALL);

		const asked = model().requests();
		expect(asked.map((request) => `${request.method} ${request.path}`)).toEqual(
			Array(3).fill(`POST ${modelPath}`),
		);
		expect(asked.every((request) => request.headers.authorization === `Bearer ${OPENAI_KEY}`)).toBe(
			true,
		);
		const { assistants } = await sim().data();
		const [listed, call] = lastToolResults(asked) as [Array<{ id: string }>, unknown[]];
		expect(listed.map((assistant) => assistant.id)).toEqual(
			assistants.map((assistant) => assistant._id),
		);
		expect(call).toEqual([CALL]);
	}

	describe.each(AGENT_SETUPS.map((setup, i) => [setup.label, setup, i] as const))(
		'%s',
		(_label, setup, i) => {
			test('the agent lists the assistants, then starts a playground call with the arguments the model chose', async () => {
				const { run } = await runAgent(`vaE2eAgentCall${i}`, CALL_SCRIPT);
				await expectListThenCall(setup.path);
				// The model was offered both tools, with the $fromAI() keys as their arguments.
				const offered = model().requests()[0].body.tools as Array<Record<string, any>>;
				const schemas = Object.fromEntries(
					offered.map((entry) => {
						const fn = entry.function ?? entry;
						return [fn.name, Object.keys(fn.parameters.properties).sort()];
					}),
				);
				expect(schemas).toEqual({
					List_assistants: [],
					Start_playground_call: [
						'assistant_id',
						'email',
						'first_name',
						'last_name',
						'phone_numbers',
					],
				});
				expect(outputOf(run, AGENT).map((item) => item.json.output)).toEqual([
					'Maya is calling Ada Lovelace now.',
				]);
			});

			test('one agent run: a call answered 404, an invalid call, then a good call; the model reads each failure', async () => {
				await sim().failNext({
					status: 404,
					method: 'PUT',
					path: CONTACT_PATH,
					body: { message: 'Contact not found' },
				});
				const contact = { first_name: 'Ada', last_name: 'Lovelace', phone: '+14155550101' };
				const update = (args: Record<string, string>): Reply => ({
					toolCalls: [{ name: 'Update_contact', arguments: args }],
				});
				await runAgent(`vaE2eAgentFail${i}`, [
					update({ contact_id: 'crm-404', ...contact }),
					update({ contact_id: 'crm-9001', ...contact, phone: '   ' }),
					update({ contact_id: 'crm-9001', ...contact }),
					{ content: 'crm-9001 is updated; crm-404 was not found.' },
				]);

				// Both valid calls were sent (the invalid one was not), and the second one was applied.
				const received = await requests();
				expect(
					received.map((request) => [
						request.method,
						request.path,
						request.query.id,
						request.status,
					]),
				).toEqual([
					['PUT', CONTACT_PATH, 'crm-404', 404],
					['PUT', CONTACT_PATH, 'crm-9001', 200],
				]);
				for (const request of received) {
					expect(request.headers).toMatchObject({
						'x-api-key': API_KEY,
						'content-type': 'application/json',
					});
					expect(JSON.parse(request.rawBody)).toStrictEqual(contact);
				}
				expect((await sim().ledger()).applied.map((entry) => entry.id)).toEqual(['crm-9001']);

				// Each failure reached the model as text saying what failed, in time for its next step.
				const asked = model().requests();
				expect(asked).toHaveLength(4);
				expect(lastToolResults(asked)).toEqual([
					[
						{
							error:
								'No segment contact with ID "crm-404" was found (HTTP 404)\n\nDetails: Contact not found',
						},
					],
					[
						{
							error:
								'Invalid input: "phone" (Phone) must not be blank\n\n' +
								'Details: Nothing was sent for this item. Problems found:\n- "phone" (Phone) must not be blank',
						},
					],
					[{ id: 'crm-9001', message: 'Contact updated successfully.' }],
				]);
				expect(toolResults(asked[1])).toHaveLength(1);
			});

			test("tool calls one after another keep the credential's Rate Limit (1 a second): each waits for the last one's second", async () => {
				const contact = { first_name: 'Ada', last_name: 'Lovelace', phone: '+14155550101' };
				const update = (id: string): Reply => ({
					toolCalls: [{ name: 'Update_contact', arguments: { contact_id: id, ...contact } }],
				});
				await runAgent(`vaE2eAgentRate${i}`, [
					update('crm-1'),
					update('crm-2'),
					update('crm-3'),
					{ content: 'Updated.' },
				]);
				const received = await requests();
				expect(received.map((request) => [request.query.id, request.status])).toEqual([
					['crm-1', 200],
					['crm-2', 200],
					['crm-3', 200],
				]);
				// Each starts a second after the one before ended: a second later at the service, at least.
				const times = received.map((request) => request.arrivedAt);
				for (let k = 1; k < times.length; k++)
					expect(times[k] - times[k - 1]).toBeGreaterThanOrEqual(1000);
			});
		},
	);

	test('the example workflow (agent with two Voice Assistant tools), its chat message given by hand', async () => {
		const { run } = await runAgent('vaE2eXAgent', CALL_SCRIPT);
		await expectListThenCall('/v1/chat/completions');
		expect(model().requests()[0].body.messages.slice(-1)[0]).toEqual({
			role: 'user',
			content: CALL_PROMPT,
		});
		expect(outputOf(run, AGENT).map((item) => item.json.output)).toEqual([
			'Maya is calling Ada Lovelace now.',
		]);
	});
});
