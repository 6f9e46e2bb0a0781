import type { INodeParameters } from 'n8n-workflow';
import { createSimulator } from './simulator';
import { useSimulator } from './helpers/simulator';
import { callAsTool, runNode, type RunOptions } from './helpers/runNode';
import {
	API_KEY,
	knowledgeBaseListParameters,
	playgroundCallParameters,
	segmentContactParameters,
} from './helpers/fixtures';

const sim = useSimulator();

const listAssistants: INodeParameters = { resource: 'assistant', operation: 'getAll' };
const noRetry = { options: { retryOnFailure: false } };

/** What a 404 with the service's own reason adds after it. */
const BASE_URL_HINT =
	"If every request answers HTTP 404, check the Base URL in the credential: it should be the service's address, e.g. https://api.example.com.";

async function run(parameters: INodeParameters, extra: Partial<RunOptions> = {}) {
	return await runNode({
		parameters,
		credentials: { apiKey: API_KEY, baseUrl: sim().url },
		...extra,
	});
}

describe('HTTP failures become errors a user can act on', () => {
	it('401: the key was refused', async () => {
		const { error } = await runNode({
			parameters: listAssistants,
			credentials: { apiKey: 'wrong', baseUrl: sim().url },
		});
		expect(error?.message).toBe(
			'The service refused the API key (HTTP 401): check the API Key in the "Voice Assistant API" credential',
		);
		expect(error?.description).toBe('The service said: Invalid or missing API key');
		expect(sim().requests).toHaveLength(1);
	});

	it('403 is treated like 401', async () => {
		sim().failNext({ status: 403, body: { message: 'Key has no access to this account' } });
		const { error } = await run(listAssistants);
		expect(error?.message).toMatch(/^The service refused the API key \(HTTP 403\)/);
		expect(error?.description).toBe('The service said: Key has no access to this account');
	});

	it('404 on an update names the id that was not found', async () => {
		const { error } = await run({
			...knowledgeBaseListParameters,
			operation: 'update',
			knowledgeBaseId: 'kb-nope',
		});
		expect(error?.message).toBe('No knowledge base with ID "kb-nope" was found (HTTP 404)');
		expect(error?.description).toBe('Knowledge base not found');

		sim().failNext({ status: 404, body: { message: 'Contact not found' } });
		const contact = await run(segmentContactParameters);
		expect(contact.error?.message).toBe(
			'No segment contact with ID "contact-42" was found (HTTP 404)',
		);
		expect(contact.error?.description).toBe('Contact not found');

		sim().failNext({ status: 404 });
		const silent = await run(segmentContactParameters);
		expect(silent.error?.message).toBe(
			'No segment contact with ID "contact-42" was found (HTTP 404)',
		);
		expect(silent.error?.description).toBeUndefined();
	});

	it('404 without an id points at the Base URL', async () => {
		sim().failNext({ status: 404 });
		const { error } = await run(listAssistants);
		expect(error?.message).toBe(
			'The service has no GET /api/v1/user/listAssistant (HTTP 404): check the Base URL in the credential',
		);
		// The simulator's default body, { message: 'Not Found' }, repeats the status: no reason of its own.
		expect(error?.description).toBe(
			"The Base URL should be the service's address, e.g. https://api.example.com. The service said: Not Found",
		);

		// A Base URL that is not the API: the server's 404 for an unknown path says only "Not found".
		const elsewhere = await runNode({
			parameters: listAssistants,
			credentials: { apiKey: API_KEY, baseUrl: `${sim().url}/v2` },
		});
		expect(elsewhere.error?.message).toBe(
			'The service has no GET /api/v1/user/listAssistant (HTTP 404): check the Base URL in the credential',
		);
		expect(sim().requests.map((request) => request.path)).toEqual([
			'/api/v1/user/listAssistant',
			'/v2/api/v1/user/listAssistant',
		]);

		// A web server's 404 page is no reason of the service's either.
		sim().failNext({
			status: 404,
			rawBody: '<!DOCTYPE html><html><body><h1>404 Not Found</h1></body></html>',
			headers: { 'content-type': 'text/html' },
		});
		const page = await run(listAssistants);
		expect(page.error?.message).toBe(
			'The service has no GET /api/v1/user/listAssistant (HTTP 404): check the Base URL in the credential',
		);
	});

	it("404 with the service's own reason leads with it, then says when the Base URL may be wrong", async () => {
		sim().failNext({ status: 404, body: { message: 'Assistant not found' } });
		const { error } = await run(playgroundCallParameters);
		expect(error?.message).toBe(
			'The service found nothing for POST /api/v1/playground/call (HTTP 404): Assistant not found',
		);
		expect(error?.description).toBe(BASE_URL_HINT);
		// Refused: never sent again.
		expect(sim().requests.map((request) => [request.method, request.path])).toEqual([
			['POST', '/api/v1/playground/call'],
		]);
	});

	it("as a tool, the model reads the service's reason first", async () => {
		sim().failNext({ status: 404, body: { error: { message: 'Dialer dialer-7 not found' } } });
		const [answer] = await callAsTool({
			parameters: {
				...playgroundCallParameters,
				dialerId: "={{ $fromAI('dialer_id', 'The dialer', 'string') }}",
			},
			credentials: { apiKey: API_KEY, baseUrl: sim().url },
			calls: [{ dialer_id: 'dialer-7' }],
		});
		expect(JSON.parse(answer)).toEqual([
			{
				error: `The service found nothing for POST /api/v1/playground/call (HTTP 404): Dialer dialer-7 not found\n\nDetails: ${BASE_URL_HINT}`,
			},
		]);
		expect(sim().requests).toHaveLength(1);
	});

	it("400 and 422 carry the service's own message", async () => {
		sim().failNext({ status: 400, body: { message: 'phone_number[0]: not a dialable number' } });
		const bad = await run(playgroundCallParameters);
		expect(bad.error?.message).toBe(
			'The service rejected the request (HTTP 400): phone_number[0]: not a dialable number',
		);

		sim().failNext({
			status: 422,
			body: { errors: [{ message: 'title taken' }, 'data too long'] },
		});
		const unprocessable = await run(knowledgeBaseListParameters);
		expect(unprocessable.error?.message).toBe(
			'The service rejected the request (HTTP 422): title taken; data too long',
		);

		sim().failNext({ status: 400, body: {} });
		const silent = await run(knowledgeBaseListParameters);
		expect(silent.error?.message).toBe('The service rejected the request (HTTP 400)');
		expect(silent.error?.description).toBe('The service gave no reason.');
	});

	it('5xx says the service failed, also for an HTML error page', async () => {
		sim().failNext({ status: 500, body: { message: 'database unavailable' } });
		const json = await run({ ...listAssistants, ...noRetry });
		expect(json.error?.message).toBe('The service failed (HTTP 500): database unavailable');

		sim().failNext({
			status: 502,
			rawBody: '<!DOCTYPE html><html><body><h1>502 Bad Gateway</h1></body></html>',
		});
		const html = await run({ ...listAssistants, ...noRetry });
		expect(html.error?.message).toBe(
			'The service failed (HTTP 502): the service answered with an HTML page instead of JSON',
		);
	});

	it('a refused connection names the address to check', async () => {
		const closed = await createSimulator({ apiKey: API_KEY });
		const url = closed.url;
		await closed.close();
		const { error } = await runNode({
			parameters: { ...listAssistants, ...noRetry },
			credentials: { apiKey: API_KEY, baseUrl: url },
		});
		expect(error?.message).toBe(`Could not connect to ${url}: connection refused`);
		expect(error?.description).toBe(
			'Nothing reached the service. Check the Base URL in the credential and that the service is running.',
		);
	});

	it('a timeout says how long it waited', async () => {
		sim().setOptions({ latencyMs: 1000 });
		const { error } = await run({
			...listAssistants,
			...noRetry,
			requestOptions: { timeout: 100 },
		});
		expect(error?.message).toBe('The request timed out after 100 ms');
	});
});

describe('Continue On Fail', () => {
	const rows = ['c-1', 'c-2', 'c-3'].map((id) => ({ json: { id } }));
	const parameters = { ...segmentContactParameters, contactId: '={{ $json.id }}' };

	it('gives the failed item an error item paired with its row; the others succeed', async () => {
		sim().failNext({
			status: 404,
			path: '/api/v1/segment/contact/update',
			body: { message: 'Contact not found' },
		});
		const { outputs, error } = await run(parameters, { items: rows, continueOnFail: true });
		expect(error).toBeUndefined();
		const failed = outputs[0].filter((item) => item.json.error);
		expect(failed).toHaveLength(1);
		const failedIndex = (failed[0].pairedItem as { item: number }).item;
		expect(failed[0].json).toEqual({
			error: `No segment contact with ID "c-${failedIndex + 1}" was found (HTTP 404)`,
		});
		expect(outputs[0].map((item) => item.pairedItem)).toEqual([
			{ item: 0 },
			{ item: 1 },
			{ item: 2 },
		]);
		expect(outputs[0].filter((item) => item.json.message)).toHaveLength(2);
	});

	it('without it, the first failure stops the node and names the item', async () => {
		sim().failNext({ status: 404, body: { message: 'Contact not found' }, id: 'c-2' });
		const { error, outputs } = await run(parameters, { items: rows });
		expect(error?.message).toBe('No segment contact with ID "c-2" was found (HTTP 404)');
		expect(error?.context?.itemIndex).toBe(1);
		expect(outputs).toEqual([]);
	});

	it('names the item that failed when an earlier item was stopped waiting for its retry', async () => {
		sim().failNext({ status: 503, headers: { 'retry-after': '1' }, id: 'c-1' });
		sim().failNext({ status: 404, body: { message: 'Contact not found' }, id: 'c-2' });
		const { error } = await run(parameters, { items: rows });
		// Item 0 was sent and answered 503: it says so.
		expect(error?.message).toBe(
			'Not sent again: item 1 failed first: No segment contact with ID "c-2" was found (HTTP 404)',
		);
		expect(error?.description).toMatch(/^This item was sent 1 time \(last answer: HTTP 503\)/);
		expect(error?.context?.itemIndex).toBe(0);
	});
});
