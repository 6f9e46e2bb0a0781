import type { INodeParameters } from 'n8n-workflow';
import { useSimulator } from './helpers/simulator';
import { runNode } from './helpers/runNode';
import {
	API_KEY,
	knowledgeBaseListParameters,
	playgroundCallParameters,
	segmentContactParameters,
} from './helpers/fixtures';

const sim = useSimulator();

async function expectRejected(parameters: INodeParameters, message: string, items = [{ json: {} }]) {
	const { error, outputs } = await runNode({ parameters, items, credentials: { apiKey: API_KEY, baseUrl: sim().url } });
	expect(error?.message).toBe(message);
	expect(error?.description).toMatch(/^Nothing was sent for this item/);
	expect(outputs).toEqual([]);
	expect(sim().requests).toHaveLength(0);
}

const kbJson = (json: unknown): INodeParameters => ({
	...knowledgeBaseListParameters,
	qaInputMode: 'json',
	questionsAndAnswersJson: typeof json === 'string' ? json : JSON.stringify(json),
});

describe('invalid input fails with the field, the rule and the item, and sends nothing', () => {
	it.each([
		['Dialer ID', { dialerId: '={{ "" }}' }, 'Invalid input: "dialer_id" (Dialer ID) is required [item 0]'],
		['Assistant', { assistant: { __rl: true, mode: 'id', value: '  ' } }, 'Invalid input: "assistant_id" (Assistant) must not be blank [item 0]'],
		['First Name', { firstName: '={{ $json.missing }}' }, 'Invalid input: "first_name" (First Name) is required [item 0]'],
		['Last Name', { lastName: '   ' }, 'Invalid input: "last_name" (Last Name) must not be blank [item 0]'],
		['Email', { email: 'ada.example.com' }, 'Invalid input: "email" (Email) must be an email address such as name@example.com [item 0]'],
		['Phone Numbers empty', { phoneNumbers: ' , ;' }, 'Invalid input: "phone_number" (Phone Numbers) must hold at least one phone number [item 0]'],
		['Phone Numbers not a list', { phoneNumbers: '={{ { "a": 1 } }}' }, 'Invalid input: "phone_number" (Phone Numbers) must be a list of phone numbers [item 0]'],
		['Phone Number entry', { phoneNumbers: '={{ ["+1555", true] }}' }, 'Invalid input: "phone_number[1]" (Phone Numbers) must be text [item 0]'],
	])('Playground Call: %s', async (_name, change, message) => {
		await expectRejected({ ...playgroundCallParameters, ...change }, message);
	});

	it('reports every problem of an item in the description', async () => {
		const { error } = await runNode({
			parameters: { ...playgroundCallParameters, firstName: '={{ "" }}', email: 'nope' },
			credentials: { apiKey: API_KEY, baseUrl: sim().url },
		});
		expect(error?.message).toBe('Invalid input: "first_name" (First Name) is required (and 1 more) [item 0]');
		expect(error?.description).toContain('- "email" (Email) must be an email address such as name@example.com');
		expect(sim().requests).toHaveLength(0);
	});

	it.each([
		['Title', { title: '={{ "" }}' }, 'Invalid input: "title" (Title) is required [item 0]'],
		['Language', { language: '={{ "de" }}' }, 'Invalid input: "language" (Language) must be one of: en [item 0]'],
		['no pairs', { questionsAndAnswers: {} }, 'Invalid input: "data" (Questions and Answers) must hold at least one question/answer pair [item 0]'],
		['half a pair', { questionsAndAnswers: { pairs: [{ question: 'Why?', answer: '' }] } }, 'Invalid input: "data[0].answer" (Questions and Answers) is required [item 0]'],
	])('Knowledge Base list: %s', async (_name, change, message) => {
		await expectRejected({ ...knowledgeBaseListParameters, ...change }, message);
	});

	it.each([
		['not JSON', kbJson('[{"question": "a",'), /^Invalid input: "data" \(Questions and Answers \(JSON\)\) is not valid JSON \(.+\) \[item 0\]$/],
		['not a list', kbJson({ question: 'a', answer: 'b' }), 'Invalid input: "data" (Questions and Answers) must be a list of question/answer pairs [item 0]'],
		['a number as question', kbJson([{ question: 42, answer: 'b' }]), 'Invalid input: "data[0].question" (Questions and Answers) must be text [item 0]'],
		['missing answer', kbJson([{ question: 'a' }]), 'Invalid input: "data[0].answer" (Questions and Answers) is required [item 0]'],
		['a pair that is not an object', kbJson(['a']), 'Invalid input: "data[0]" (Questions and Answers) must be an object with a question and an answer [item 0]'],
		['empty', kbJson('  '), 'Invalid input: "data" (Questions and Answers) is required [item 0]'],
	])('Knowledge Base JSON: %s', async (_name, parameters, message) => {
		const { error } = await runNode({ parameters, credentials: { apiKey: API_KEY, baseUrl: sim().url } });
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
		['First Name', { contactFirstName: '={{ "" }}' }, 'Invalid input: "first_name" (First Name) is required [item 0]'],
		['Last Name', { contactLastName: '={{ null }}' }, 'Invalid input: "last_name" (Last Name) is required [item 0]'],
		['Phone', { phone: '={{ "" }}' }, 'Invalid input: "phone" (Phone) is required [item 0]'],
		['Email', { additionalFields: { email: 'grace' } }, 'Invalid input: "email" (Email) must be an email address such as name@example.com [item 0]'],
		['Job Title', { additionalFields: { jobTitle: '={{ ["a"] }}' } }, 'Invalid input: "job_title" (Job Title) must be text [item 0]'],
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
		['with a user name and password', 'http://user:secret@127.0.0.1:9', 'must not contain a user name or password'],
		['without a scheme', 'api.example.com', 'must be a full URL such as https://api.example.com'],
		['with another scheme', 'ftp://api.example.com', 'must start with http:// or https://'],
	])('a Base URL %s is refused', async (_name, baseUrl, rule) => {
		const { error } = await runNode({
			parameters: { resource: 'assistant', operation: 'getAll' },
			credentials: { apiKey: API_KEY, baseUrl },
		});
		expect(error?.message).toBe(`Invalid input: "Base URL" in the credential ${rule}${rule.includes('password') ? ': put the API key in the API Key field' : ''} [item 0]`);
		expect(error?.message).not.toContain('secret');
	});
});

describe('one invalid item among many', () => {
	const rows = [
		{ json: { id: 'c-1', phone: '+1' } },
		{ json: { id: 'c-2', phone: '' } },
		{ json: { id: 'c-3', phone: '+3' } },
	];
	const parameters = { ...segmentContactParameters, contactId: '={{ $json.id }}', phone: '={{ $json.phone }}' };

	it('stops the node before anything is sent, naming the bad item', async () => {
		const { error } = await runNode({ parameters, items: rows, credentials: { apiKey: API_KEY, baseUrl: sim().url } });
		expect(error?.message).toBe('Invalid input: "phone" (Phone) is required [item 1]');
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
		expect(sim().requests.map((r) => r.query.id).sort()).toEqual(['c-1', 'c-3']);
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
		expect(outputs[1][0].json).toEqual({ id: 'c-2', phone: '', error: 'Invalid input: "phone" (Phone) is required [item 1]' });
		expect(outputs[1][0].pairedItem).toEqual({ item: 1 });
	});
});
