/**
 * One item's attempts (shared/request/sendItem.ts): n8n's Timeout bounds the whole attempt, so a
 * server that trickles its answer is cut off at the Timeout. In n8n's engine, in process,
 * against a real HTTP server.
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { runNode } from './helpers/runNode';
import { API_KEY, segmentContactParameters } from './helpers/fixtures';

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
