/**
 * Dry Run in a real n8n, on every version claimed: the same input run dry and for real gives,
 * byte for byte, what the simulator received; a dry run sends nothing on any path n8n runs the
 * node (manual, Retry On Fail with Batching, Execute Once, an AI Agent's tool, a schedule, the
 * recipe examples/crm-check-dry-run.json with its Data Table); the key is in no output.
 */
import type { RecordedRequest } from '../simulator';
import {
	API_KEY,
	expectSuccess,
	itemsNode,
	manualTrigger,
	outputOf,
	pairedIndex,
	readExamples,
	requestedVersions,
	simulatorCredential,
	useImportedN8n,
	useSimulatorProcess,
	voiceAssistant,
	workflow,
	type NodeSpec,
	type Workflow,
} from './helpers';
import {
	AGENT_SETUPS,
	agentWorkflow,
	openAiCredential,
	startCallTool,
	useFakeModel,
} from './agents';
import { toolResults } from '../../tools/fake-openai';
import type { N8nItem } from '../../tools/n8n';
import { poll } from '../../tools/processes';

const sim = useSimulatorProcess();
const model = useFakeModel();

const KB_IDS = ['6650a1b2c3d4e5f6a7b8c9d0', '6650a1b2c3d4e5f6a7b8c9d1'];
const contacts = [
	{
		id: 'c-1',
		first_name: 'Ada',
		last_name: 'Lovelace',
		phone: '+14155550101',
		email: 'ada@example.com',
	},
	{
		id: 'c 2/ü?&',
		first_name: 'Ünal',
		last_name: "O'Hara",
		phone: 14155550102,
		lead_status: 'new',
	},
];
const bad = { id: '', first_name: ' ', last_name: null, phone: '+1' };

/** Each operation, with input that takes its every path (Input Columns, JSON pairs, phone lists, By ID / From list). */
const CASES: Array<{ key: string; items: object[]; parameters: Record<string, unknown> }> = [
	{
		key: 'List',
		items: [{}],
		parameters: {
			resource: 'assistant',
			operation: 'getAll',
			returnAll: true,
			filters: { type: 'outbound' },
		},
	},
	{
		key: 'Call',
		items: [
			{ phones: '+14155550100, +14155550101', mode: 'id' },
			{ phones: ['+14155550102'], mode: 'list' },
		],
		parameters: {
			resource: 'playgroundCall',
			operation: 'start',
			assistant: { __rl: true, mode: 'id', value: '6650b7c1e4a2f9d3b8c10a01' },
			dialerId: 'dialer-7',
			firstName: 'Ada',
			lastName: 'Lovelace',
			email: 'ada@example.com',
			phoneNumbers: '={{ $json.phones }}',
		},
	},
	{
		key: 'CallFromList',
		items: [{ phones: '+14155550103' }],
		parameters: {
			resource: 'playgroundCall',
			operation: 'start',
			assistant: {
				__rl: true,
				mode: 'list',
				value: '6650b7c1e4a2f9d3b8c10a01',
				cachedResultName: 'Maya',
			},
			dialerId: 'dialer-7',
			firstName: 'Grace',
			lastName: 'Hopper',
			email: 'grace@example.com',
			phoneNumbers: '={{ $json.phones }}',
		},
	},
	{
		key: 'KbCreate',
		items: [{ title: 'Hours', pairs: [{ question: 'Open?', answer: '9 to 5' }] }],
		parameters: {
			resource: 'knowledgeBase',
			operation: 'create',
			title: '={{ $json.title }}',
			language: 'en',
			qaInputMode: 'json',
			questionsAndAnswersJson: '={{ $json.pairs }}',
		},
	},
	{
		key: 'KbUpdate',
		items: KB_IDS.map((kb) => ({ kb })),
		parameters: {
			resource: 'knowledgeBase',
			operation: 'update',
			knowledgeBaseId: '={{ $json.kb }}',
			title: 'FAQ',
			language: 'en',
			qaInputMode: 'list',
			questionsAndAnswers: { pairs: [{ question: 'Price?', answer: '€10' }] },
		},
	},
	{
		key: 'Manual',
		items: contacts,
		parameters: {
			resource: 'segmentContact',
			operation: 'update',
			contactId: '={{ $json.id }}',
			contactFirstName: '={{ $json.first_name }}',
			contactLastName: '={{ $json.last_name }}',
			phone: '={{ $json.phone }}',
			additionalFields: { email: '={{ $json.email }}', leadStatus: '={{ $json.lead_status }}' },
		},
	},
	{
		key: 'Auto',
		items: contacts.map(({ id, first_name, ...rest }) => ({
			'Record ID': id,
			name: { first: first_name },
			...rest,
		})),
		parameters: {
			resource: 'segmentContact',
			operation: 'update',
			mappingMode: 'auto',
			inputColumns: { id: 'Record ID', first_name: 'name.first' },
		},
	},
];

const NODE = 'Voice Assistant';
const chain = (id: string, items: object[], node: NodeSpec): Workflow =>
	workflow(id, `e2e: dry run ${id}`, [manualTrigger(), itemsNode('Input', items), node]);

const caseWorkflows = CASES.flatMap(({ key, items, parameters }) => [
	chain(`vaE2eDry${key}`, items, voiceAssistant(NODE, { ...parameters, dryRun: true })),
	chain(`vaE2eReal${key}`, items, voiceAssistant(NODE, parameters)),
]);
const auto = { resource: 'segmentContact', operation: 'update', mappingMode: 'auto', dryRun: true };
const mixed = [contacts[0], bad, { ...contacts[1], id: 'c-2' }];
const pathWorkflows = [
	chain(
		'vaE2eDryRetry',
		mixed,
		voiceAssistant(
			NODE,
			{ ...auto, requestOptions: { batching: { batch: { batchSize: 1, batchInterval: 100 } } } },
			{ retryOnFail: true, maxTries: 3, waitBetweenTries: 0 },
		),
	),
	chain('vaE2eDryOnce', mixed, voiceAssistant(NODE, auto, { executeOnce: true })),
];
const toolWorkflows = AGENT_SETUPS.map((setup, i) => {
	const startCall = startCallTool();
	return agentWorkflow(
		`vaE2eDryAgent${i}`,
		`e2e: dry run agent ${i}`,
		setup,
		[manualTrigger()],
		'Call Ada.',
		[{ ...startCall, parameters: { ...startCall.parameters, dryRun: true } }],
	);
});
const recipe = readExamples().find((example) => example.id === 'vaExDryRunCheck1') as Workflow;

/** What a dry run shows, as the bytes the simulator would record: method, target, headers, body. */
function shownBytes(item: N8nItem): string {
	const request = item.json.request as {
		method: string;
		url: string;
		headers: Record<string, string>;
		body?: unknown;
	};
	const url = new URL(request.url);
	expect(url.origin).toBe(sim().url);
	const body = request.body === undefined ? '' : JSON.stringify(request.body);
	return JSON.stringify([request.method, url.pathname + url.search, request.headers, body]);
}

function receivedBytes(request: RecordedRequest, headers: Record<string, string>): string {
	const sent = Object.fromEntries(
		Object.keys(headers).map((name) => [name, request.headers[name.toLowerCase()]]),
	);
	return JSON.stringify([request.method, request.target, sent, request.rawBody]);
}

describe.each(requestedVersions())('n8n %s: Dry Run', (version) => {
	const { n8n, execute, requests } = useImportedN8n(sim, version, () => ({
		credentials: [simulatorCredential(sim().url), openAiCredential(model())],
		workflows: [...caseWorkflows, ...pathWorkflows, ...toolWorkflows],
	}));

	/** Runs a dry workflow: it succeeds, the simulator received nothing, the key is in no output. */
	async function dry(id: string, node = NODE): Promise<N8nItem[]> {
		const { run } = expectSuccess(await execute(id));
		expect(await requests()).toEqual([]);
		expect(JSON.stringify(run.data.resultData.runData)).not.toContain(API_KEY);
		return outputOf(run, node);
	}

	test.each(CASES.map(({ key }) => key))(
		'%s: the dry output is byte for byte what a real run sends',
		async (key) => {
			const items = await dry(`vaE2eDry${key}`);
			expect(items.map((item) => [item.json.valid, pairedIndex(item)])).toEqual(
				items.map((_item, index) => [true, index]),
			);
			expectSuccess(await execute(`vaE2eReal${key}`));
			const received = await requests();
			expect(received).toHaveLength(items.length);
			const headers = (items[0].json.request as { headers: Record<string, string> }).headers;
			expect(received.map((request) => receivedBytes(request, headers)).sort()).toEqual(
				items.map(shownBytes).sort(),
			);
		},
	);

	test('Retry On Fail with Batching, and Execute Once: no request, every item reported', async () => {
		const items = await dry('vaE2eDryRetry');
		expect(items.map((item) => [item.json.valid, pairedIndex(item)])).toEqual([
			[true, 0],
			[false, 1],
			[true, 2],
		]);
		expect(
			(items[1].json.problems as Array<{ message: string }>).map((found) => found.message),
		).toEqual([
			'"Contact ID" is required',
			'"first_name" (First Name) must not be blank',
			'"last_name" (Last Name) is required',
		]);
		const once = await dry('vaE2eDryOnce');
		expect(once.map((item) => item.json.valid)).toEqual([true]);
	});

	test.each(AGENT_SETUPS.map((setup, i) => [setup.label, i] as const))(
		'as an AI Agent tool (%s): the model reads the request it would have made',
		async (_label, i) => {
			const args = {
				assistant_id: '6650b7c1e4a2f9d3b8c10a01',
				first_name: 'Ada',
				last_name: 'Lovelace',
				email: 'ada@example.com',
				phone_numbers: '+14155550101',
			};
			model().script([
				{ toolCalls: [{ name: 'Start_playground_call', arguments: args }] },
				{ content: 'Done.' },
			]);
			expectSuccess(await execute(`vaE2eDryAgent${i}`));
			expect(await requests()).toEqual([]);
			const asked = model().requests();
			const results = toolResults(asked[asked.length - 1]).map(({ content }) =>
				JSON.parse(String(content)),
			);
			expect(results).toEqual([
				[
					{
						dryRun: true,
						valid: true,
						request: {
							method: 'POST',
							url: `${sim().url}/api/v1/playground/call`,
							headers: { Accept: 'application/json', 'Content-Type': 'application/json' },
							body: {
								first_name: 'Ada',
								last_name: 'Lovelace',
								email: 'ada@example.com',
								assistant_id: '6650b7c1e4a2f9d3b8c10a01',
								dialer_id: 'dialer-main',
								phone_number: ['+14155550101'],
							},
						},
					},
				],
			]);
			expect(JSON.stringify(asked)).not.toContain(API_KEY);
		},
	);

	describe('the recipe: check the CRM export before the nightly run', () => {
		let projectId: string;
		let tableId: string;
		let workflowId: string;
		let saved: Workflow;
		const tableApi = (suffix = '') => `/rest/projects/${projectId}/data-tables/${tableId}${suffix}`;

		beforeAll(async () => {
			projectId = (await n8n().api.call('GET', '/rest/projects/personal')).id;
			const table = await n8n().api.call('POST', `/rest/projects/${projectId}/data-tables`, {
				name: `crm_check_problems_${Date.now()}`,
				columns: [
					{ name: 'contact_id', type: 'string' },
					{ name: 'problems', type: 'string' },
				],
			});
			tableId = table.id;
			const copy: Workflow = JSON.parse(JSON.stringify(recipe));
			for (const node of copy.nodes.filter((each) => each.type === 'n8n-nodes-base.dataTable'))
				node.parameters.dataTableId = { __rl: true, mode: 'id', value: tableId };
			saved = copy;
			workflowId = await n8n().saveWorkflow(copy);
		});

		afterAll(async () => {
			await n8n().api.send('DELETE', tableApi());
		});

		async function problemRows() {
			const answer = await n8n().api.call('GET', `${tableApi('/rows')}?take=100`);
			return (answer.data as Array<Record<string, string>>)
				.map(({ contact_id, problems }) => ({ contact_id, problems }))
				.sort((a, b) => a.contact_id.localeCompare(b.contact_id));
		}

		const EXPECTED = [
			{ contact_id: '', problems: '"Contact ID" is required' },
			{
				contact_id: 'crm-2002',
				problems: '"first_name" (First Name) is required; "phone" (Phone) is required',
			},
		];

		test('Manual Trigger: the invalid contacts, each with every problem, in the Data Table; nothing sent', async () => {
			const run = await n8n().api.runManually(workflowId, 'Check now');
			expect([run.status, run.data.resultData.error]).toEqual(['success', undefined]);
			expect(outputOf(run, 'Check each contact (Dry Run)').map((item) => item.json.valid)).toEqual([
				true,
				false,
				true,
				false,
				true,
			]);
			expect(await problemRows()).toEqual(EXPECTED);
			expect(await requests()).toEqual([]);
		});

		test('Schedule Trigger: n8n runs it by itself, nothing is sent', async () => {
			const scheduled: Workflow = JSON.parse(JSON.stringify(saved));
			const trigger = scheduled.nodes.find(
				(node) => node.type === 'n8n-nodes-base.scheduleTrigger',
			);
			if (!trigger) throw new Error('the recipe has no Schedule Trigger');
			trigger.parameters = { rule: { interval: [{ field: 'seconds', secondsInterval: 2 }] } };
			scheduled.id = 'vaE2eDrySchedule';
			const scheduledId = await n8n().saveWorkflow(scheduled);
			await n8n().api.activate(scheduledId);
			const rows = await poll(
				'a scheduled execution',
				async () => {
					const all = await n8n().api.executions(scheduledId);
					const done = all.filter((row) => row.status !== 'running' && row.status !== 'new');
					return done.length ? done : undefined;
				},
				{ timeoutMs: 90_000, everyMs: 500 },
			);
			await n8n().api.deactivate(scheduledId);
			expect([rows[0].mode, rows[0].status]).toEqual(['trigger', 'success']);
			const run = await n8n().api.finished(rows[0].id);
			expect(outputOf(run, 'Only the invalid ones').map(pairedIndex)).toEqual([1, 3]);
			expect(await requests()).toEqual([]);
		});
	});
});
