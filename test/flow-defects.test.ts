/**
 * The smaller flow-control defects of issue 19, each in n8n's engine against a real HTTP server:
 * the key in a redirect's target host, a Retry-After longer than a timer can hold, a server that
 * trickles its answer past the Timeout, and switches from expressions that are neither true nor
 * false.
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { INodeParameters } from 'n8n-workflow';
import { readRequestPolicy } from '../nodes/VoiceAssistant/shared/requestPolicy';
import { useSimulator } from './helpers/simulator';
import { runNode, type RunOptions } from './helpers/runNode';
import { API_KEY, segmentContactParameters } from './helpers/fixtures';

const sim = useSimulator();
const CONTACTS = '/api/v1/segment/contact/update';

async function run(parameters: INodeParameters, extra: Partial<RunOptions> = {}) {
	return await runNode({
		parameters,
		credentials: { apiKey: API_KEY, baseUrl: sim().url },
		...extra,
	});
}

describe('the key never reaches an error', () => {
	it('a redirect to a host named after the key: the host is redacted in the message', async () => {
		sim().failNext({
			status: 302,
			path: CONTACTS,
			headers: { location: `https://${API_KEY}.collector.example/steal` },
		});
		const { error } = await run(segmentContactParameters);
		expect(error?.message).toBe(
			'The service redirected the request (HTTP 302) to https://[redacted].collector.example: check the Base URL in the credential',
		);
		expect(JSON.stringify(error)).not.toContain(API_KEY);
	});
});

describe('Max Retry Wait bounds every wait', () => {
	it('a Retry-After longer than a timer can hold (2^31 ms) fails at once, with one request', async () => {
		sim().failNext({
			status: 429,
			path: CONTACTS,
			headers: { 'retry-after': '3000000' },
			times: 40,
		});
		const { error } = await run({
			...segmentContactParameters,
			options: { maxRetryWaitSeconds: 10_000_000 },
		});
		expect(error?.message).toBe(
			'The service asked to wait 3000000 s before trying again (HTTP 429, Retry-After), longer than "Max Retry Wait" allows',
		);
		expect(sim().requests).toHaveLength(1);
	});

	it('Max Retry Wait is held to an hour', () => {
		expect(readRequestPolicy({ maxRetryWaitSeconds: 10_000_000 }).maxRetryWaitMs).toBe(3_600_000);
	});
});

describe("n8n's Timeout bounds the whole attempt", () => {
	let server: Server;
	let url: string;
	beforeAll(async () => {
		// Answers at once, then trickles one byte every 100 ms for a minute: no gap reaches a socket timeout.
		server = createServer((_req, res) => {
			res.writeHead(200, { 'content-type': 'application/json' });
			res.write('{"message":"');
			let sent = 0;
			const trickle = setInterval(() => {
				if (++sent > 600 || res.destroyed) return clearInterval(trickle);
				res.write('.');
			}, 100);
			res.on('close', () => clearInterval(trickle));
		});
		await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
		url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
	});
	afterAll(async () => {
		server.closeAllConnections();
		await new Promise((resolve) => server.close(resolve));
	});

	it('a server trickling its answer is cut off at the Timeout and reported as a timeout', async () => {
		const started = Date.now();
		const { error } = await runNode({
			parameters: {
				...segmentContactParameters,
				options: { retryOnFailure: false },
				requestOptions: { timeout: 800 },
			},
			credentials: { apiKey: API_KEY, baseUrl: url },
		});
		expect(error?.message).toBe('The request timed out after 800 ms');
		expect(Date.now() - started).toBeLessThan(20_000);
	}, 30_000);
});

describe('switches from expressions', () => {
	it.each([0, 1, 'no', 'off', 'yes', 'FALSE ', 'True'])('%j is read strictly', (value) => {
		const policy = readRequestPolicy({ retryOnFailure: value });
		if (typeof value === 'string' && ['false', 'true'].includes(value.trim().toLowerCase())) {
			expect(policy.problem).toBeUndefined();
			expect(policy.retry).toBe(value.trim().toLowerCase() === 'true');
		} else {
			expect(policy.problem).toBe(
				`"Retry on Rate Limit and Transient Errors" (Options) must be true or false, not ${JSON.stringify(value)}`,
			);
		}
	});

	it('a refused switch sends nothing and names the option', async () => {
		const { error } = await run({
			...segmentContactParameters,
			options: { adaptiveConcurrency: 'off' },
		});
		expect(error?.message).toBe(
			'Invalid input: "Adapt Concurrency to the Service" (Options) must be true or false, not "off" [item 0]',
		);
		expect(sim().requests).toHaveLength(0);
	});
});
