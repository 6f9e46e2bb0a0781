/**
 * The failure model (nodes/VoiceAssistant/shared/failureModel.ts) in real n8n on every version
 * claimed, with the packed package: whatever the service answers to a call start after placing it,
 * the call is not placed again, also under n8n's Retry On Fail, and the error says so; a message
 * containing an error code reaches the user as the node wrote it. Sent or not is judged by where
 * the attempt failed: a connection cut after the service has the call start places it once; an
 * https:// Base URL at the plain simulator fails in the TLS handshake, a host whose IPv6 and IPv4
 * address both refuse never connects, a proxy (Request Options → Proxy) that closes before
 * answering the CONNECT opens no tunnel: none places anything, each is sent again, and the words
 * say what failed.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { createConnection, createServer, type Server, type Socket } from 'node:net';
import { NEWEST_VERSION } from '../../tools/n8n';
import {
	API_KEY,
	expectSuccess,
	manualTrigger,
	outputOf,
	requestedVersions,
	simulatorCredential,
	useImportedN8n,
	useSimulatorProcess,
	voiceAssistant,
	workflow,
} from './helpers';
import { CALL_PATH, callStart, callStarts, emailOf, people } from './calls';
import { CREDENTIAL_TYPE } from '../../tools/package-names';
import { closingProxy, type CountingServer } from '../helpers/socketFaults';
import { instanceOf } from './session';

/**
 * A TCP proxy to the simulator on 127.0.0.1 that counts connections; with `cutAfter`, no answer
 * passes and the client's connection is reset once `cutAfter` says the service has the request.
 */
async function tcpProxy(target: () => URL, cutAfter?: () => Promise<boolean>) {
	let connections = 0;
	const server: Server = createServer((client: Socket) => {
		connections++;
		const upstream = createConnection(Number(target().port), '127.0.0.1');
		upstream.on('error', () => client.destroy());
		client.on('error', () => upstream.destroy());
		client.pipe(upstream);
		if (!cutAfter) return void upstream.pipe(client);
		const poll = setInterval(() => {
			void cutAfter().then((cut) => {
				if (!cut || client.destroyed) return;
				clearInterval(poll);
				client.resetAndDestroy();
				upstream.destroy();
			});
		}, 20);
		client.once('close', () => clearInterval(poll));
	});
	await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
	const { port } = server.address() as { port: number };
	return {
		port,
		connections: () => connections,
		close: async () => await new Promise<void>((resolve) => server.close(() => resolve())),
	};
}

/**
 * A port where connections never open: a listener whose accept queue (of one) is full, so the
 * kernel drops every new SYN, as a firewall does. Python, as Node accepts every connection itself.
 */
async function unansweredPort(): Promise<{ port: number; stop: () => void }> {
	const script = [
		'import socket, time',
		"s = socket.socket(); s.bind(('127.0.0.1', 0)); s.listen(0)",
		'c = socket.socket(); c.setblocking(False)',
		"c.connect_ex(('127.0.0.1', s.getsockname()[1]))",
		'time.sleep(0.2); print(s.getsockname()[1], flush=True); time.sleep(600)',
	].join('\n');
	const child: ChildProcess = spawn('python3', ['-c', script], {
		stdio: ['ignore', 'pipe', 'inherit'],
	});
	const port = await new Promise<number>((resolve, reject) => {
		child.stdout?.once('data', (data: Buffer) => resolve(Number(String(data).trim())));
		child.once('error', reject);
	});
	return { port, stop: () => void child.kill() };
}

/**
 * A host with an IPv6 and an IPv4 address, both this machine's (globalSetup.js HOSTS_LINES), and
 * a port neither listens on: every connect is refused.
 */
const DUAL_STACK = 'dualstack.va-e2e.test';

/**
 * n8n versions whose request error keeps the request behind it (n8n-workflow's ExecutionBaseError
 * keeps an Error `cause` from 2.x's BaseError on; 1.123 and 2.8 lose it): there the node sees
 * that a Timeout came while still connecting.
 */
const KEEPS_THE_REQUEST = new Set([NEWEST_VERSION]);

/** The node with these Options (the node's own retries). */
const withOptions = <T extends { parameters: object }>(node: T, options: object): T => ({
	...node,
	parameters: { ...node.parameters, options },
});

/** The node with n8n's Request Options (Timeout, Proxy). */
const withRequestOptions = <T extends { parameters: object }>(
	node: T,
	requestOptions: object,
): T => ({
	...node,
	parameters: { ...node.parameters, requestOptions },
});
const withTimeout = <T extends { parameters: object }>(node: T, timeout: number): T =>
	withRequestOptions(node, { timeout });

/** A call start with n8n's Retry On Fail (2 tries) and one retry of its own, with this credential. */
const callStartRetried = (credentialId: string) =>
	withOptions(
		callStart({
			retryOnFail: true,
			maxTries: 2,
			waitBetweenTries: 0,
			...usingCredential(credentialId),
		}),
		{ maxRetries: 1 },
	);

/** The node's summary lines of runs of "Call" that failed: one per try of Retry On Fail. */
const failedRuns = (log: string) =>
	log.match(/Voice Assistant "Call": .* 0 succeeded, 1 failed/g) ?? [];

/** A credential of its own for a workflow whose Base URL is not the simulator's. */
const credentialAt = (id: string, baseUrl: string) => ({
	id,
	name: `Voice Assistant (${id})`,
	type: CREDENTIAL_TYPE,
	data: { apiKey: API_KEY, baseUrl },
});
const usingCredential = (id: string) => ({
	credentials: { [CREDENTIAL_TYPE]: { id, name: `Voice Assistant (${id})` } },
});

const CONTACT_PATH = '/api/v1/segment/contact/update';
const sim = useSimulatorProcess();

const retried = { retryOnFail: true, maxTries: 3, waitBetweenTries: 0 };
const updateContact = (extra = {}) =>
	voiceAssistant(
		'Update',
		{
			resource: 'segmentContact',
			operation: 'update',
			contactId: 'contact-42',
			contactFirstName: 'Grace',
			contactLastName: 'Hopper',
			phone: '+14155550123',
			additionalFields: {},
			options: { retryOnFailure: false },
		},
		extra,
	);

describe.each(requestedVersions())('n8n %s: the failure model', (version) => {
	let cutting: Awaited<ReturnType<typeof tcpProxy>>;
	let counting: Awaited<ReturnType<typeof tcpProxy>>;
	let unanswered: Awaited<ReturnType<typeof unansweredPort>>;
	let closing: CountingServer;
	let resetting: CountingServer;
	beforeAll(async () => {
		unanswered = await unansweredPort();
		closing = await closingProxy();
		resetting = await closingProxy(true);
		const target = () => new URL(sim().url);
		const callReceived = async () => callStarts(await sim().requests()).length > 0;
		cutting = await tcpProxy(target, callReceived);
		counting = await tcpProxy(target);
	});
	afterAll(async () => {
		unanswered.stop();
		await closing.close();
		await resetting.close();
		await cutting.close();
		await counting.close();
	});
	const { execute, requests } = useImportedN8n(sim, version, () => ({
		credentials: [
			simulatorCredential(sim().url),
			credentialAt('vaFmCutCred', `http://127.0.0.1:${cutting.port}`),
			credentialAt('vaFmTlsCred', `https://127.0.0.1:${counting.port}`),
			credentialAt('vaFmSynCred', `http://127.0.0.1:${unanswered.port}`),
			credentialAt('vaFmDualCred', `https://${DUAL_STACK}:9`),
			// Behind the proxy: never reached.
			credentialAt('vaFmProxyCred', `https://127.0.0.1:${new URL(sim().url).port}`),
		],
		workflows: [
			workflow('vaFmCut', 'e2e: a call start cut after the service has it, Retry On Fail', [
				manualTrigger(),
				people('c', 1),
				callStart({ ...retried, ...usingCredential('vaFmCutCred') }),
			]),
			workflow('vaFmSyn', 'e2e: a call start whose connection never opens, Timeout 1 s', [
				manualTrigger(),
				people('s', 1),
				withTimeout(
					withOptions(
						callStart({
							retryOnFail: true,
							maxTries: 2,
							waitBetweenTries: 0,
							...usingCredential('vaFmSynCred'),
						}),
						{ maxRetries: 1 },
					),
					1000,
				),
			]),
			workflow('vaFmTls', 'e2e: a call start to https:// at a plain HTTP port, Retry On Fail', [
				manualTrigger(),
				people('t', 1),
				withOptions(
					callStart({
						retryOnFail: true,
						maxTries: 2,
						waitBetweenTries: 0,
						...usingCredential('vaFmTlsCred'),
					}),
					{ maxRetries: 1 },
				),
			]),
			workflow('vaFmDual', 'e2e: a call start to a host whose IPv6 and IPv4 address fail', [
				manualTrigger(),
				people('d', 1),
				callStartRetried('vaFmDualCred'),
			]),
			workflow('vaFmProxy', 'e2e: a call start through a proxy that closes at the CONNECT', [
				manualTrigger(),
				people('p', 1),
				withRequestOptions(callStartRetried('vaFmProxyCred'), { proxy: closing.url }),
			]),
			workflow('vaFmProxyReset', 'e2e: a call start through a proxy that resets at the CONNECT', [
				manualTrigger(),
				people('r', 1),
				withRequestOptions(callStartRetried('vaFmProxyCred'), { proxy: resetting.url }),
			]),
			workflow('vaFmCalls', 'e2e: three call starts, Retry On Fail', [
				manualTrigger(),
				people('f', 3),
				callStart(retried),
			]),
			workflow('vaFmUpdate', 'e2e: a contact update answered with an error code in its message', [
				manualTrigger(),
				updateContact(),
			]),
			workflow('vaFmUpdateCof', 'e2e: the same, Continue On Fail', [
				manualTrigger(),
				updateContact({ onError: 'continueRegularOutput' }),
			]),
		],
	}));

	test.each([
		[
			'answered 200 text/html after placing it',
			{ status: 200, rawBody: 'Call queued' },
			/^The service answered HTTP 200, but not as JSON \(an HTML page\): the call may have been placed; not sent again$/,
		],
		[
			'answered 303 See Other after placing it',
			{ status: 303, rawBody: '', headers: { location: '/api/v1/playground/call/1' } },
			/^The service redirected the request \(HTTP 303\).*: the call may have been placed; not sent again$/,
		],
	])(
		'the first call start %s: placed once, Retry On Fail sends it no more',
		async (_name, answer, message) => {
			await sim().failNext({
				...answer,
				afterApplying: true,
				method: 'POST',
				path: CALL_PATH,
				bodyFields: { email: 'f0@example.com' },
			});
			const { status, run } = await execute('vaFmCalls');
			expect(status).toBe('error');
			const emails = callStarts(await requests()).map(emailOf);
			expect(emails.filter((email) => email === 'f0@example.com')).toHaveLength(1);
			const placed = (await sim().ledger()).applied.filter(
				(entry) => entry.op === 'playground.call',
			);
			expect(placed).toHaveLength(emails.length);
			const error = run.data.resultData.runData.Call.at(-1)?.error;
			expect(error?.message).toMatch(message);
			expect(error?.description).toMatch(
				/^It was not sent again because the service may have received it/,
			);
		},
	);

	test('a call start whose connection is cut after the service has it: placed once, Retry On Fail sends it no more', async () => {
		await sim().setOptions({ latencyMs: 1500 });
		try {
			const { status, run } = await execute('vaFmCut');
			expect(status).toBe('error');
			expect(callStarts(await requests())).toHaveLength(1);
			await new Promise((resolve) => setTimeout(resolve, 1600));
			const placed = (await sim().ledger()).applied.filter(
				(entry) => entry.op === 'playground.call',
			);
			expect(placed).toHaveLength(1);
			expect(run.data.resultData.runData.Call.at(-1)?.error?.message).toMatch(
				/was dropped before an answer arrived: the call may have been placed; not sent again$/,
			);
		} finally {
			await sim().setOptions({ latencyMs: 0 });
		}
	});

	test('https:// at the plain simulator: the TLS words, nothing placed, sent again by the next try of Retry On Fail', async () => {
		const before = counting.connections();
		const { status, run } = await execute('vaFmTls');
		expect(status).toBe('error');
		expect(callStarts(await requests())).toHaveLength(0);
		expect((await sim().ledger()).applied).toHaveLength(0);
		// Each try of n8n's Retry On Fail sends it (the node's own retries add more): at least two.
		expect(counting.connections() - before).toBeGreaterThanOrEqual(2);
		const error = run.data.resultData.runData.Call.at(-1)?.error;
		expect(error?.message).toMatch(
			/^Could not connect to https:\/\/127\.0\.0\.1:\d+: the TLS handshake failed \(\w+(: wrong version number)?\)/,
		);
		expect(error?.description).toMatch(/use http:\/\/ instead of https:\/\//);
	});

	test('a call start whose connection never opens within Timeout: not received where n8n keeps the request, retried', async () => {
		const { status, run } = await execute('vaFmSyn');
		expect(status).toBe('error');
		const message = run.data.resultData.runData.Call.at(-1)?.error?.message;
		if (KEEPS_THE_REQUEST.has(version))
			expect(message).toMatch(
				/^Could not connect to http:\/\/127\.0\.0\.1:\d+ within 1(\.\d)? s \(after 2 attempts\)$/,
			);
		// Elsewhere the error says nothing of the phase: counted as received.
		else
			expect(message).toMatch(
				/timed out after 1000 ms: the call may have been placed; not sent again$/,
			);
	});

	const dualStack = instanceOf(version).hosts.some((line) => line.endsWith(` ${DUAL_STACK}`));
	const withNames = dualStack ? test : test.skip;
	if (!dualStack)
		process.stdout.write(
			`[e2e] n8n ${version}: no /etc/hosts of its own (needs root and unshare): the dual-stack host is skipped\n`,
		);
	withNames(
		'a call start to a host whose IPv6 and IPv4 address both refuse: not placed, sent again, the address named',
		async () => {
			const { status, run, log } = await execute('vaFmDual');
			expect(status).toBe('error');
			expect((await sim().ledger()).applied).toHaveLength(0);
			const error = run.data.resultData.runData.Call.at(-1)?.error;
			// n8n turns Node's happy eyeballs off (bin/n8n: net.setDefaultAutoSelectFamily(false)): it
			// connects to the first address the name has, ::1 (RFC 6724 order), never to the second.
			expect(error?.message).toMatch(
				/^Could not connect to https:\/\/dualstack\.va-e2e\.test:9: connection refused \(connect ECONNREFUSED ::1:9\) \(after 2 attempts\)$/,
			);
			expect(error?.description).toMatch(/^Nothing reached the service\./);
			// Each try of n8n's Retry On Fail sent it (2 attempts each).
			expect(failedRuns(log)).toHaveLength(2);
		},
	);

	test('a call start through a proxy (Request Options → Proxy) that closes before answering the CONNECT: not placed, sent again, the proxy named', async () => {
		const before = closing.connections();
		const { status, run, log } = await execute('vaFmProxy');
		expect(status).toBe('error');
		expect(callStarts(await requests())).toHaveLength(0);
		// 2 tries of Retry On Fail × 2 attempts: each asked the proxy for a tunnel.
		expect(closing.connections() - before).toBe(4);
		expect(failedRuns(log)).toHaveLength(2);
		const error = run.data.resultData.runData.Call.at(-1)?.error;
		expect(error?.message).toMatch(
			/^Could not connect to https:\/\/127\.0\.0\.1:\d+ through the proxy http:\/\/127\.0\.0\.1:\d+: the proxy did not open the tunnel \(Proxy connection ended before receiving CONNECT response\) \(after 2 attempts\)$/,
		);
		expect(error?.description).toMatch(/^Nothing reached the service\. Check the proxy/);
	});

	test('a proxy that resets before answering the CONNECT: not received where n8n keeps the request (no socket), else counted as received', async () => {
		const before = resetting.connections();
		const { status, run } = await execute('vaFmProxyReset');
		expect(status).toBe('error');
		expect(callStarts(await requests())).toHaveLength(0);
		const message = run.data.resultData.runData.Call.at(-1)?.error?.message;
		if (KEEPS_THE_REQUEST.has(version)) {
			expect(resetting.connections() - before).toBe(4);
			expect(message).toMatch(
				/^Could not connect to https:\/\/127\.0\.0\.1:\d+ through the proxy http:\/\/127\.0\.0\.1:\d+: no connection \(ECONNRESET\) \(after 2 attempts\)$/,
			);
		} else {
			// A read reset with nothing else to go by: it may have been sent.
			expect(resetting.connections() - before).toBe(1);
			expect(message).toMatch(/: the call may have been placed; not sent again$/);
		}
	});

	const SAID = 'Database unavailable: connect ECONNREFUSED 10.0.3.4:5432';
	test('a 500 whose message contains ECONNREFUSED reaches the user as the node wrote it', async () => {
		await sim().failNext({ status: 500, body: { message: SAID }, path: CONTACT_PATH });
		const { status, run } = await execute('vaFmUpdate');
		expect(status).toBe('error');
		expect(run.data.resultData.runData.Update[0].error?.message).toBe(
			`The service failed (HTTP 500): ${SAID}`,
		);

		await sim().failNext({
			status: 422,
			body: { message: 'Template ENOENT: missing' },
			path: CONTACT_PATH,
		});
		const cof = await execute('vaFmUpdateCof');
		expectSuccess(cof);
		expect(outputOf(cof.run, 'Update')[0].json.error).toBe(
			'The service rejected the request (HTTP 422): Template ENOENT: missing',
		);
	});
});
