/**
 * Dry Run (shared/dryRun.ts): every item comes out as the request a real run would send, or as
 * every problem it has; nothing reaches the service, and the key is in no output. The same input
 * run dry and for real gives, byte for byte, what the simulator received.
 */
import type { IDataObject, INodeExecutionData } from 'n8n-workflow';
import { SEEDED_KNOWLEDGE_BASE_IDS, type RecordedRequest } from './simulator';
import { useSimulator } from './helpers/simulator';
import { callAsTool, nodeRuns, runNode, type RunOptions } from './helpers/runNode';
import {
	API_KEY,
	knowledgeBaseListParameters,
	playgroundCallParameters,
	segmentContactParameters,
} from './helpers/fixtures';

const sim = useSimulator();
const credentials = () => ({ apiKey: API_KEY, baseUrl: sim().url });

type Run = Omit<RunOptions, 'credentials'>;

async function dryRun(options: Run) {
	const result = await runNode({
		...options,
		parameters: { ...options.parameters, dryRun: true },
		credentials: credentials(),
	});
	expect(sim().requests).toEqual([]);
	expect(JSON.stringify([result.outputs, result.error])).not.toContain(API_KEY);
	return result;
}

/** A request as bytes: method, request target (path and query), the given headers, the body. */
function asSent(method: string, target: string, headers: IDataObject, rawBody: string): string {
	return JSON.stringify([method, target, headers, rawBody]);
}

function fromDryRun(item: INodeExecutionData): string {
	const request = item.json.request as IDataObject;
	const url = new URL(request.url as string);
	expect(url.origin).toBe(sim().url);
	const body = request.body === undefined ? '' : JSON.stringify(request.body);
	return asSent(
		request.method as string,
		request.url as string,
		request.headers as IDataObject,
		body,
	);
}

function fromSimulator(request: RecordedRequest, shownHeaders: IDataObject): string {
	const headers = Object.fromEntries(
		Object.keys(shownHeaders).map((name) => [name, request.headers[name.toLowerCase()]]),
	);
	return asSent(request.method, `${sim().url}${request.target}`, headers, request.rawBody);
}

const contacts = [
	{
		id: 'c-1',
		first_name: 'Ada',
		last_name: 'Lovelace',
		phone: '+14155550101',
		email: 'ada@example.com',
	},
	{
		id: 2,
		first_name: 'Grace',
		last_name: "O'Hara (née Hopper)",
		phone: 14155550102,
		lead_status: 'new',
	},
	{ id: 'c 3/ü?&', first_name: 'Ünal', last_name: 'Şahin', phone: '+49 30 1234', job_title: '' },
];
const crmRows = contacts.map((contact) => ({
	'Record ID': contact.id,
	properties: { firstname: contact.first_name },
	'Last Name': contact.last_name,
	phone: contact.phone,
}));
const qaItems = [
	{ json: { title: 'Hours', pairs: [{ question: 'Open?', answer: '9 to 5', extra: 1 }] } },
	{
		json: { title: 'Prices "2026"', pairs: JSON.stringify([{ question: 'Cost?', answer: '€10' }]) },
	},
];

const CASES: Array<[string, Run]> = [
	[
		'Assistant → Get Many, filtered',
		{
			parameters: {
				resource: 'assistant',
				operation: 'getAll',
				returnAll: false,
				limit: 2,
				filters: { language: 'de' },
			},
			items: [{ json: {} }, { json: {} }],
		},
	],
	[
		'Playground Call → Start, By ID, a comma-separated list',
		{ parameters: playgroundCallParameters },
	],
	[
		'Playground Call → Start, From list, phone lists from expressions',
		{
			parameters: {
				...playgroundCallParameters,
				assistant: {
					__rl: true,
					mode: 'list',
					value: '6650b7c1e4a2f9d3b8c10a02',
					cachedResultName: 'Lukas',
				},
				phoneNumbers: '={{ $json.phones }}',
				firstName: '={{ $json.name }}',
			},
			items: [
				{ json: { name: 'One', phones: ['+14155550100', 14155550101] } },
				{ json: { name: 'Two', phones: '["+14155550102"]' } },
				{ json: { name: 'Three', phones: '+1 415 555 0103;\n+14155550104' } },
			],
		},
	],
	['Knowledge Base → Create, list', { parameters: knowledgeBaseListParameters }],
	[
		'Knowledge Base → Create, Q&A pairs from JSON',
		{
			parameters: {
				...knowledgeBaseListParameters,
				title: '={{ $json.title }}',
				qaInputMode: 'json',
				questionsAndAnswersJson: '={{ $json.pairs }}',
			},
			items: qaItems,
		},
	],
	[
		'Knowledge Base → Update',
		{
			parameters: {
				...knowledgeBaseListParameters,
				operation: 'update',
				knowledgeBaseId: '={{ $json.kb }}',
			},
			items: Object.values(SEEDED_KNOWLEDGE_BASE_IDS).map((kb) => ({ json: { kb } })),
		},
	],
	[
		'Segment Contact → Update, Map Each Field Manually',
		{
			parameters: {
				...segmentContactParameters,
				contactId: '={{ $json.id }}',
				contactFirstName: '={{ $json.first_name }}',
				contactLastName: '={{ $json.last_name }}',
				phone: '={{ $json.phone }}',
				additionalFields: { email: '={{ $json.email }}', leadStatus: '={{ $json.lead_status }}' },
			},
			items: contacts.map((json) => ({ json })),
		},
	],
	[
		'Segment Contact → Update, Map Automatically',
		{
			parameters: { resource: 'segmentContact', operation: 'update', mappingMode: 'auto' },
			items: contacts.map((json) => ({ json })),
		},
	],
	[
		'Segment Contact → Update, Map Automatically with Input Columns',
		{
			parameters: {
				resource: 'segmentContact',
				operation: 'update',
				mappingMode: 'auto',
				inputColumns: {
					id: 'Record ID',
					first_name: 'properties.firstname',
					last_name: 'Last Name',
				},
			},
			items: crmRows.map((json) => ({ json })),
		},
	],
];

describe('a dry run shows, byte for byte, what a real run sends', () => {
	it.each(CASES)('%s', async (_name, options) => {
		const dry = await dryRun(options);
		expect(dry.error).toBeUndefined();
		const items = dry.outputs[0];
		const count = (options.items ?? [{ json: {} }]).length;
		expect(items.map((item) => [item.json.valid, item.pairedItem])).toEqual(
			Array.from({ length: count }, (_, index) => [true, { item: index }]),
		);
		const real = await runNode({ ...options, credentials: credentials() });
		expect(real.error).toBeUndefined();
		const received = sim().requests;
		expect(received).toHaveLength(count);
		const shown = items.map(fromDryRun);
		const sent = received.map((request, index) =>
			fromSimulator(request, (items[index].json.request as IDataObject).headers as IDataObject),
		);
		expect([...sent].sort()).toEqual([...shown].sort());
	});

	it('shows the method, the full URL with its query, the headers and the JSON body, never the key', async () => {
		const { outputs } = await dryRun({ parameters: segmentContactParameters });
		expect(outputs[0]).toEqual([
			{
				json: {
					dryRun: true,
					valid: true,
					request: {
						method: 'PUT',
						url: `${sim().url}/api/v1/segment/contact/update?id=contact-42`,
						headers: { Accept: 'application/json', 'Content-Type': 'application/json' },
						body: { first_name: 'Grace', last_name: 'Hopper', phone: '+14155550123' },
					},
				},
				pairedItem: { item: 0 },
			},
		]);
	});
});

describe('a dry run reports every problem of every invalid item and goes on', () => {
	const manual = {
		...segmentContactParameters,
		contactId: '={{ $json.id }}',
		contactFirstName: '={{ $json.first_name }}',
		contactLastName: '={{ $json.last_name }}',
		phone: '={{ $json.phone }}',
	};

	it('pairs each item with its request or its problems: field, label, rule, value', async () => {
		const { outputs, error } = await dryRun({
			parameters: manual,
			items: [
				{ json: contacts[0] },
				{ json: { id: '', first_name: '  ', last_name: null, phone: 42 } },
				{ json: contacts[2] },
				{ json: { id: 'c-4', first_name: 'Only', last_name: 'Phone', phone: ['x'] } },
			],
		});
		expect(error).toBeUndefined();
		expect(outputs[0].map((item) => [item.json.valid, item.pairedItem])).toEqual([
			[true, { item: 0 }],
			[false, { item: 1 }],
			[true, { item: 2 }],
			[false, { item: 3 }],
		]);
		expect(outputs[0][1].json).toEqual({
			dryRun: true,
			valid: false,
			problems: [
				{
					field: 'Contact ID',
					rule: 'is required',
					value: '',
					message: '"Contact ID" is required',
				},
				{
					field: 'first_name',
					label: 'First Name',
					rule: 'must not be blank',
					value: '  ',
					message: '"first_name" (First Name) must not be blank',
				},
				{
					field: 'last_name',
					label: 'Last Name',
					rule: 'is required',
					value: null,
					message: '"last_name" (Last Name) is required',
				},
			],
		});
		expect(outputs[0][3].json.problems).toEqual([
			{
				field: 'phone',
				label: 'Phone',
				rule: 'must be text',
				value: ['x'],
				message: '"phone" (Phone) must be text',
			},
		]);
	});

	it("an item whose expression fails ends it: n8n's own loop stops there (n8n 2.8 here)", async () => {
		const { outputs, error } = await dryRun({
			parameters: {
				...manual,
				contactFirstName: "={{ $json.first_name ?? $('Nope').item.json.first_name }}",
			},
			items: [{ json: contacts[0] }, { json: { id: 'c-2', last_name: 'Hopper', phone: '1' } }],
		});
		await Promise.all(nodeRuns);
		expect(error?.message).toMatch(/Referenced node/);
		expect(outputs).toEqual([]);
	});

	it('a real run of the same input fails on the first invalid item with the same problems, sending nothing', async () => {
		const { error } = await runNode({
			parameters: manual,
			items: [{ json: { id: '', first_name: '  ', last_name: null, phone: '1' } }],
			credentials: credentials(),
		});
		expect(error?.message).toBe('Invalid input: "Contact ID" is required (and 2 more) [item 0]');
		expect(error?.description).toBe(
			'Nothing was sent for this item. Problems found:\n- "Contact ID" is required\n- "first_name" (First Name) must not be blank\n- "last_name" (Last Name) is required',
		);
		expect(sim().requests).toEqual([]);
	});

	it('Q&A pairs from JSON that does not parse: that problem and the other fields’ problems, the text cut', async () => {
		const text = `[{"question": "${'q'.repeat(300)}"`;
		const { outputs } = await dryRun({
			parameters: {
				...knowledgeBaseListParameters,
				title: '={{ "" }}',
				qaInputMode: 'json',
				questionsAndAnswersJson: text,
			},
		});
		const problems = outputs[0][0].json.problems as IDataObject[];
		expect(problems.map((found) => [found.field, found.rule])).toEqual([
			['data', expect.stringMatching(/^is not valid JSON \(/)],
			['title', 'is required'],
		]);
		expect(problems[0].label).toBe('Questions and Answers (JSON)');
		expect(problems[0].value).toBe(`${text.slice(0, 200)}… (${text.length} characters)`);
	});

	it('Get Many: every wrong parameter', async () => {
		const { outputs } = await dryRun({
			parameters: {
				resource: 'assistant',
				operation: 'getAll',
				returnAll: false,
				limit: 0,
				filters: { type: 'sideways', language: 'xx' },
			},
		});
		expect((outputs[0][0].json.problems as IDataObject[]).map((found) => found.message)).toEqual([
			'"Limit" must be a whole number of at least 1',
			'"Filters → Type" must be one of: inbound, outbound',
			expect.stringMatching(/^"Filters → Language" must be one of: en, /),
		]);
	});

	it('a Base URL that cannot be used is a problem of every item, not a failure', async () => {
		const { outputs, error } = await runNode({
			parameters: { ...playgroundCallParameters, dryRun: true },
			items: [{ json: {} }, { json: {} }],
			credentials: { apiKey: API_KEY, baseUrl: 'http://api.example.com' },
		});
		expect(error).toBeUndefined();
		expect(outputs[0].map((item) => (item.json.problems as IDataObject[])[0].field)).toEqual([
			'Base URL',
			'Base URL',
		]);
	});

	it('the API key found in an item is redacted from the request shown and from the problems', async () => {
		const { outputs } = await dryRun({
			parameters: manual,
			items: [
				{ json: { ...contacts[0], first_name: `Key ${API_KEY}` } },
				{ json: { ...contacts[0], last_name: [API_KEY] } },
			],
		});
		expect((outputs[0][0].json.request as IDataObject).body).toMatchObject({
			first_name: 'Key [redacted]',
		});
		expect((outputs[0][1].json.problems as IDataObject[])[0].value).toEqual(['[redacted]']);
	});
});

describe('nothing is sent on any path n8n runs the node', () => {
	const items = [{ json: contacts[0] }, { json: { id: 'x' } }, { json: contacts[2] }];
	const auto = { resource: 'segmentContact', operation: 'update', mappingMode: 'auto' };
	const valid = (outputs: INodeExecutionData[][]) => outputs[0].map((item) => item.json.valid);

	it.each<[string, Partial<Run>]>([
		['Continue On Fail', { continueOnFail: true }],
		['Retry On Fail', { retryOnFail: { maxTries: 3, waitBetweenTries: 1 } }],
		['the error output', { onError: 'continueErrorOutput' }],
	])('%s: every item on the main output, in order', async (_name, settings) => {
		const { outputs, error } = await dryRun({ parameters: auto, items, ...settings });
		expect(error).toBeUndefined();
		expect(valid(outputs)).toEqual([true, false, true]);
		expect(outputs[1] ?? []).toEqual([]);
	});

	it('Batching: no request, and the batches’ pauses are n8n’s alone', async () => {
		const requestOptions = { batching: { batch: { batchSize: 1, batchInterval: 50 } } };
		const { outputs, error } = await dryRun({ parameters: { ...auto, requestOptions }, items });
		expect(error).toBeUndefined();
		expect(valid(outputs)).toEqual([true, false, true]);
	});

	it('Execute Once: the first item only', async () => {
		const { outputs } = await dryRun({ parameters: auto, items, executeOnce: true });
		expect(valid(outputs)).toEqual([true]);
	});

	it('as an AI Agent tool: the model reads the request it would have made, or the problems', async () => {
		const answers = await callAsTool({
			parameters: {
				...playgroundCallParameters,
				dryRun: true,
				phoneNumbers: "={{ $fromAI('phone', 'The phone number', 'string') }}",
			},
			credentials: credentials(),
			calls: [{ phone: '+14155550100' }, { phone: '' }],
		});
		expect(sim().requests).toEqual([]);
		expect(JSON.parse(answers[0])).toEqual([
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
						dialer_id: 'dialer-7',
						phone_number: ['+14155550100'],
					},
				},
			},
		]);
		expect(JSON.parse(answers[1])[0].problems[0].message).toBe(
			'"phone_number" (Phone Numbers) must hold at least one phone number',
		);
		expect(answers.join('')).not.toContain(API_KEY);
	});
});
