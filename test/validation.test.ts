import type { INodeParameters } from 'n8n-workflow';
import { createSimulator, type Simulator } from './simulator';
import { useSimulator } from './helpers/simulator';
import { callAsTool, runNode } from './helpers/runNode';
import {
	API_KEY,
	knowledgeBaseListParameters,
	playgroundCallParameters,
	segmentContactParameters,
} from './helpers/fixtures';

const sim = useSimulator();

async function expectRejected(
	parameters: INodeParameters,
	message: string,
	items = [{ json: {} }],
) {
	const { error, outputs } = await runNode({
		parameters,
		items,
		credentials: { apiKey: API_KEY, baseUrl: sim().url },
	});
	expect(error?.message).toBe(message);
	expect(error?.description).toMatch(/^Nothing was sent for this item/);
	expect(outputs).toEqual([]);
	expect(sim().requests).toHaveLength(0);
}

/** What every error of a credential that breaks its own rules says after its rule. */
const CREDENTIAL_TO_FIX =
	'Nothing was sent for this item. A person must fix the credential "Test account" in n8n: no change to the input or to the arguments of a tool call can.';

const kbJson = (json: unknown): INodeParameters => ({
	...knowledgeBaseListParameters,
	qaInputMode: 'json',
	questionsAndAnswersJson: typeof json === 'string' ? json : JSON.stringify(json),
});

describe('invalid input fails with the field, the rule and the item, and sends nothing', () => {
	it.each([
		[
			'Dialer ID',
			{ dialerId: '={{ "" }}' },
			'Invalid input: "dialer_id" (Dialer ID) is required [item 0]',
		],
		[
			'Assistant',
			{ assistant: { __rl: true, mode: 'id', value: '  ' } },
			'Invalid input: "assistant_id" (Assistant) must not be blank [item 0]',
		],
		[
			'First Name',
			{ firstName: '={{ $json.missing }}' },
			'Invalid input: "first_name" (First Name) is required [item 0]',
		],
		[
			'Last Name',
			{ lastName: '   ' },
			'Invalid input: "last_name" (Last Name) must not be blank [item 0]',
		],
		['Email', { email: '={{ "" }}' }, 'Invalid input: "email" (Email) is required [item 0]'],
		[
			'Phone Numbers empty',
			{ phoneNumbers: ' , ;' },
			'Invalid input: "phone_number" (Phone Numbers) must hold at least one phone number [item 0]',
		],
		[
			'Phone Numbers not a list',
			{ phoneNumbers: '={{ { "a": 1 } }}' },
			'Invalid input: "phone_number" (Phone Numbers) must be a list of phone numbers [item 0]',
		],
		[
			'Phone Number entry',
			{ phoneNumbers: '={{ ["+1555", true] }}' },
			'Invalid input: "phone_number[1]" (Phone Numbers) must be text [item 0]',
		],
	])('Playground Call: %s', async (_name, change, message) => {
		await expectRejected({ ...playgroundCallParameters, ...change }, message);
	});

	it('reports every problem of an item in the description', async () => {
		const { error } = await runNode({
			parameters: {
				...playgroundCallParameters,
				firstName: '={{ "" }}',
				email: '={{ ["a@example.com"] }}',
			},
			credentials: { apiKey: API_KEY, baseUrl: sim().url },
		});
		expect(error?.message).toBe(
			'Invalid input: "first_name" (First Name) is required (and 1 more) [item 0]',
		);
		expect(error?.description).toContain('- "email" (Email) must be text');
		expect(sim().requests).toHaveLength(0);
	});

	it.each([
		['Title', { title: '={{ "" }}' }, 'Invalid input: "title" (Title) is required [item 0]'],
		[
			'Language',
			{ language: '={{ "de" }}' },
			'Invalid input: "language" (Language) must be one of: en [item 0]',
		],
		[
			'half a pair',
			{ questionsAndAnswers: { pairs: [{ question: 'Why?', answer: '' }] } },
			'Invalid input: "data[0].answer" (Questions and Answers) is required [item 0]',
		],
	])('Knowledge Base list: %s', async (_name, change, message) => {
		await expectRejected({ ...knowledgeBaseListParameters, ...change }, message);
	});

	it.each([
		[
			'not JSON',
			kbJson('[{"question": "a",'),
			/^Invalid input: "data" \(Questions and Answers \(JSON\)\) is not valid JSON \(.+\) \[item 0\]$/,
		],
		[
			'not a list',
			kbJson({ question: 'a', answer: 'b' }),
			'Invalid input: "data" (Questions and Answers) must be a list of question/answer pairs [item 0]',
		],
		[
			'a number as question',
			kbJson([{ question: 42, answer: 'b' }]),
			'Invalid input: "data[0].question" (Questions and Answers) must be text [item 0]',
		],
		[
			'missing answer',
			kbJson([{ question: 'a' }]),
			'Invalid input: "data[0].answer" (Questions and Answers) is required [item 0]',
		],
		[
			'a pair that is not an object',
			kbJson(['a']),
			'Invalid input: "data[0]" (Questions and Answers) must be an object with a question and an answer [item 0]',
		],
		['empty', kbJson('  '), 'Invalid input: "data" (Questions and Answers) is required [item 0]'],
	])('Knowledge Base JSON: %s', async (_name, parameters, message) => {
		const { error } = await runNode({
			parameters,
			credentials: { apiKey: API_KEY, baseUrl: sim().url },
		});
		if (typeof message === 'string') expect(error?.message).toBe(message);
		else expect(error?.message).toMatch(message);
		expect(sim().requests).toHaveLength(0);
	});

	it('Knowledge Base update without an id', async () => {
		await expectRejected(
			{ ...knowledgeBaseListParameters, operation: 'update', knowledgeBaseId: '={{ "" }}' },
			'Invalid input: "Knowledge Base ID" is required [item 0]',
		);
	});

	it.each([
		['Contact ID', { contactId: '={{ "" }}' }, 'Invalid input: "Contact ID" is required [item 0]'],
		[
			'First Name',
			{ contactFirstName: '={{ "" }}' },
			'Invalid input: "first_name" (First Name) is required [item 0]',
		],
		[
			'Last Name',
			{ contactLastName: '={{ null }}' },
			'Invalid input: "last_name" (Last Name) is required [item 0]',
		],
		['Phone', { phone: '={{ "" }}' }, 'Invalid input: "phone" (Phone) is required [item 0]'],
		[
			'Email',
			{ additionalFields: { email: '={{ 42 > 1 }}' } },
			'Invalid input: "email" (Email) must be text [item 0]',
		],
		[
			'Job Title',
			{ additionalFields: { jobTitle: '={{ ["a"] }}' } },
			'Invalid input: "job_title" (Job Title) must be text [item 0]',
		],
	])('Segment Contact: %s', async (_name, change, message) => {
		await expectRejected({ ...segmentContactParameters, ...change }, message);
	});

	it('Segment Contact mapped automatically names the missing input field', async () => {
		await expectRejected(
			{ resource: 'segmentContact', operation: 'update', mappingMode: 'auto' },
			'Invalid input: "Contact ID" is required (and 1 more) [item 0]',
			[{ json: { first_name: 'Ada', last_name: 'L' } }],
		);
	});

	it.each([
		[
			'with a user name and password',
			'http://user:secret@127.0.0.1:9',
			'must not contain a user name or password',
		],
		['without a scheme', 'api.example.com', 'must be a full URL such as https://api.example.com'],
		['with another scheme', 'ftp://api.example.com', 'must start with http:// or https://'],
	])('a Base URL %s is refused', async (_name, baseUrl, rule) => {
		const { error } = await runNode({
			parameters: { resource: 'assistant', operation: 'getAll' },
			credentials: { apiKey: API_KEY, baseUrl },
		});
		expect(error?.message).toBe(
			`The credential "Test account" cannot be used: "Base URL" in the credential ${rule}${rule.includes('password') ? ': put the API key in the API Key field' : ''}`,
		);
		expect(error?.description).toBe(CREDENTIAL_TO_FIX);
		expect(error?.message).not.toContain('secret');
	});
});

describe("exactly the spec's rules: formats are for the service to judge", () => {
	const contactRows = [
		{ json: { id: 'c-1', email: 'ada@example.com' } },
		{ json: { id: 'c-2', email: 'n/a' } },
		{ json: { id: 'c-3', email: '' } },
	];
	const contactByRow = {
		...segmentContactParameters,
		contactId: '={{ $json.id }}',
		additionalFields: { email: '={{ $json.email }}' },
	};

	it('an optional email that is no address (a CRM\'s "n/a") is sent; the service\'s answer fails that row only', async () => {
		const { outputs, error } = await runNode({
			parameters: contactByRow,
			items: contactRows,
			continueOnFail: true,
			credentials: { apiKey: API_KEY, baseUrl: sim().url },
		});
		expect(error).toBeUndefined();
		expect(
			sim()
				.requests.map((r) => [r.query.id, r.body, r.status])
				.sort(),
		).toEqual([
			[
				'c-1',
				{
					first_name: 'Grace',
					last_name: 'Hopper',
					phone: '+14155550123',
					email: 'ada@example.com',
				},
				200,
			],
			[
				'c-2',
				{ first_name: 'Grace', last_name: 'Hopper', phone: '+14155550123', email: 'n/a' },
				400,
			],
			['c-3', { first_name: 'Grace', last_name: 'Hopper', phone: '+14155550123' }, 200],
		]);
		expect(outputs[0].map((item) => item.json)).toEqual([
			{ id: 'c-1', message: 'Contact updated successfully.' },
			{
				error: 'The service rejected the request (HTTP 400): email: must be a string containing @',
			},
			{ id: 'c-3', message: 'Contact updated successfully.' },
		]);
	});

	it("the call's required email is sent as given, whatever its format", async () => {
		const { error } = await runNode({
			parameters: { ...playgroundCallParameters, email: 'ada.example.com' },
			credentials: { apiKey: API_KEY, baseUrl: sim().url },
		});
		expect(error?.message).toBe(
			'The service rejected the request (HTTP 400): email: must be a string containing @',
		);
		expect(sim().requests.map((r) => (r.body as { email: string }).email)).toEqual([
			'ada.example.com',
		]);
	});

	it('every optional field that is only spaces is left out alike, as an empty one is', async () => {
		const { error } = await runNode({
			parameters: {
				...segmentContactParameters,
				additionalFields: {
					email: '  ',
					description: '  ',
					jobTitle: '\t',
					lifecycleStage: '\n',
					leadStatus: ' \u00a0',
				},
			},
			credentials: { apiKey: API_KEY, baseUrl: sim().url },
		});
		expect(error).toBeUndefined();
		expect(JSON.parse(sim().requests[0].rawBody)).toEqual({
			first_name: 'Grace',
			last_name: 'Hopper',
			phone: '+14155550123',
		});
	});

	it.each([
		['list mode with no pairs', { questionsAndAnswers: {} }],
		['JSON mode with an empty list', { qaInputMode: 'json', questionsAndAnswersJson: '[]' }],
	])(
		'a knowledge base with no pairs (data: [], which the spec allows) is sent: %s',
		async (_name, change) => {
			const { error, outputs } = await runNode({
				parameters: { ...knowledgeBaseListParameters, ...change },
				credentials: { apiKey: API_KEY, baseUrl: sim().url },
			});
			expect(error).toBeUndefined();
			expect(JSON.parse(sim().requests[0].rawBody)).toEqual({
				title: 'Opening hours',
				language: 'en',
				data: [],
			});
			expect(outputs[0][0].json).toEqual({ title: 'Opening hours', language: 'en', data: [] });
		},
	);

	it('a Get Many filter that is only spaces is not set', async () => {
		const { error, outputs } = await runNode({
			parameters: {
				resource: 'assistant',
				operation: 'getAll',
				returnAll: true,
				filters: { type: '={{ "  " }}', language: ' ' },
			},
			credentials: { apiKey: API_KEY, baseUrl: sim().url },
		});
		expect(error).toBeUndefined();
		expect(outputs[0]).toHaveLength(sim().data.assistants.length);
	});
});

describe('one invalid item among many', () => {
	const rows = [
		{ json: { id: 'c-1', phone: '+1' } },
		{ json: { id: 'c-2', phone: '' } },
		{ json: { id: 'c-3', phone: '+3' } },
	];
	const parameters = {
		...segmentContactParameters,
		contactId: '={{ $json.id }}',
		phone: '={{ $json.phone }}',
	};

	it('stops the node before anything is sent, naming the bad item', async () => {
		const { error } = await runNode({
			parameters,
			items: rows,
			credentials: { apiKey: API_KEY, baseUrl: sim().url },
		});
		// n8n reports item 0, the first (in input order) that was not done: it says which item failed.
		expect(error?.message).toBe(
			'Not sent: item 1 failed first: Invalid input: "phone" (Phone) is required [item 1]',
		);
		expect(error?.context?.itemIndex).toBe(0);
		expect(sim().requests).toHaveLength(0);
	});

	it('with Continue On Fail, fails only that item and sends the others', async () => {
		const { outputs, error } = await runNode({
			parameters,
			items: rows,
			continueOnFail: true,
			credentials: { apiKey: API_KEY, baseUrl: sim().url },
		});
		expect(error).toBeUndefined();
		expect(
			sim()
				.requests.map((r) => r.query.id)
				.sort(),
		).toEqual(['c-1', 'c-3']);
		expect(outputs[0].map((item) => [item.json, item.pairedItem])).toEqual([
			[{ id: 'c-1', message: 'Contact updated successfully.' }, { item: 0 }],
			[{ error: 'Invalid input: "phone" (Phone) is required [item 1]' }, { item: 1 }],
			[{ id: 'c-3', message: 'Contact updated successfully.' }, { item: 2 }],
		]);
	});

	it('with the error output, routes the invalid item there joined to its input row', async () => {
		const { outputs } = await runNode({
			parameters,
			items: rows,
			onError: 'continueErrorOutput',
			credentials: { apiKey: API_KEY, baseUrl: sim().url },
		});
		expect(outputs[0].map((item) => item.json.id)).toEqual(['c-1', 'c-3']);
		expect(outputs[1]).toHaveLength(1);
		expect(outputs[1][0].json).toEqual({
			id: 'c-2',
			phone: '',
			error: 'Invalid input: "phone" (Phone) is required [item 1]',
		});
		expect(outputs[1][0].pairedItem).toEqual({ item: 1 });
	});
});

describe('the Base URL of the credential', () => {
	const getMany = { resource: 'assistant', operation: 'getAll' };

	it.each([
		[
			'a query string',
			(url: string) => `${url}?tenant=a`,
			'must not contain a query string (?…): enter only the address, e.g. https://api.example.com',
		],
		[
			'an empty query string',
			(url: string) => `${url}/?`,
			'must not contain a query string (?…): enter only the address, e.g. https://api.example.com',
		],
		[
			'a fragment',
			(url: string) => `${url}#main`,
			'must not contain a fragment (#…): enter only the address, e.g. https://api.example.com',
		],
	])('with %s is refused and nothing is sent', async (_name, baseUrl, rule) => {
		const { error } = await runNode({
			parameters: getMany,
			credentials: { apiKey: API_KEY, baseUrl: baseUrl(sim().url) },
		});
		expect(error?.message).toBe(
			`The credential "Test account" cannot be used: "Base URL" in the credential ${rule}`,
		);
		expect(error?.description).toBe(CREDENTIAL_TO_FIX);
		expect(sim().requests).toHaveLength(0);
	});

	describe('plain http:// to another machine', () => {
		let elsewhere: Simulator;
		beforeAll(async () => {
			// 127.0.0.2 is not one of localhost, 127.0.0.1, [::1]: for the node it stands for another machine.
			elsewhere = await createSimulator({ apiKey: API_KEY, host: '127.0.0.2' });
		});
		afterAll(async () => elsewhere.close());
		beforeEach(() => elsewhere.reset());

		it('is refused, saying the key would cross the network unencrypted, and nothing is sent', async () => {
			const { error } = await runNode({
				parameters: getMany,
				credentials: { apiKey: API_KEY, baseUrl: elsewhere.url },
			});
			expect(error?.message).toBe(
				'The credential "Test account" cannot be used: "Base URL" in the credential uses plain http:// to another machine, which would send the API key unencrypted: use https://, or tick "Allow Unencrypted HTTP" in the credential',
			);
			expect(elsewhere.requests).toHaveLength(0);
		});

		it('is allowed when the credential says so', async () => {
			const { error, outputs } = await runNode({
				parameters: getMany,
				credentials: { apiKey: API_KEY, baseUrl: elsewhere.url, allowUnencryptedHttp: true },
			});
			expect(error).toBeUndefined();
			expect(outputs[0].length).toBeGreaterThan(0);
			expect(
				elsewhere.requests.map((request) => [
					request.method,
					request.path,
					request.headers['x-api-key'],
				]),
			).toEqual([['GET', '/api/v1/user/listAssistant', API_KEY]]);
		});
	});

	it.each(['http://localhost', 'http://127.0.0.1'])(
		'plain http:// to this machine (%s) needs no permission',
		async (host) => {
			const baseUrl = sim().url.replace('http://127.0.0.1', host);
			const { error } = await runNode({
				parameters: getMany,
				credentials: { apiKey: API_KEY, baseUrl },
			});
			expect(error).toBeUndefined();
			expect(sim().requests).toHaveLength(1);
		},
	);
});

describe('as a tool (an AI Agent or an MCP client): the words name no item, the rest is the same', () => {
	const contactTool = {
		...segmentContactParameters,
		contactFirstName: "={{ $fromAI('first_name', 'First name', 'string') }}",
	};

	it("an invalid argument names the field and the rule, not n8n's item 0", async () => {
		const [answer] = await callAsTool({
			parameters: contactTool,
			credentials: { apiKey: API_KEY, baseUrl: sim().url },
			calls: [{ first_name: '' }],
		});
		expect(JSON.parse(answer)).toEqual([
			{
				error:
					'Invalid input: "first_name" (First Name) is required\n\n' +
					'Details: Nothing was sent for this item. Problems found:\n- "first_name" (First Name) is required',
			},
		]);
		expect(sim().requests).toHaveLength(0);

		// The same input in a run over items names its item, as before.
		await expectRejected(
			{ ...segmentContactParameters, contactFirstName: '={{ "" }}' },
			'Invalid input: "first_name" (First Name) is required [item 0]',
		);
	});

	it('a problem of the Options reads the same: Invalid input, naming the option', async () => {
		const [answer] = await callAsTool({
			parameters: { ...contactTool, options: { maxRetries: '={{ "x" }}' } },
			credentials: { apiKey: API_KEY, baseUrl: sim().url },
			calls: [{ first_name: 'Grace' }],
		});
		expect(JSON.parse(answer)).toEqual([
			{
				error:
					'Invalid input: "Max Retries" (Options) must be a number\n\n' +
					'Details: Nothing was sent for this item. Problems found:\n- "Max Retries" (Options) must be a number',
			},
		]);
		expect(sim().requests).toHaveLength(0);
	});
});

describe('a credential that breaks its own rules: not Invalid input, a person must fix it', () => {
	const getMany = { resource: 'assistant', operation: 'getAll' };
	const rateLimit = (perSecond: number) => ({
		apiKey: API_KEY,
		baseUrl: sim().url,
		rateLimit: perSecond,
		rateLimitUnit: 'second',
	});
	const negativeRate =
		'"Rate Limit" in the credential must be a positive number of requests (0: no limit), not -1';

	it('a negative Rate Limit names the credential, the field and the rule; nothing is sent', async () => {
		const { error } = await runNode({
			parameters: segmentContactParameters,
			credentials: rateLimit(-1),
			credentialName: 'Voice account (EU)',
		});
		expect(error?.message).toBe(
			`The credential "Voice account (EU)" cannot be used: ${negativeRate}`,
		);
		expect(error?.description).toBe(
			CREDENTIAL_TO_FIX.replace('Test account', 'Voice account (EU)'),
		);
		expect(sim().requests).toHaveLength(0);
	});

	it('as a tool, the model reads that the credential, not its arguments, must change', async () => {
		const [answer] = await callAsTool({
			parameters: {
				...segmentContactParameters,
				contactFirstName: "={{ $fromAI('first_name', 'First name', 'string') }}",
			},
			credentials: { apiKey: API_KEY, baseUrl: `${sim().url}?tenant=a` },
			calls: [{ first_name: 'Grace' }],
		});
		expect(JSON.parse(answer)).toEqual([
			{
				error:
					'The credential "Test account" cannot be used: "Base URL" in the credential must not contain a query string (?…): enter only the address, e.g. https://api.example.com\n\n' +
					`Details: ${CREDENTIAL_TO_FIX}`,
			},
		]);
		expect(sim().requests).toHaveLength(0);
	});

	it('under On Error: Continue, every item gets the same error', async () => {
		const { outputs, error } = await runNode({
			parameters: getMany,
			items: [{ json: {} }, { json: {} }],
			continueOnFail: true,
			credentials: rateLimit(-1),
		});
		expect(error).toBeUndefined();
		expect(outputs[0].map((item) => item.json)).toEqual([
			{ error: `The credential "Test account" cannot be used: ${negativeRate}` },
			{ error: `The credential "Test account" cannot be used: ${negativeRate}` },
		]);
		expect(sim().requests).toHaveLength(0);
	});
});
