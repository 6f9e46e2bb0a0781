/**
 * One attempt (shared/request/attempt.ts), in n8n's engine in process over HTTP: n8n's Timeout
 * bounds the whole attempt; every answer arrives with its headers and is checked before the
 * operation's own postReceive; a redirect is never followed; each attempt sends the key once.
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { runNode } from './helpers/runNode';
import { asOtherAccount, useSimulator } from './helpers/simulator';
import {
	API_KEY,
	CONTACT_UPDATE_PATH as UPDATE,
	segmentContactParameters,
} from './helpers/fixtures';

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

describe('an answer, before the operation shapes it', () => {
	const sim = useSimulator();
	const credentials = () => ({ apiKey: API_KEY, baseUrl: sim().url });

	it("arrives with its headers: a 429's Retry-After is read, not dropped with n8n's request error", async () => {
		sim().failNext({ status: 429, headers: { 'retry-after': '600' }, path: UPDATE });
		const { error } = await runNode({
			parameters: segmentContactParameters,
			credentials: { ...credentials(), baseUrl: asOtherAccount(sim().url) },
		});
		expect(sim().requests).toHaveLength(1);
		expect(error?.message).toMatch(
			/^The service asked to wait 600 s before trying again \(HTTP 429, Retry-After\)/,
		);
	});

	it('a redirect is never followed: the host it names gets nothing', async () => {
		const elsewhere = createServer((_req, res) => res.end('{}'));
		await new Promise<void>((resolve) => elsewhere.listen(0, '127.0.0.1', resolve));
		const location = `http://127.0.0.1:${(elsewhere.address() as AddressInfo).port}/steal`;
		let reached = 0;
		elsewhere.on('request', () => reached++);
		try {
			sim().failNext({ status: 302, headers: { location }, rawBody: '', path: UPDATE });
			const { error } = await runNode({
				parameters: segmentContactParameters,
				credentials: credentials(),
			});
			expect(sim().requests).toHaveLength(1);
			expect(reached).toBe(0);
			expect(error?.message).toMatch(
				/^The service redirected the request \(HTTP 302\) to http:\/\/127\.0\.0\.1:\d+/,
			);
		} finally {
			await new Promise((resolve) => elsewhere.close(resolve));
		}
	});

	it("a 2xx web page is not the API's answer: the item fails, a PUT is not sent again", async () => {
		sim().failNext({
			status: 200,
			headers: { 'content-type': 'text/html' },
			rawBody: '<html><body>Sign in</body></html>',
			path: UPDATE,
		});
		const { error } = await runNode({
			parameters: segmentContactParameters,
			credentials: credentials(),
		});
		expect(sim().requests).toHaveLength(1);
		expect(error?.message).toBe('The service answered HTTP 200, but not as JSON (an HTML page)');
	});

	it("the operation's own check is the item's result: Get Many answered something that is not a list, once", async () => {
		sim().failNext({
			status: 200,
			body: { assistants: 'none' },
			path: '/api/v1/user/listAssistant',
		});
		const { error } = await runNode({
			parameters: { resource: 'assistant', operation: 'getAll', returnAll: true },
			credentials: credentials(),
		});
		expect(sim().requests).toHaveLength(1);
		expect(error?.message).toMatch(/^The service answered the assistant list with /);
	});

	it('each attempt sends the key once, on a fresh copy of the request', async () => {
		sim().failNext({ status: 503, headers: { 'retry-after': '0' }, path: UPDATE });
		const { error, outputs } = await runNode({
			parameters: segmentContactParameters,
			credentials: credentials(),
		});
		expect(error).toBeUndefined();
		expect(outputs[0]).toHaveLength(1);
		expect(
			sim().requests.map((request) => [request.method, request.path, request.headers['x-api-key']]),
		).toEqual([
			['PUT', UPDATE, API_KEY],
			['PUT', UPDATE, API_KEY],
		]);
	});
});
