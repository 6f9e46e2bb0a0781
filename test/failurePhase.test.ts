/**
 * Sent or not, read from the wire (shared/failurePhase.ts): an attempt without an answer did not
 * reach the service only when it failed before its request was written (the name, connect, the
 * TLS handshake). Each case faults a real socket of the node's request to the simulator, in n8n's
 * own engine, and checks what the service received, what n8n's Retry On Fail sent again and what
 * the item's error says.
 */
import { classifyFailure } from '../nodes/VoiceAssistant/shared/failureModel';
import { runNode } from './helpers/runNode';
import { useSimulator } from './helpers/simulator';
import {
	API_KEY,
	PLAYGROUND_CALL_PATH as CALL_PATH,
	playgroundCallParameters,
	segmentContactParameters,
} from './helpers/fixtures';
import {
	brokenTlsServer,
	connectTimedOut,
	faultSockets,
	kernelError,
	failAfterSending,
} from './helpers/socketFaults';

const sim = useSimulator();
const port = () => Number(new URL(sim().url).port);
const credentials = (baseUrl = sim().url) => ({ apiKey: API_KEY, baseUrl });
const placed = () => sim().ledger.applied.length;
/** n8n's Retry On Fail: a second try of the node, at once. */
const retryOnFail = { maxTries: 2, waitBetweenTries: 1 };
const noRetries = { ...playgroundCallParameters, options: { maxRetries: 0 } };

let stopFaults: (() => void) | undefined;
afterEach(() => stopFaults?.());

describe('classifying by where the attempt failed', () => {
	it('the syscall decides: an unreachable host at connect never got it, on a read it may have', () => {
		const at = (syscall: string) => kernelError(syscall, 'EHOSTUNREACH', -113);
		expect(classifyFailure(at('connect')).end).toBe('not-connected');
		expect(classifyFailure({ cause: at('connect') }).end).toBe('not-connected');
		expect(classifyFailure(at('read')).end).toBe('cut');
		expect(classifyFailure(kernelError('getaddrinfo', 'EAI_AGAIN', -3001)).end).toBe(
			'not-connected',
		);
	});

	it('without a syscall or socket, only codes that one step gives say "never sent"; unknown counts as sent', () => {
		for (const code of ['ECONNREFUSED', 'ENOTFOUND', 'EAI_AGAIN'])
			expect(classifyFailure({ httpCode: code, message: code }).end).toBe('not-connected');
		for (const code of ['EHOSTUNREACH', 'ENETUNREACH', 'ECONNRESET', 'EPIPE'])
			expect(classifyFailure({ code, message: code }).end).toBe('cut');
		expect(classifyFailure({ code: 'ETIMEDOUT' }).end).toBe('timeout');
	});

	it("the request's socket decides: nothing handed to the kernel, or a TLS handshake never completed", () => {
		const socket = (state: object) => ({ request: { socket: state } });
		expect(classifyFailure(socket({ _bytesDispatched: 0 }), true)).toMatchObject({
			end: 'not-connected',
			code: 'ETIMEDOUT',
		});
		expect(classifyFailure(socket({ _bytesDispatched: 240 }), true).end).toBe('timeout');
		const tls = { encrypted: true, _bytesDispatched: 240 };
		expect(classifyFailure(socket({ ...tls, _secureEstablished: false })).end).toBe(
			'not-connected',
		);
		expect(classifyFailure(socket({ ...tls, _secureEstablished: true })).end).toBe('cut');
	});
});

describe('a call start whose connection fails', () => {
	it('after the service has it (the route goes away: read EHOSTUNREACH): placed once, not sent again by Retry On Fail', async () => {
		sim().setOptions({ latencyMs: 300 });
		stopFaults = faultSockets(
			port(),
			failAfterSending(() => sim().requests.length > 0),
		);
		const { error } = await runNode({
			parameters: playgroundCallParameters,
			credentials: credentials(),
			retryOnFail,
		});
		expect(sim().requests.filter((request) => request.path === CALL_PATH)).toHaveLength(1);
		// The simulator applies the call after its latency, the connection gone or not.
		while (sim().stats.inFlight > 0) await new Promise((resolve) => setTimeout(resolve, 20));
		expect(placed()).toBe(1);
		expect(error?.message).toMatch(
			/^The connection to http:\/\/127\.0\.0\.1:\d+ was dropped before an answer arrived: the call may have been placed; not sent again$/,
		);
	});

	it('a connection that never opened (connect ETIMEDOUT) is sent again, and the call placed once', async () => {
		let faulted = 0;
		stopFaults = faultSockets(port(), (socket) => {
			if (faulted++ === 0) connectTimedOut(socket);
		});
		const { error } = await runNode({
			parameters: playgroundCallParameters,
			credentials: credentials(),
		});
		expect(error).toBeUndefined();
		expect(faulted).toBe(2);
		expect(placed()).toBe(1);
	});

	it('a connection that never opens says it could not connect, and Retry On Fail tries again', async () => {
		let attempts = 0;
		stopFaults = faultSockets(port(), (socket) => {
			attempts++;
			connectTimedOut(socket);
		});
		const { error } = await runNode({
			parameters: noRetries,
			credentials: credentials(),
			retryOnFail,
		});
		expect(attempts).toBe(2);
		expect(sim().requests).toHaveLength(0);
		expect(error?.message).toMatch(
			/^Could not connect to http:\/\/127\.0\.0\.1:\d+ within \d+ ms$/,
		);
		expect(error?.description).toMatch(/^Nothing reached the service\./);
	});

	it.each([
		[
			'https:// to a port that answers plain HTTP',
			'plain' as const,
			/: the TLS handshake failed \((EPROTO|ERR_SSL_\w+)\)$/,
			/use http:\/\/ instead of https:\/\//,
		],
		[
			'a connection closed during the TLS handshake',
			'close' as const,
			/: the TLS handshake failed \(ECONNRESET\)$/,
			/^Nothing reached the service\. Check that the Base URL's port serves HTTPS\.$/,
		],
	])(
		'%s: never sent; the TLS words, and Retry On Fail tries again',
		async (_name, mode, message, description) => {
			const server = await brokenTlsServer(mode);
			try {
				const { error } = await runNode({
					parameters: noRetries,
					credentials: credentials(server.url),
					retryOnFail,
				});
				expect(server.connections()).toBe(2);
				expect(error?.message).toMatch(/^Could not connect to https:\/\/127\.0\.0\.1:\d+: /);
				expect(error?.message).toMatch(message);
				expect(error?.description).toMatch(description);
			} finally {
				await server.close();
			}
		},
	);
});

describe('answers the node could not use, and waits it was asked for', () => {
	it('Get Many answered an empty 200: the next try of Retry On Fail lists again', async () => {
		sim().failNext({ status: 200, rawBody: '', path: '/api/v1/user/listAssistant' });
		const { error } = await runNode({
			parameters: { resource: 'assistant', operation: 'getAll', returnAll: true },
			credentials: credentials(),
			retryOnFail,
		});
		expect(error).toBeUndefined();
		expect(sim().requests).toHaveLength(2);
	});

	it('a contact update answered 500 with a Retry-After over Max Retry Wait says the service asked to wait', async () => {
		sim().failNext({ status: 500, headers: { 'retry-after': '600' } });
		const { error } = await runNode({
			parameters: segmentContactParameters,
			credentials: credentials(),
		});
		expect(sim().requests).toHaveLength(1);
		expect(error?.message).toMatch(
			/^The service asked to wait 600 s before trying again \(HTTP 500, Retry-After\)/,
		);
	});
});

describe('an id cut mid-emoji (half of a surrogate pair)', () => {
	const items = [{ json: { id: 'crm-1\ud83d' } }, { json: { id: 'crm-2' } }];
	const parameters = { ...segmentContactParameters, contactId: '={{ $json.id }}' };

	it('Dry Run: one output item per input item, the first naming the field and the rule', async () => {
		const { outputs, error } = await runNode({
			parameters: { ...parameters, dryRun: true },
			items,
			credentials: credentials(),
		});
		expect(error).toBeUndefined();
		expect(outputs[0]).toHaveLength(2);
		expect(JSON.stringify(outputs[0][0].json)).toMatch(/Contact ID.*half of a character pair/);
		expect(outputs[0][1].json.valid).toBe(true);
		expect(sim().requests).toHaveLength(0);
	});

	it('a real run sends nothing and says which item and field', async () => {
		const { error } = await runNode({ parameters, items, credentials: credentials() });
		expect(sim().requests).toHaveLength(0);
		expect(error?.message).toMatch(/Contact ID/);
		expect(error?.message).toMatch(/half of a character pair/);
	});
});
