import { SEEDED_KNOWLEDGE_BASE_IDS } from './simulator';
import { useSimulator } from './helpers/simulator';
import { runNode } from './helpers/runNode';
import {
	API_KEY,
	knowledgeBaseListParameters,
	playgroundCallParameters,
	segmentContactParameters,
} from './helpers/fixtures';
import { assistantSchema } from './helpers/assistantSchema';
import { VoiceAssistant } from '../nodes/VoiceAssistant/VoiceAssistant.node';
import {
	shownProperties,
	valuesMissedByAutoMapping,
	valuesMissedByManualMapping,
} from './helpers/shownFields';

const sim = useSimulator();
const credentials = () => ({ apiKey: API_KEY, baseUrl: sim().url });

function onlyRequest() {
	expect(sim().requests).toHaveLength(1);
	return sim().requests[0];
}

describe('Assistant → Get Many', () => {
	it('sends GET /api/v1/user/listAssistant with the key and no body, one item per assistant', async () => {
		const { outputs, error } = await runNode({
			parameters: { resource: 'assistant', operation: 'getAll', returnAll: true },
			credentials: credentials(),
		});
		expect(error).toBeUndefined();
		const request = onlyRequest();
		expect(request).toMatchObject({
			method: 'GET',
			path: '/api/v1/user/listAssistant',
			query: {},
			rawBody: '',
		});
		expect(request.headers['x-api-key']).toBe(API_KEY);
		expect(request.headers.accept).toBe('application/json');
		expect(request.headers['content-type']).toBeUndefined();
		expect(outputs[0]).toHaveLength(sim().data.assistants.length);
		expect(outputs[0][0]).toEqual({
			json: {
				id: '6650b7c1e4a2f9d3b8c10a01',
				name: 'Maya',
				type: 'outbound',
				language: 'en',
				company_name: 'Brightline Solar',
				voice_name: 'Maya (American English)',
				voice_id: 'vc-en-us-female-01',
				accent: 'American',
				ai_model_id: '64f1a2b3c4d5e6f708192a3b',
				knowledge_base_Id: SEEDED_KNOWLEDGE_BASE_IDS.solarFaq,
			},
			pairedItem: { item: 0 },
		});
	});

	it('returns the whole assistant when Simplify is off', async () => {
		const { outputs } = await runNode({
			parameters: { resource: 'assistant', operation: 'getAll', returnAll: true, simplify: false },
			credentials: credentials(),
		});
		expect(outputs[0].map((item) => item.json)).toEqual(sim().data.assistants);
	});

	it('filters by type and language and applies the limit on the client', async () => {
		const all = sim().data.assistants;
		const { outputs } = await runNode({
			parameters: {
				resource: 'assistant',
				operation: 'getAll',
				returnAll: true,
				filters: { type: 'outbound' },
			},
			credentials: credentials(),
		});
		expect(outputs[0].map((item) => item.json.name)).toEqual(
			all.filter((a) => a.type === 'outbound').map((a) => a.name),
		);

		const german = await runNode({
			parameters: {
				resource: 'assistant',
				operation: 'getAll',
				returnAll: true,
				filters: { language: 'de' },
			},
			credentials: credentials(),
		});
		expect(german.outputs[0].map((item) => item.json.language)).toEqual(
			all.filter((a) => a.language === 'de').map(() => 'de'),
		);

		const limited = await runNode({
			parameters: { resource: 'assistant', operation: 'getAll', returnAll: false, limit: 2 },
			credentials: credentials(),
		});
		expect(limited.outputs[0]).toHaveLength(2);
		expect(sim().requests.every((r) => Object.keys(r.query).length === 0)).toBe(true);
	});

	it('keeps an assistant whose identifier has none of the known names, saying so, when simplifying', async () => {
		const [maya, lukas] = sim().data.assistants;
		const renamed = Object.fromEntries(
			Object.entries(lukas).map(([key, value]) => [key === '_id' ? 'uuid' : key, value]),
		);
		sim().failNext({ status: 200, body: [maya, renamed] });
		const { outputs, error } = await runNode({
			parameters: { resource: 'assistant', operation: 'getAll', returnAll: true },
			credentials: credentials(),
		});
		expect(error).toBeUndefined();
		expect(outputs[0].map((item) => item.json.id)).toEqual([maya._id, undefined]);
		expect(outputs[0][1].json).toEqual({
			name: lukas.name,
			type: lukas.type,
			language: lukas.language,
			company_name: lukas.company_name,
			voice_name: lukas.voice_name,
			voice_id: lukas.voice_id,
			accent: lukas.accent,
			ai_model_id: lukas.ai_model_id,
			...(lukas.knowledge_base_Id ? { knowledge_base_Id: lukas.knowledge_base_Id } : {}),
			notice:
				'No id: the service sent none of the fields _id, id, assistant_id, assistantId for this assistant. Turn off Simplify to see every field it sent.',
		});
		expect(outputs[0][0].json).not.toHaveProperty('notice');
	});

	it('reads a base URL given with a trailing slash or the /api/v1 prefix', async () => {
		for (const baseUrl of [
			`${sim().url}/`,
			`${sim().url}/api/v1`,
			`${sim().url}/api/v1/`,
			` ${sim().url} `,
		]) {
			sim().reset();
			const { error } = await runNode({
				parameters: { resource: 'assistant', operation: 'getAll' },
				credentials: { apiKey: API_KEY, baseUrl },
			});
			expect(error).toBeUndefined();
			expect(onlyRequest().path).toBe('/api/v1/user/listAssistant');
		}
	});

	it('seeded assistants follow the spec (the simulator and the schemas read the spec alike)', () => {
		for (const assistant of sim().data.assistants) {
			expect(assistantSchema.safeParse(assistant).error).toBeUndefined();
		}
	});
});

describe('Playground Call → Start', () => {
	it('POSTs the six fields as JSON and outputs the echoed call', async () => {
		const { outputs, error } = await runNode({
			parameters: playgroundCallParameters,
			credentials: credentials(),
		});
		expect(error).toBeUndefined();
		const request = onlyRequest();
		const expectedBody = {
			first_name: 'Ada',
			last_name: 'Lovelace',
			email: 'ada@example.com',
			phone_number: ['+14155550100', '+14155550101'],
			assistant_id: '6650b7c1e4a2f9d3b8c10a01',
			dialer_id: 'dialer-7',
		};
		expect(request).toMatchObject({
			method: 'POST',
			path: '/api/v1/playground/call',
			query: {},
			status: 200,
		});
		expect(request.headers['x-api-key']).toBe(API_KEY);
		expect(request.headers['content-type']).toBe('application/json');
		expect(request.headers.accept).toBe('application/json');
		expect(JSON.parse(request.rawBody)).toEqual(expectedBody);
		expect(outputs[0]).toEqual([{ json: expectedBody, pairedItem: { item: 0 } }]);
	});

	it('takes the assistant from the picker (list mode) like from an ID', async () => {
		await runNode({
			parameters: {
				...playgroundCallParameters,
				assistant: {
					__rl: true,
					mode: 'list',
					value: '6650b7c1e4a2f9d3b8c10a02',
					cachedResultName: 'Jonas',
				},
			},
			credentials: credentials(),
		});
		expect((onlyRequest().body as { assistant_id: string }).assistant_id).toBe(
			'6650b7c1e4a2f9d3b8c10a02',
		);
	});

	it('maps fields from each input item with expressions, one call per item, paired in order', async () => {
		const items = [
			{ json: { first: 'Ada', phones: ['+111'] } },
			{ json: { first: 'Alan', phones: '+222; +333' } },
		];
		const { outputs } = await runNode({
			parameters: {
				...playgroundCallParameters,
				firstName: '={{ $json.first }}',
				phoneNumbers: '={{ $json.phones }}',
			},
			items,
			credentials: credentials(),
		});
		const bodies = sim().requests.map(
			(r) => r.body as { first_name: string; phone_number: string[] },
		);
		expect(bodies.map((b) => [b.first_name, b.phone_number]).sort()).toEqual([
			['Ada', ['+111']],
			['Alan', ['+222', '+333']],
		]);
		expect(outputs[0].map((item) => [item.json.first_name, item.pairedItem])).toEqual([
			['Ada', { item: 0 }],
			['Alan', { item: 1 }],
		]);
	});
});

describe('Knowledge Base → Create / Update', () => {
	const expectedData = [
		{ question: 'When are you open?', answer: '9 to 5, Monday to Friday.' },
		{ question: 'Do you open on holidays?', answer: 'No.' },
	];

	it('creates from the list of pairs in the UI', async () => {
		const { outputs, error } = await runNode({
			parameters: knowledgeBaseListParameters,
			credentials: credentials(),
		});
		expect(error).toBeUndefined();
		const request = onlyRequest();
		expect(request).toMatchObject({
			method: 'POST',
			path: '/api/v1/knowledgeBase/create',
			query: {},
		});
		expect(request.headers['content-type']).toBe('application/json');
		expect(request.headers['x-api-key']).toBe(API_KEY);
		expect(JSON.parse(request.rawBody)).toEqual({
			title: 'Opening hours',
			language: 'en',
			data: expectedData,
		});
		expect(outputs[0]).toEqual([
			{
				json: { title: 'Opening hours', language: 'en', data: expectedData },
				pairedItem: { item: 0 },
			},
		]);
	});

	it('creates from JSON given by an expression (e.g. after an Aggregate node), ignoring other keys', async () => {
		const rows = expectedData.map((pair, i) => ({ ...pair, row_number: i + 2 }));
		await runNode({
			parameters: {
				...knowledgeBaseListParameters,
				qaInputMode: 'json',
				questionsAndAnswersJson: '={{ $json.data }}',
			},
			items: [{ json: { data: rows } }],
			credentials: credentials(),
		});
		expect(JSON.parse(onlyRequest().rawBody)).toEqual({
			title: 'Opening hours',
			language: 'en',
			data: expectedData,
		});
	});

	it('creates from JSON text typed in the editor', async () => {
		await runNode({
			parameters: {
				...knowledgeBaseListParameters,
				qaInputMode: 'json',
				questionsAndAnswersJson: JSON.stringify(expectedData),
			},
			credentials: credentials(),
		});
		expect((onlyRequest().body as { data: unknown }).data).toEqual(expectedData);
	});

	it('updates with PUT ?id=… and echoes the id', async () => {
		const id = SEEDED_KNOWLEDGE_BASE_IDS.workshopHours;
		const { outputs } = await runNode({
			parameters: { ...knowledgeBaseListParameters, operation: 'update', knowledgeBaseId: id },
			credentials: credentials(),
		});
		const request = onlyRequest();
		expect(request).toMatchObject({
			method: 'PUT',
			path: '/api/v1/knowledgeBase/update',
			query: { id },
			status: 200,
		});
		expect(request.headers['content-type']).toBe('application/json');
		expect(JSON.parse(request.rawBody)).toEqual({
			title: 'Opening hours',
			language: 'en',
			data: expectedData,
		});
		expect(outputs[0]).toEqual([
			{
				json: { id, title: 'Opening hours', language: 'en', data: expectedData },
				pairedItem: { item: 0 },
			},
		]);
	});
});

describe('Segment Contact → Update', () => {
	it('PUTs the required fields with ?id=… and echoes the id with the message', async () => {
		const { outputs, error } = await runNode({
			parameters: segmentContactParameters,
			credentials: credentials(),
		});
		expect(error).toBeUndefined();
		const request = onlyRequest();
		expect(request).toMatchObject({
			method: 'PUT',
			path: '/api/v1/segment/contact/update',
			query: { id: 'contact-42' },
		});
		expect(request.headers['content-type']).toBe('application/json');
		expect(request.headers['x-api-key']).toBe(API_KEY);
		expect(JSON.parse(request.rawBody)).toEqual({
			first_name: 'Grace',
			last_name: 'Hopper',
			phone: '+14155550123',
		});
		expect(outputs[0]).toEqual([
			{
				json: { id: 'contact-42', message: 'Contact updated successfully.' },
				pairedItem: { item: 0 },
			},
		]);
	});

	it('sends the additional fields that are filled and leaves out empty ones', async () => {
		await runNode({
			parameters: {
				...segmentContactParameters,
				additionalFields: {
					email: 'grace@example.com',
					description: 'Met at the fair',
					jobTitle: 'Rear Admiral',
					lifecycleStage: 'lead',
					leadStatus: '',
				},
			},
			credentials: credentials(),
		});
		expect(JSON.parse(onlyRequest().rawBody)).toEqual({
			first_name: 'Grace',
			last_name: 'Hopper',
			phone: '+14155550123',
			email: 'grace@example.com',
			description: 'Met at the fair',
			job_title: 'Rear Admiral',
			lifecycle_stage: 'lead',
		});
	});

	it('updates one contact per input item (a CRM batch), each output paired with its row', async () => {
		const rows = Array.from({ length: 25 }, (_, i) => ({
			json: { crmId: `c-${i}`, first: `First${i}`, last: `Last${i}`, phone: 4915100000 + i },
		}));
		const { outputs } = await runNode({
			parameters: {
				...segmentContactParameters,
				contactId: '={{ $json.crmId }}',
				contactFirstName: '={{ $json.first }}',
				contactLastName: '={{ $json.last }}',
				phone: '={{ $json.phone }}',
			},
			items: rows,
			credentials: credentials(),
		});
		expect(sim().requests).toHaveLength(25);
		expect(outputs[0]).toHaveLength(25);
		outputs[0].forEach((item, i) => {
			expect(item.pairedItem).toEqual({ item: i });
			expect(item.json.id).toBe(`c-${i}`);
		});
		const request = sim().requests.find((r) => r.query.id === 'c-7');
		expect(request?.body).toEqual({
			first_name: 'First7',
			last_name: 'Last7',
			phone: String(4915100007),
		});
	});

	it('maps automatically from input items named as the API names the fields', async () => {
		const rows = [
			{
				json: {
					id: 'c-1',
					first_name: 'Ada',
					last_name: 'Lovelace',
					phone: '+1',
					email: 'ada@example.com',
					crm_owner: 'x',
				},
			},
			{
				json: {
					id: 2,
					first_name: 'Alan',
					last_name: 'Turing',
					phone: 4915100000,
					job_title: '',
					lead_status: 'new',
				},
			},
		];
		const { outputs } = await runNode({
			parameters: { resource: 'segmentContact', operation: 'update', mappingMode: 'auto' },
			items: rows,
			credentials: credentials(),
		});
		const byId = Object.fromEntries(sim().requests.map((r) => [r.query.id, r.body]));
		expect(byId).toEqual({
			'c-1': { first_name: 'Ada', last_name: 'Lovelace', phone: '+1', email: 'ada@example.com' },
			'2': { first_name: 'Alan', last_name: 'Turing', phone: '4915100000', lead_status: 'new' },
		});
		expect(outputs[0].map((item) => [item.json.id, item.pairedItem])).toEqual([
			['c-1', { item: 0 }],
			['2', { item: 1 }],
		]);
	});
	it("maps automatically from a CRM export's own column names, typed once under Input Columns (dotted paths read nested fields)", async () => {
		const rows = [
			{
				json: {
					'Record ID': 5001,
					'First Name': 'Ada',
					'Last Name': 'Lovelace',
					'Phone Number': '+14155550100',
					Email: '',
					'Lifecycle Stage': 'lead',
					first_name: 'not me',
				},
			},
			{
				json: {
					'Record ID': 'r-2',
					'First Name': 'Alan',
					'Last Name': 'Turing',
					'Phone Number': 4915100000,
					owner: { title: 'CTO' },
				},
			},
		];
		const { outputs, error } = await runNode({
			parameters: {
				resource: 'segmentContact',
				operation: 'update',
				mappingMode: 'auto',
				inputColumns: {
					id: 'Record ID',
					first_name: 'First Name',
					last_name: ' Last Name ',
					phone: 'Phone Number',
					email: 'Email',
					lifecycle_stage: 'Lifecycle Stage',
					job_title: 'owner.title',
					lead_status: '',
				},
			},
			items: rows,
			credentials: credentials(),
		});
		expect(error).toBeUndefined();
		const sent = sim().requests.map((r) => [r.method, r.path, r.query, r.body] as const);
		expect(sent.sort((a, b) => String(a[2].id).localeCompare(String(b[2].id)))).toEqual([
			[
				'PUT',
				'/api/v1/segment/contact/update',
				{ id: '5001' },
				{
					first_name: 'Ada',
					last_name: 'Lovelace',
					phone: '+14155550100',
					lifecycle_stage: 'lead',
				},
			],
			[
				'PUT',
				'/api/v1/segment/contact/update',
				{ id: 'r-2' },
				{ first_name: 'Alan', last_name: 'Turing', phone: '4915100000', job_title: 'CTO' },
			],
		]);
		expect(outputs[0].map((item) => item.pairedItem)).toEqual([{ item: 0 }, { item: 1 }]);
	});

	it('a column named under Input Columns that the input lacks fails the item naming the field, and sends nothing', async () => {
		const { error } = await runNode({
			parameters: {
				resource: 'segmentContact',
				operation: 'update',
				mappingMode: 'auto',
				inputColumns: { first_name: 'Given Name' },
			},
			items: [{ json: { id: 'c-1', 'First Name': 'Ada', last_name: 'Lovelace', phone: '+1' } }],
			credentials: credentials(),
		});
		expect(error?.message).toMatch(/"first_name" \(First Name\).*\[item 0\]/);
		expect(sim().requests).toHaveLength(0);
	});
});

describe('fields of the bulk operations', () => {
	// n8n 2.41 evaluates a field with its own routing twice more per item (its base-URL check):
	// these operations read their fields in preSend, through their field tables.
	const operations = [
		['playgroundCall', 'start'],
		['segmentContact', 'update'],
	];
	const run = { node: () => new VoiceAssistant(), sim };

	it.each(operations)(
		'%s → %s: no field it shows has routing of its own',
		(resource, operation) => {
			const shown = shownProperties(new VoiceAssistant(), resource, operation);
			expect(shown.length).toBeGreaterThan(3);
			for (const property of shown) {
				expect([property.name, 'routing' in property]).toEqual([property.name, false]);
				for (const option of (property.options ?? []) as Array<{ routing?: unknown; name: string }>)
					expect([option.name, option.routing]).toEqual([option.name, undefined]);
			}
		},
	);

	it.each(operations)(
		"%s → %s: every field it shows, each of Additional Fields' options too, reaches the request",
		async (resource, operation) => {
			expect(await valuesMissedByManualMapping(run, resource, operation)).toEqual([]);
		},
	);

	it("Segment Contact → Update, Map Automatically: each of Input Columns' fields reaches the request, from the column it names or the API's name; the mode's description lists each", async () => {
		expect(await valuesMissedByAutoMapping(run, 'segmentContact', 'update')).toEqual([]);
		const shown = shownProperties(new VoiceAssistant(), 'segmentContact', 'update');
		const modes = shown.find((property) => property.name === 'mappingMode')?.options as Array<{
			value: string;
			description: string;
		}>;
		const auto = modes.find((mode) => mode.value === 'auto')?.description ?? '';
		const columns = shown.find((property) => property.name === 'inputColumns')?.options ?? [];
		const listed = /\(([^)]*)\)/.exec(auto)?.[1].replace('and optionally ', '').split(', ');
		expect(listed?.sort()).toEqual(columns.map((option) => option.name).sort());
	});
});
