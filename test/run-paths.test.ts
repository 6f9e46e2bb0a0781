/**
 * The ways n8n runs a node besides one manual run: n8n's own Retry On Fail, a cancelled
 * execution, and the credential's Allowed HTTP Request Domains. In n8n's engine, in process,
 * on its production path for declarative nodes, against the simulator over HTTP.
 */
import type { INodeExecutionData, INodeParameters } from 'n8n-workflow';
import { useSimulator } from './helpers/simulator';
import { nodeRuns, runNode, type RunOptions } from './helpers/runNode';
import { API_KEY, playgroundCallParameters, segmentContactParameters } from './helpers/fixtures';

const sim = useSimulator();

const CONTACTS = '/api/v1/segment/contact/update';
const rows = (count: number): INodeExecutionData[] =>
	Array.from({ length: count }, (_, i) => ({ json: { id: `c-${i}` } }));
const contacts = (options: INodeParameters = {}): INodeParameters => ({
	...segmentContactParameters,
	contactId: '={{ $json.id }}',
	options,
});

async function run(
	parameters: INodeParameters,
	items: INodeExecutionData[],
	more: Partial<RunOptions> = {},
) {
	return await runNode({
		parameters,
		items,
		credentials: { apiKey: API_KEY, baseUrl: sim().url },
		...more,
	});
}

/** Resolves once the simulator has received `count` requests. */
async function requestsReceived(count: number): Promise<void> {
	while (sim().requests.length < count) await new Promise((resolve) => setTimeout(resolve, 10));
}

describe("n8n's Retry On Fail (node settings)", () => {
	it('each try sends again: a 503 then a success is one good item', async () => {
		sim().failNext({ status: 503, path: CONTACTS });
		const { outputs, error } = await run(contacts({ retryOnFailure: false }), rows(1), {
			retryOnFail: { maxTries: 3, waitBetweenTries: 0 },
		});
		expect(error).toBeUndefined();
		expect(sim().requests.map((r) => [r.method, r.path, r.query.id, r.status])).toEqual([
			['PUT', CONTACTS, 'c-0', 503],
			['PUT', CONTACTS, 'c-0', 200],
		]);
		expect(outputs[0].map((item) => item.json)).toEqual([
			{ id: 'c-0', message: 'Contact updated successfully.' },
		]);
	});

	it('every try re-sends the items the failed try stopped', async () => {
		sim().failNext({ status: 400, path: CONTACTS, body: { message: 'segment is locked' } });
		const { error } = await run(contacts({ retryOnFailure: false, maxConcurrency: 1 }), rows(3), {
			retryOnFail: { maxTries: 2, waitBetweenTries: 0 },
		});
		expect(error).toBeUndefined();
		const statuses = sim().requests.map((r) => `${r.query.id}:${r.status}`);
		expect(statuses).toEqual(['c-0:400', 'c-0:200', 'c-1:200', 'c-2:200']);
	});

	it('the last try fails with its own error, after sending', async () => {
		for (let i = 0; i < 3; i++) sim().failNext({ status: 503, path: CONTACTS });
		const { error } = await run(contacts({ retryOnFailure: false }), rows(1), {
			retryOnFail: { maxTries: 3, waitBetweenTries: 0 },
		});
		expect(error?.message).toBe('The service failed (HTTP 503): Service Unavailable');
		expect(sim().requests).toHaveLength(3);
	});
});

describe("n8n's Retry On Fail sends nothing twice (at most once per execution)", () => {
	it('items an earlier try got answered are not sent again; the refused and the unsent ones are', async () => {
		sim().failNext({
			status: 400,
			path: CONTACTS,
			id: 'c-1',
			body: { message: 'segment is locked' },
		});
		const { outputs, error } = await run(
			contacts({ retryOnFailure: false, maxConcurrency: 1 }),
			rows(3),
			{
				retryOnFail: { maxTries: 2, waitBetweenTries: 0 },
			},
		);
		expect(error).toBeUndefined();
		expect(sim().requests.map((r) => `${r.query.id}:${r.status}`)).toEqual([
			'c-0:200',
			'c-1:400',
			'c-1:200',
			'c-2:200',
		]);
		expect(outputs[0].map((item) => item.json.id)).toEqual(['c-0', 'c-1', 'c-2']);
	});

	it('a call start the service may have received fails again with the same message, without a request', async () => {
		sim().failNext({ status: 0, path: '/api/v1/playground/call' });
		const calls = Array.from({ length: 3 }, (_, i) => ({ json: { phone: `+1415555010${i}` } }));
		const { error } = await run(
			{
				...playgroundCallParameters,
				phoneNumbers: '={{ $json.phone }}',
				options: { maxConcurrency: 1 },
			},
			calls,
			{
				retryOnFail: { maxTries: 3, waitBetweenTries: 0 },
			},
		);
		expect(sim().requests.map((r) => r.body)).toEqual([
			expect.objectContaining({ phone_number: ['+14155550100'] }),
		]);
		expect(error?.message).toMatch(
			/^The connection to http:\/\/127\.0\.0\.1:\d+ was dropped before an answer arrived: the call may have been placed; not sent again$/,
		);
		expect(error?.description).toContain('may have received it');
	});
});

describe('an item n8n cannot prepare (an expression error mid-loop)', () => {
	const failingAtItem2 = contacts();
	failingAtItem2.contactId = "={{ $json.id === 'c-2' ? $('Nope').item.json.id : $json.id }}";

	it('sends nothing of the run, on every try of Retry On Fail', async () => {
		const { error } = await run(failingAtItem2, rows(5), {
			retryOnFail: { maxTries: 3, waitBetweenTries: 0 },
		});
		expect(error?.message).toMatch(/Referenced node/);
		await Promise.all(nodeRuns);
		expect(sim().requests).toHaveLength(0);
	});

	it('with Batching too (n8n pauses between batches while it prepares them)', async () => {
		const parameters = {
			...failingAtItem2,
			requestOptions: { batching: { batch: { batchSize: 2, batchInterval: 50 } } },
		};
		const { error } = await run(parameters, rows(5));
		expect(error?.message).toMatch(/Referenced node/);
		await Promise.all(nodeRuns);
		await new Promise((resolve) => setTimeout(resolve, 1500)); // past the pause that tells the loop has thrown
		expect(sim().requests).toHaveLength(0);
	});

	it('Batching: one invalid item (the last) sends nothing, the other batches neither', async () => {
		const parameters = {
			...contacts(),
			contactId: "={{ $json.id === 'c-4' ? '' : $json.id }}",
			requestOptions: { batching: { batch: { batchSize: 2, batchInterval: 50 } } },
		};
		const { error } = await run(parameters, rows(5));
		expect(error?.message).toMatch(/Invalid input: "Contact ID" is required \[item 4\]$/);
		expect(sim().requests).toHaveLength(0);
	});

	it('Batching: a valid run is sent at most a batch per interval, after every item is checked', async () => {
		const parameters = {
			...contacts(),
			requestOptions: { batching: { batch: { batchSize: 2, batchInterval: 200 } } },
		};
		const { error } = await run(parameters, rows(5));
		expect(error).toBeUndefined();
		const times = sim().requests.map((r) => r.receivedAt as number);
		expect(times).toHaveLength(5);
		// Batches of 2, 2, 1, due 0, 200 and 400 ms after every item was checked. A busy machine
		// delays a request, never brings one forward: only how late the first one was (well under
		// 100 ms) can shrink the gaps to the later batches.
		expect(times[2] - times[0]).toBeGreaterThanOrEqual(100);
		expect(times[4] - times[0]).toBeGreaterThanOrEqual(300);
	});
});

describe('a cancelled execution', () => {
	it('stops waiting out a Retry-After and sends nothing more', async () => {
		sim().failNext({ status: 429, headers: { 'retry-after': '200' }, path: CONTACTS });
		const started = nodeRuns.length;
		await run(contacts(), rows(1), {
			onStart: (cancel) => void requestsReceived(1).then(cancel),
		});
		// The node's own run settles long before the 200 s wait (the test would time out).
		await Promise.all(nodeRuns.slice(started));
		expect(sim().requests.map((r) => r.status)).toEqual([429]);
	});

	it('items queued for a slot leave the queue without being sent', async () => {
		sim().failNext({ status: 429, headers: { 'retry-after': '200' }, path: CONTACTS });
		const started = nodeRuns.length;
		await run(contacts({ maxConcurrency: 1 }), rows(5), {
			onStart: (cancel) => void requestsReceived(1).then(cancel),
		});
		await Promise.all(nodeRuns.slice(started));
		expect(sim().requests.map((r) => `${r.query.id}:${r.status}`)).toEqual(['c-0:429']);
	});
});

describe("the credential's Allowed HTTP Request Domains", () => {
	const restricted = (allowedDomains: string, mode = 'domains') => ({
		credentials: {
			apiKey: API_KEY,
			baseUrl: sim().url,
			allowedHttpRequestDomains: mode,
			allowedDomains,
		},
	});

	it("a Base URL outside the list: nothing sent, n8n's message", async () => {
		const { error } = await run(contacts(), rows(2), restricted('api.example.com, *.example.org'));
		expect(error?.message).toBe(
			`Domain not allowed: This credential is restricted from accessing ${new URL(sim().url).host}. Only the following domains are allowed: api.example.com, *.example.org`,
		);
		expect(sim().requests).toHaveLength(0);
	});

	it('an empty list: nothing sent', async () => {
		const { error } = await run(contacts(), rows(1), restricted('  '));
		expect(error?.message).toBe(
			'No allowed domains specified. Configure allowed domains or change restriction setting.',
		);
		expect(sim().requests).toHaveLength(0);
	});

	it.each([
		['a listed host', 'api.example.com,127.0.0.1', 'domains'],
		['"None" (it blocks the HTTP Request node, not the credential\'s own node)', '', 'none'],
		['"All"', '', 'all'],
	])('%s: sent', async (_name, allowedDomains, mode) => {
		const { error } = await run(contacts(), rows(1), restricted(allowedDomains, mode));
		expect(error).toBeUndefined();
		expect(sim().requests).toHaveLength(1);
	});
});
