/**
 * The package inside a real n8n, for every pinned version: installed from the packed tarball
 * the way the Community Nodes screen does it, workflows saved and run as the editor runs them
 * against the API simulator, then the output items and the requests the simulator received
 * are checked. Prepared by globalSetup.js (build, pack, cached n8n installs, one `n8n start`
 * per version).
 */
import fs from 'fs';
import path from 'path';
import { SEEDED_KNOWLEDGE_BASE_IDS } from '../simulator';
import type { RecordedRequest } from '../simulator';
import {
	API_KEY,
	CONTACT_PATH,
	CREDENTIAL,
	CREDENTIAL_TYPE,
	MAYA,
	NODE_TYPE,
	TOOL_NODE_TYPE,
	byKey,
	codeNode,
	itemsNode,
	manualTrigger,
	outputOf,
	pairedIndex,
	readExamples,
	requestedVersions,
	startedManually,
	voiceAssistant,
	workflow,
	type Workflow,
	type WorkflowNode,
	simulatorCredential,
	expectSuccess,
	useImportedN8n,
	useSimulatorProcess,
} from './helpers';
import { installDir } from '../../tools/n8n';
import { PACKAGE_NAME } from '../../tools/package-names';

const SIMPLIFIED_KEYS = [
	...['id', 'name', 'type', 'language', 'company_name'],
	...['voice_name', 'voice_id', 'accent', 'ai_model_id', 'knowledge_base_Id'],
];

const sim = useSimulatorProcess();

// ---------------------------------------------------------------------------------------------
// The suite's own workflows: one per operation, a validation failure, Continue On Fail, bulk.
// ---------------------------------------------------------------------------------------------

const contactParameters = {
	resource: 'segmentContact',
	operation: 'update',
	contactId: '={{ $json.id }}',
	contactFirstName: '={{ $json.first_name }}',
	contactLastName: '={{ $json.last_name }}',
	phone: '={{ $json.phone }}',
};

const FAQ = [
	{ question: 'What are your opening hours?', answer: 'Monday to Friday, 9am to 5pm.' },
	{ question: 'Do you work on weekends?', answer: 'Only for emergencies.' },
];

const CONTACTS = [
	{
		id: 'crm-2001',
		first_name: 'Ada',
		last_name: 'Lovelace',
		phone: '+14155550101',
		email: 'ada@example.com',
		description: 'Met at the fair',
		job_title: 'CTO',
		lifecycle_stage: 'customer',
		lead_status: 'connected',
	},
	{
		id: 'crm-2002',
		first_name: 'Grace',
		last_name: 'Hopper',
		phone: '+14155550102',
		...{ email: '', description: '', job_title: '', lifecycle_stage: '', lead_status: '' },
	},
	{
		id: 'crm-2003',
		first_name: 'Alan',
		last_name: 'Turing',
		phone: 14155550103,
		email: 'alan@example.com',
	},
];

/**
 * Manual Trigger → Ada Lovelace, Grace Hopper and Alan Turing as contacts `${prefix}1` to 3,
 * with these phone numbers → Segment Contact → Update (with these node settings).
 */
function contactsWorkflow(
	id: string,
	name: string,
	prefix: string,
	phones: string[],
	settings: Partial<WorkflowNode> = {},
): Workflow {
	const people = [
		['Ada', 'Lovelace'],
		['Grace', 'Hopper'],
		['Alan', 'Turing'],
	];
	const contacts = people.map(([first_name, last_name], i) => ({
		id: `${prefix}${i + 1}`,
		first_name,
		last_name,
		phone: phones[i],
	}));
	return workflow(id, name, [
		manualTrigger(),
		itemsNode('Contacts', contacts),
		voiceAssistant('Update', contactParameters, settings),
	]);
}

const suiteWorkflows: Workflow[] = [
	workflow(
		'vaE2eAssistants',
		'e2e: assistant get many',
		[
			manualTrigger(),
			voiceAssistant('All assistants', {
				resource: 'assistant',
				operation: 'getAll',
				returnAll: true,
			}),
			voiceAssistant('German, full', {
				resource: 'assistant',
				operation: 'getAll',
				returnAll: false,
				limit: 1,
				filters: { language: 'de' },
				simplify: false,
			}),
		],
		['All assistants', 'German, full'],
	),
	workflow('vaE2ePlayCall', 'e2e: playground call start', [
		manualTrigger(),
		itemsNode('People', [
			{
				first: 'Ada',
				last: 'Lovelace',
				email: 'ada@example.com',
				phones: '+14155550101, +14155550102',
			},
			{ first: 'Grace', last: 'Hopper', email: 'grace@example.com', phones: ['+14155550103'] },
		]),
		voiceAssistant('Call', {
			resource: 'playgroundCall',
			operation: 'start',
			assistant: { __rl: true, mode: 'list', value: MAYA, cachedResultName: 'Maya (outbound, en)' },
			dialerId: 'dialer-main',
			firstName: '={{ $json.first }}',
			lastName: '={{ $json.last }}',
			email: '={{ $json.email }}',
			phoneNumbers: '={{ $json.phones }}',
		}),
	]),
	workflow('vaE2eKbList', 'e2e: knowledge base create (list)', [
		manualTrigger(),
		voiceAssistant('Create', {
			resource: 'knowledgeBase',
			operation: 'create',
			title: 'Opening hours',
			language: 'en',
			qaInputMode: 'list',
			questionsAndAnswers: { pairs: FAQ },
		}),
	]),
	workflow('vaE2eKbJson', 'e2e: knowledge base create (JSON)', [
		manualTrigger(),
		codeNode(
			'FAQ sets',
			[
				`const faq = ${JSON.stringify(FAQ)};`,
				"return [{ json: { title: 'From a list', data: faq } },",
				"\t{ json: { title: 'From JSON text', data: JSON.stringify(faq) } }];",
			].join('\n'),
		),
		voiceAssistant('Create', {
			resource: 'knowledgeBase',
			operation: 'create',
			title: '={{ $json.title }}',
			language: 'en',
			qaInputMode: 'json',
			questionsAndAnswersJson: '={{ $json.data }}',
		}),
	]),
	workflow('vaE2eKbUpdate', 'e2e: knowledge base update', [
		manualTrigger(),
		voiceAssistant('Update', {
			resource: 'knowledgeBase',
			operation: 'update',
			knowledgeBaseId: SEEDED_KNOWLEDGE_BASE_IDS.workshopHours,
			title: 'Workshop hours (winter)',
			language: 'en',
			qaInputMode: 'list',
			questionsAndAnswers: { pairs: FAQ },
		}),
	]),
	workflow('vaE2eContacts', 'e2e: segment contact update', [
		manualTrigger(),
		itemsNode('Contacts', CONTACTS),
		voiceAssistant('Update', {
			...contactParameters,
			additionalFields: {
				email: '={{ $json.email }}',
				description: '={{ $json.description }}',
				jobTitle: '={{ $json.job_title }}',
				lifecycleStage: '={{ $json.lifecycle_stage }}',
				leadStatus: '={{ $json.lead_status }}',
			},
		}),
	]),
	contactsWorkflow('vaE2eInvalid', 'e2e: validation failure', 'crm-300', [
		'+14155550101',
		'',
		'+14155550103',
	]),
	contactsWorkflow(
		'vaE2eContinue',
		'e2e: continue on fail',
		'crm-400',
		['+14155550101', '+14155550102', '+14155550103'],
		{
			onError: 'continueRegularOutput',
		},
	),
	contactsWorkflow(
		'vaE2eErrOutput',
		'e2e: error output',
		'crm-500',
		['+14155550101', '', '+14155550103'],
		{
			onError: 'continueErrorOutput',
		},
	),
	workflow('vaE2eBulk500', 'e2e: 500 contact updates', [
		manualTrigger(),
		codeNode(
			'500 contacts',
			[
				'return Array.from({ length: 500 }, (_, i) => ({ json: {',
				"\tid: `bulk-${String(i).padStart(3, '0')}`,",
				'\tfirst_name: `First${i}`,',
				'\tlast_name: `Last${i}`,',
				"\tphone: `+1415555${String(i).padStart(4, '0')}`,",
				'} }));',
			].join('\n'),
		),
		voiceAssistant('Update', contactParameters),
	]),
];

// The examples, as shipped, plus copies that start from a Manual Trigger.
const examples = Object.fromEntries(
	readExamples().map((example) => [example.id, example]),
) as Record<string, Workflow>;
const FORM_SUBMISSION = {
	'First Name': 'Katherine',
	'Last Name': 'Johnson',
	Email: 'katherine@example.com',
	Phone: '+14155550104',
	submittedAt: '2026-01-05T09:30:00.000+00:00',
	formMode: 'test',
};
const exampleCopies = [
	startedManually(examples.vaExContactsSync, 'vaE2eXContacts', 'Every morning at 7', [
		{
			timestamp: '2026-01-05T07:00:00.000+00:00',
			'Readable date': 'January 5th 2026, 7:00:00 am',
			Hour: '07',
		},
	]),
	startedManually(examples.vaExFormToCall01, 'vaE2eXFormCall', 'Call request form', [
		FORM_SUBMISSION,
	]),
];

// ---------------------------------------------------------------------------------------------

describe.each(requestedVersions())('n8n %s', (version) => {
	const workflows = [...Object.values(examples), ...exampleCopies, ...suiteWorkflows];
	const { n8n, execute, requests } = useImportedN8n(sim, version, () => ({
		credentials: [simulatorCredential(sim().url)],
		workflows,
	}));
	const bodies = (list: RecordedRequest[]) => list.map((request) => JSON.parse(request.rawBody));

	test('the installed package resolves all its imports from itself or from n8n', () => {
		const packageDir = path.join(
			n8n().instance.userFolder,
			'.n8n',
			'nodes',
			'node_modules',
			PACKAGE_NAME,
		);
		const n8nDir = path.join(installDir(version), 'node_modules', 'n8n');
		const specifiers = new Set<string>();
		const walk = (dir: string): void => {
			for (const entry of fs.readdirSync(dir, { withFileTypes: true })) {
				const file = path.join(dir, entry.name);
				if (entry.isDirectory()) walk(file);
				else if (file.endsWith('.js')) {
					for (const [, spec] of fs
						.readFileSync(file, 'utf8')
						.matchAll(/require\("([^".][^"]*)"\)/g))
						specifiers.add(spec);
				}
			}
		};
		walk(path.join(packageDir, 'dist'));
		expect([...specifiers]).toEqual(expect.arrayContaining(['n8n-workflow']));
		// n8n puts its own node_modules on NODE_PATH for community packages (LoadNodesAndCredentials).
		const unresolved = [...specifiers].filter((spec) => {
			try {
				require.resolve(spec, { paths: [packageDir, n8nDir] });
				return false;
			} catch {
				return true;
			}
		});
		expect(unresolved).toEqual([]);
	});

	test('Assistant → Get Many: one GET, filtered, limited and simplified', async () => {
		const { run } = expectSuccess(await execute('vaE2eAssistants'));
		const { assistants } = await sim().data();

		const all = outputOf(run, 'All assistants');
		expect(all.map((item) => item.json.id)).toEqual(assistants.map((assistant) => assistant._id));
		for (const item of all) {
			expect(Object.keys(item.json).every((key) => SIMPLIFIED_KEYS.includes(key))).toBe(true);
			expect(item.pairedItem).toEqual({ item: 0 });
		}
		expect(all[0].json).toMatchObject({ id: MAYA, name: 'Maya', type: 'outbound', language: 'en' });

		const german = outputOf(run, 'German, full');
		const lukas = assistants.find((assistant) => assistant.language === 'de');
		expect(german).toHaveLength(1);
		expect(german[0].json).toEqual(lukas);

		const received = await requests();
		expect(received).toHaveLength(2);
		for (const request of received) {
			expect(request).toMatchObject({
				method: 'GET',
				path: '/api/v1/user/listAssistant',
				query: {},
				rawBody: '',
			});
			expect(request.headers['x-api-key']).toBe(API_KEY);
		}
	});

	test('Playground Call → Start: one POST per item with the exact JSON body', async () => {
		const { run } = expectSuccess(await execute('vaE2ePlayCall'));
		const call = { assistant_id: MAYA, dialer_id: 'dialer-main' };
		const expected = [
			{
				first_name: 'Ada',
				last_name: 'Lovelace',
				email: 'ada@example.com',
				phone_number: ['+14155550101', '+14155550102'],
				...call,
			},
			{
				first_name: 'Grace',
				last_name: 'Hopper',
				email: 'grace@example.com',
				phone_number: ['+14155550103'],
				...call,
			},
		];

		const received = await requests();
		expect(received).toHaveLength(2);
		for (const request of received) {
			expect(request).toMatchObject({ method: 'POST', path: '/api/v1/playground/call', query: {} });
			expect(request.headers['x-api-key']).toBe(API_KEY);
			expect(request.headers['content-type']).toBe('application/json');
		}
		expect(bodies(received).sort(byKey((body) => body.first_name))).toStrictEqual(expected);

		const output = outputOf(run, 'Call');
		expect(output.map((item) => [pairedIndex(item), item.json])).toEqual([
			[0, expected[0]],
			[1, expected[1]],
		]);
		const ledger = await sim().ledger();
		expect(ledger.applied.map((entry) => entry.op)).toEqual(['playground.call', 'playground.call']);
	});

	test('Knowledge Base → Create, list mode: the typed pairs become data', async () => {
		const { run } = expectSuccess(await execute('vaE2eKbList'));
		const expected = { title: 'Opening hours', language: 'en', data: FAQ };
		const received = await requests();
		expect(received).toHaveLength(1);
		expect(received[0]).toMatchObject({
			method: 'POST',
			path: '/api/v1/knowledgeBase/create',
			query: {},
		});
		expect(received[0].headers).toMatchObject({
			'x-api-key': API_KEY,
			'content-type': 'application/json',
		});
		expect(JSON.parse(received[0].rawBody)).toStrictEqual(expected);
		expect(outputOf(run, 'Create').map((item) => [pairedIndex(item), item.json])).toEqual([
			[0, expected],
		]);
		expect((await sim().ledger()).applied).toHaveLength(1);
	});

	test('Knowledge Base → Create, JSON mode: an array or JSON text from an expression', async () => {
		const { run } = expectSuccess(await execute('vaE2eKbJson'));
		const received = await requests();
		expect(received).toHaveLength(2);
		for (const request of received) {
			expect(request).toMatchObject({
				method: 'POST',
				path: '/api/v1/knowledgeBase/create',
				query: {},
			});
			expect(request.headers).toMatchObject({
				'x-api-key': API_KEY,
				'content-type': 'application/json',
			});
		}
		expect(bodies(received).sort(byKey((body) => body.title))).toStrictEqual([
			{ title: 'From a list', language: 'en', data: FAQ },
			{ title: 'From JSON text', language: 'en', data: FAQ },
		]);
		expect(outputOf(run, 'Create').map((item) => [pairedIndex(item), item.json.title])).toEqual([
			[0, 'From a list'],
			[1, 'From JSON text'],
		]);
	});

	test('Knowledge Base → Update: PUT with the id in the query; the record is replaced', async () => {
		const { run } = expectSuccess(await execute('vaE2eKbUpdate'));
		const id = SEEDED_KNOWLEDGE_BASE_IDS.workshopHours;
		const expected = { title: 'Workshop hours (winter)', language: 'en', data: FAQ };
		const received = await requests();
		expect(received).toHaveLength(1);
		expect(received[0]).toMatchObject({
			method: 'PUT',
			path: '/api/v1/knowledgeBase/update',
			query: { id },
		});
		expect(received[0].headers).toMatchObject({
			'x-api-key': API_KEY,
			'content-type': 'application/json',
		});
		expect(JSON.parse(received[0].rawBody)).toStrictEqual(expected);
		expect(outputOf(run, 'Update').map((item) => [pairedIndex(item), item.json])).toEqual([
			[0, { id, ...expected }],
		]);
		expect((await sim().data()).knowledgeBases[id]).toEqual(expected);
	});

	test('Segment Contact → Update: empty optional fields are not sent, numbers become text', async () => {
		const { run } = expectSuccess(await execute('vaE2eContacts'));
		const received = (await requests()).sort(byKey((request) => request.query.id));
		expect(received.map((request) => request.query)).toEqual([
			{ id: 'crm-2001' },
			{ id: 'crm-2002' },
			{ id: 'crm-2003' },
		]);
		for (const request of received) {
			expect(request).toMatchObject({ method: 'PUT', path: CONTACT_PATH });
			expect(request.headers).toMatchObject({
				'x-api-key': API_KEY,
				'content-type': 'application/json',
			});
		}
		expect(bodies(received)).toStrictEqual([
			{
				first_name: 'Ada',
				last_name: 'Lovelace',
				phone: '+14155550101',
				email: 'ada@example.com',
				description: 'Met at the fair',
				job_title: 'CTO',
				lifecycle_stage: 'customer',
				lead_status: 'connected',
			},
			{ first_name: 'Grace', last_name: 'Hopper', phone: '+14155550102' },
			{ first_name: 'Alan', last_name: 'Turing', phone: '14155550103', email: 'alan@example.com' },
		]);
		const output = outputOf(run, 'Update');
		expect(output.map((item) => [pairedIndex(item), item.json])).toEqual(
			CONTACTS.map((contact, i) => [
				i,
				{ id: contact.id, message: 'Contact updated successfully.' },
			]),
		);
	});

	test('invalid input fails the node with the field and the item named, and sends nothing', async () => {
		const { status, run } = await execute('vaE2eInvalid');
		expect(status).toBe('error');
		expect(run.data.resultData.lastNodeExecuted).toBe('Update');
		// Names the field (as the spec and the node UI call it) and the item; n8n reports item 0, not sent.
		expect(run.data.resultData.error?.message).toMatch(
			/^Not sent: item 1 failed first: Invalid input: "phone" \(Phone\) (is required|must not be empty) \[item 1\]$/,
		);
		expect(await requests()).toEqual([]);
		expect((await sim().ledger()).applied).toEqual([]);
	});

	test('Continue On Fail: the item answered 404 carries the error, the others succeed', async () => {
		await sim().failNext({
			status: 404,
			method: 'PUT',
			path: CONTACT_PATH,
			body: { message: 'Contact not found' },
		});
		const { run } = expectSuccess(await execute('vaE2eContinue'));

		const received = await requests();
		expect(received).toHaveLength(3);
		const failed = received.filter((request) => request.canned);
		expect(failed).toHaveLength(1);
		const failedId = failed[0].query.id;
		const ids = ['crm-4001', 'crm-4002', 'crm-4003'];
		expect(received.map((request) => request.query.id).sort()).toEqual(ids);

		const output = outputOf(run, 'Update');
		expect(output).toHaveLength(3);
		output.forEach((item, i) => {
			expect(pairedIndex(item)).toBe(i);
			if (ids[i] === failedId) {
				expect(item.json.error).toBe(
					`No segment contact with ID "${failedId}" was found (HTTP 404)`,
				);
			} else expect(item.json).toEqual({ id: ids[i], message: 'Contact updated successfully.' });
		});
		const ledger = await sim().ledger();
		expect(ledger.applied.map((entry) => entry.id).sort()).toEqual(
			ids.filter((id) => id !== failedId),
		);
	});

	test('error output: the invalid item goes to the error branch with its input row, nothing is sent for it', async () => {
		const { run } = expectSuccess(await execute('vaE2eErrOutput'));
		const received = await requests();
		expect(received.map((request) => request.query.id).sort()).toEqual(['crm-5001', 'crm-5003']);
		const [success, failure] = run.data.resultData.runData.Update[0].data?.main ?? [];
		expect(success.map((item) => [pairedIndex(item), item.json])).toEqual([
			[0, { id: 'crm-5001', message: 'Contact updated successfully.' }],
			[2, { id: 'crm-5003', message: 'Contact updated successfully.' }],
		]);
		expect(failure).toHaveLength(1);
		expect(pairedIndex(failure[0])).toBe(1);
		expect(failure[0].json).toMatchObject({
			id: 'crm-5002',
			first_name: 'Grace',
			last_name: 'Hopper',
		});
		expect(failure[0].json.error).toMatch(/^Invalid input: "phone" \(Phone\) .* \[item 1\]$/);
	});

	test('500 contact updates: 500 PUTs, each contact once, 500 paired output items', async () => {
		const { run } = expectSuccess(await execute('vaE2eBulk500'));
		const ids = Array.from({ length: 500 }, (_, i) => `bulk-${String(i).padStart(3, '0')}`);

		const received = await requests();
		expect(received).toHaveLength(500);
		expect(
			received.every((request) => request.method === 'PUT' && request.path === CONTACT_PATH),
		).toBe(true);
		expect(received.map((request) => request.query.id).sort()).toEqual(ids);
		const byId = new Map(
			received.map((request) => [request.query.id, JSON.parse(request.rawBody)]),
		);
		expect(byId.get('bulk-042')).toStrictEqual({
			first_name: 'First42',
			last_name: 'Last42',
			phone: '+14155550042',
		});

		const ledger = await sim().ledger();
		expect(ledger.applied).toHaveLength(500);
		expect(ledger.countsByKey).toEqual(
			Object.fromEntries(ids.map((id) => [`segment.contact.update:${id}`, 1])),
		);

		const output = outputOf(run, 'Update');
		expect(output).toHaveLength(500);
		output.forEach((item, i) => {
			expect(pairedIndex(item)).toBe(i);
			expect(item.json).toEqual({ id: ids[i], message: 'Contact updated successfully.' });
		});
	});

	describe('example workflows', () => {
		test('scheduled bulk contact update (started by hand instead of the schedule)', async () => {
			const { run } = expectSuccess(await execute('vaE2eXContacts'));
			const contacts = outputOf(run, 'Contacts from your CRM').map((item) => item.json);
			expect(contacts).toHaveLength(5);
			const received = await requests();
			expect(received).toHaveLength(5);
			const sent = new Map(
				received.map((request) => [request.query.id, JSON.parse(request.rawBody)]),
			);
			for (const contact of contacts) {
				const { id, ...fields } = contact;
				const expected = Object.fromEntries(
					Object.entries(fields).filter(([, value]) => value !== ''),
				);
				expect(sent.get(id)).toStrictEqual(expected);
			}
			expect(
				outputOf(run, 'Update segment contact').map((item) => [pairedIndex(item), item.json.id]),
			).toEqual(contacts.map((contact, i) => [i, contact.id]));
		});

		test('knowledge base from a list of FAQs (rows → Aggregate → Create in JSON mode)', async () => {
			const { run } = expectSuccess(await execute('vaExFaqToKbase01'));
			const rows = outputOf(run, 'FAQ rows').map((item) => item.json);
			expect(rows).toHaveLength(4);
			const received = await requests();
			expect(received).toHaveLength(1);
			expect(received[0]).toMatchObject({ method: 'POST', path: '/api/v1/knowledgeBase/create' });
			expect(JSON.parse(received[0].rawBody)).toStrictEqual({
				title: 'Brightline Solar customer FAQ',
				language: 'en',
				data: rows.map(({ question, answer }) => ({ question, answer })),
			});
			expect(outputOf(run, 'Create knowledge base')).toHaveLength(1);
		});

		test('playground call from a form submission', async () => {
			const { run } = expectSuccess(await execute('vaE2eXFormCall'));
			const expected = {
				first_name: 'Katherine',
				last_name: 'Johnson',
				email: 'katherine@example.com',
				phone_number: ['+14155550104'],
				assistant_id: MAYA,
				dialer_id: 'dialer-main',
			};
			const received = await requests();
			expect(received).toHaveLength(1);
			expect(received[0]).toMatchObject({ method: 'POST', path: '/api/v1/playground/call' });
			expect(JSON.parse(received[0].rawBody)).toStrictEqual(expected);
			expect(outputOf(run, 'Start playground call').map((item) => item.json)).toEqual([expected]);
		});

		test('list assistants → filter → pick one → playground call', async () => {
			const { run } = expectSuccess(await execute('vaExPickAndCall1'));
			const { assistants } = await sim().data();
			const chosen = assistants.find(
				(assistant) =>
					assistant.type === 'outbound' &&
					assistant.language === 'en' &&
					assistant.knowledge_base_Id,
			);
			expect(outputOf(run, 'Pick the first').map((item) => item.json.id)).toEqual([chosen?._id]);
			const received = await requests();
			expect(received.map((request) => `${request.method} ${request.path}`)).toEqual([
				'GET /api/v1/user/listAssistant',
				'POST /api/v1/playground/call',
			]);
			expect(JSON.parse(received[1].rawBody)).toStrictEqual({
				first_name: 'Ada',
				last_name: 'Lovelace',
				email: 'ada@example.com',
				phone_number: ['+14155550101'],
				assistant_id: chosen?._id,
				dialer_id: 'dialer-main',
			});
		});
	});

	test('the editor: node, tool and credential types with codex and icons; examples listed', async () => {
		const { api } = n8n();
		const nodeTypes = (await api.send('GET', '/types/nodes.json')).body as Array<
			Record<string, any>
		>;
		const node = nodeTypes.find((type) => type.name === NODE_TYPE);
		const tool = nodeTypes.find((type) => type.name === TOOL_NODE_TYPE);
		expect(node).toMatchObject({
			displayName: 'Voice Assistant',
			codex: { categories: ['Communication', 'Sales'] },
		});
		expect(tool).toMatchObject({ displayName: 'Voice Assistant Tool', outputs: ['ai_tool'] });
		const credentialTypes = (await api.send('GET', '/types/credentials.json')).body as Array<
			Record<string, any>
		>;
		const credentialType = credentialTypes.find((type) => type.name === CREDENTIAL_TYPE);
		expect(credentialType).toMatchObject({
			name: CREDENTIAL_TYPE,
			displayName: 'Voice Assistant API',
		});

		const icons = [node?.iconUrl, credentialType?.iconUrl].flatMap((icon) =>
			typeof icon === 'string' ? [icon] : [icon?.light, icon?.dark],
		);
		expect(icons.length).toBeGreaterThanOrEqual(2);
		for (const icon of icons) {
			const response = await api.send('GET', `/${icon}`);
			expect([icon, response.status, response.contentType]).toEqual([
				icon,
				200,
				expect.stringContaining('image/svg+xml'),
			]);
		}

		const listed = (await api.call('GET', '/rest/workflows')) as Array<{ id: string }>;
		expect(listed.map((wf) => wf.id)).toEqual(
			expect.arrayContaining(Object.keys(examples).map((id) => n8n().idOf(id))),
		);

		// The Assistant picker of the editor loads through the credential, against the simulator.
		const { results } = await api.call(
			'POST',
			'/rest/dynamic-node-parameters/resource-locator-results',
			{
				path: 'parameters.assistant',
				methodName: 'searchAssistants',
				nodeTypeAndVersion: { name: NODE_TYPE, version: 1 },
				currentNodeParameters: { resource: 'playgroundCall', operation: 'start' },
				credentials: { [CREDENTIAL_TYPE]: n8n().credentialRef(CREDENTIAL) },
				filter: 'maya',
			},
		);
		expect(results).toEqual([{ name: 'Maya (outbound, en)', value: MAYA }]);
		expect(await requests()).toHaveLength(1);
	});

	describe('refusals and per-item stop errors', () => {
		const plainHttpCredential = {
			id: 'vaPlainHttpCred1',
			name: 'Voice Assistant (plain http elsewhere)',
		};
		const ownWorkflows = [
			workflow('vaE2ePlainHttp', 'e2e: plain http to another machine', [
				manualTrigger(),
				voiceAssistant(
					'List',
					{ resource: 'assistant', operation: 'getAll' },
					{
						credentials: { [CREDENTIAL_TYPE]: plainHttpCredential },
					},
				),
			]),
			workflow('vaE2eStopErrors', 'e2e: items not sent after a failure', [
				manualTrigger(),
				itemsNode(
					'Contacts',
					['c-0', 'c-1', 'c-2'].map((id) => ({
						id,
						first_name: 'Ada',
						last_name: 'Lovelace',
						phone: '+1',
					})),
				),
				voiceAssistant('Update', { ...contactParameters, options: { maxConcurrency: 2 } }),
			]),
		];

		beforeAll(async () => {
			// 127.0.0.2 is not localhost, 127.0.0.1 or [::1]: for the credential, another machine.
			const elsewhere = sim().url.replace('//127.0.0.1:', '//127.0.0.2:');
			await n8n().saveCredentials([{ ...simulatorCredential(elsewhere), ...plainHttpCredential }]);
			for (const own of ownWorkflows) await n8n().saveWorkflow(own);
		});

		test('plain http:// to another machine is refused before the key is sent', async () => {
			const { status, run } = await execute('vaE2ePlainHttp');
			expect(status).toBe('error');
			expect(run.data.resultData.error?.message).toBe(
				'The credential "Voice Assistant (plain http elsewhere)" cannot be used: "Base URL" in the credential uses plain http:// to another machine, which would send the API key unencrypted: use https://, or tick "Allow Unencrypted HTTP" in the credential',
			);
			expect(await requests()).toEqual([]);
		});

		test('items not sent after a failure get their own error; the run names the item that failed', async () => {
			// Item 0 waits out a Retry-After holding its slot while item 1 is refused.
			await sim().failNext({
				status: 503,
				headers: { 'retry-after': '1' },
				method: 'PUT',
				path: CONTACT_PATH,
				id: 'c-0',
			});
			await sim().failNext({
				status: 400,
				body: { message: 'segment is locked' },
				method: 'PUT',
				path: CONTACT_PATH,
				id: 'c-1',
			});
			const { status, run } = await execute('vaE2eStopErrors');
			expect(status).toBe('error');
			// Item 0 was sent (answered 503) and waited for its retry: it says so.
			expect(run.data.resultData.error?.message).toBe(
				'Not sent again: item 1 failed first: The service rejected the request (HTTP 400): segment is locked',
			);
			expect(run.data.resultData.error?.description).toMatch(
				/^This item was sent 1 time \(last answer: HTTP 503\): the service may have received it\./,
			);
			const received = await requests();
			expect(received.map((request) => [request.query.id, request.status])).toEqual([
				['c-0', 503],
				['c-1', 400],
			]);
			expect((await sim().ledger()).applied).toEqual([]);
		});
	});
});
