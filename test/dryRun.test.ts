/**
 * Dry Run (shared/dryRun.ts): every item comes out as the request a real run would send, or as
 * every problem it has; nothing reaches the service, and the key is in no output. The same input
 * run dry and for real gives, byte for byte, what the simulator received.
 */
import type { IDataObject, INodeExecutionData, INodeParameters } from 'n8n-workflow';
import { SEEDED_KNOWLEDGE_BASE_IDS, type RecordedRequest } from './simulator';
import { useSimulator } from './helpers/simulator';
import { callAsTool, runNode, type RunOptions } from './helpers/runNode';
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
	expect(JSON.stringify(result)).not.toContain(API_KEY);
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
