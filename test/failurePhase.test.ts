/**
 * Sent or not, read from the wire (shared/failurePhase.ts): an attempt without an answer did not
 * reach the service only when it failed before its request was written (the name, connect, a
 * proxy's tunnel, the TLS handshake, the server's certificate). Every code Node documents is
 * classified in each form n8n keeps it; each shape of the table in docs/how-it-works.md ("The
 * failure model") runs through the real send path, in n8n's own engine: what the service
 * received, what the node and n8n's Retry On Fail sent again and what the item's error says.
 */
import dns from 'node:dns';
import { checkServerIdentity, type PeerCertificate } from 'node:tls';
import { getSystemErrorMap } from 'node:util';
import fc from 'fast-check';
import type { INode } from 'n8n-workflow';
import { classifyFailure } from '../nodes/VoiceAssistant/shared/failureModel';
import { failureContext, toUserError } from '../nodes/VoiceAssistant/shared/failureWords';
import { accountAdmissions } from '../nodes/VoiceAssistant/shared/request/admission';
import { forgetAccounts } from './helpers/accounts';
import { refusedCertificates, type CertificateKind } from './helpers/certificates';
import { useFastClock } from './helpers/fastClock';
import { runNode } from './helpers/runNode';
import { useSimulator } from './helpers/simulator';
import {
	API_KEY,
	CONTACT_UPDATE_PATH,
	PLAYGROUND_CALL_PATH as CALL_PATH,
	playgroundCallParameters,
	segmentContactParameters,
} from './helpers/fixtures';
import {
	brokenTlsServer,
	closingProxy,
	connectTimedOut,
	dnsError,
	faultSockets,
	kernelError,
	failAfterSending,
	resolveAs,
	tlsServer,
	type CountingServer,
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

	it("n8n 2.41's SSRF protection refused the address or the host before connecting: never sent, not retried", () => {
		// @n8n/backend-network's SsrfBlockedIpError and SsrfBlockedHostnameError, in NodeApiError's words.
		const blocked = (message: string, description: string) => ({
			message,
			description,
			cause: { name: 'SsrfBlockedIpError', message, description },
		});
		const ip = blocked(
			'The request was blocked because it resolves to a restricted IP address',
			"The target 'api.internal' (100.64.0.7) is not allowed. This is a security measure to prevent Server-Side Request Forgery (SSRF).",
		);
		expect(classifyFailure(ip)).toMatchObject({
			end: 'unsendable',
			phase: 'ssrf',
			detail: "'api.internal' (100.64.0.7)",
		});
		const host = blocked(
			'The request was blocked because the destination hostname is restricted',
			"The hostname 'api.internal' is on the configured deny-list.",
		);
		expect(classifyFailure(host)).toMatchObject({ end: 'unsendable', detail: "'api.internal'" });
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

/** Node's error of a failed system call with its address, as net.js makes it (`connect ECONNREFUSED ::1:443`). */
const atAddress = (syscall: string, code: string, address: string, port = 443) =>
	Object.assign(new Error(`${syscall} ${code} ${address}:${port}`), {
		code,
		syscall,
		address,
		port,
	});

// Node's own lists, read at run time: the dns module's error codes (the dns docs' "Error
// codes", c-ares) and libuv's getaddrinfo codes (EAI_*; Node names EAI_NODATA/EAI_NONAME ENOTFOUND).
const SYSTEM_CODES = new Set([...getSystemErrorMap().values()].map(([name]) => name));
const QUERY_CODES = Object.entries(dns)
	.filter(([key, value]) => /^[A-Z]+$/.test(key) && typeof value === 'string')
	.map(([, value]) => value as string);
const GETADDRINFO_CODES = ['ENOTFOUND', ...[...SYSTEM_CODES].filter((code) => /^EAI_/.test(code))];
describe("Node's documented error surface: each code, in each form n8n keeps it", () => {
	// The tls docs' "X509 certificate error codes" (and UNSPECIFIED, Node's code for any other).
	const X509_CODES = (
		'UNABLE_TO_GET_ISSUER_CERT UNABLE_TO_GET_CRL UNABLE_TO_DECRYPT_CERT_SIGNATURE ' +
		'UNABLE_TO_DECRYPT_CRL_SIGNATURE UNABLE_TO_DECODE_ISSUER_PUBLIC_KEY CERT_SIGNATURE_FAILURE ' +
		'CRL_SIGNATURE_FAILURE CERT_NOT_YET_VALID CERT_HAS_EXPIRED CRL_NOT_YET_VALID CRL_HAS_EXPIRED ' +
		'ERROR_IN_CERT_NOT_BEFORE_FIELD ERROR_IN_CERT_NOT_AFTER_FIELD ERROR_IN_CRL_LAST_UPDATE_FIELD ' +
		'ERROR_IN_CRL_NEXT_UPDATE_FIELD OUT_OF_MEM DEPTH_ZERO_SELF_SIGNED_CERT SELF_SIGNED_CERT_IN_CHAIN ' +
		'UNABLE_TO_GET_ISSUER_CERT_LOCALLY UNABLE_TO_VERIFY_LEAF_SIGNATURE CERT_CHAIN_TOO_LONG ' +
		'CERT_REVOKED INVALID_CA PATH_LENGTH_EXCEEDED INVALID_PURPOSE CERT_UNTRUSTED CERT_REJECTED ' +
		'HOSTNAME_MISMATCH UNSPECIFIED'
	).split(' ');
	/** As n8n 1.123 and 2.8 keep a failure: its code and Node's message, under n8n's own words. */
	const asN8n28 = (error: Error & { code?: string }) => ({
		message: 'The connection cannot be established',
		messages: [error.message],
		httpCode: error.code,
	});
	/** As n8n 2.41 keeps it: the axios error (with its request) as the cause. */
	const asN8n241 = (error: Error, socket: object | null = { _bytesDispatched: 0 }) => ({
		message: error.message,
		cause: { message: error.message, request: { socket }, cause: error },
	});

	it('every getaddrinfo and query code: the name did not resolve, with the name; alone, a code no socket gives', () => {
		expect(QUERY_CODES.length).toBeGreaterThan(20);
		expect(GETADDRINFO_CODES.length).toBeGreaterThan(10);
		const failures = [
			...GETADDRINFO_CODES.map((code) => dnsError('getaddrinfo', code, 'api.example.com')),
			...QUERY_CODES.map((code) => dnsError('queryA', code, 'api.example.com')),
		];
		for (const error of failures) {
			for (const form of [error, asN8n28(error), asN8n241(error)])
				expect(classifyFailure(form)).toMatchObject({
					end: 'not-connected',
					phase: 'name',
					detail: error.message,
				});
		}
		for (const code of [...GETADDRINFO_CODES, ...QUERY_CODES]) {
			const alone = classifyFailure({ httpCode: code, message: code });
			// A code that a socket gives too (ENODATA, ENOMEM, EOF) says nothing of the step alone.
			if (code === 'ECONNREFUSED') expect(alone.phase).toBe('connect');
			else if (SYSTEM_CODES.has(code) && !/^EAI_/.test(code)) expect(alone.end).toBe('cut');
			else expect(alone).toMatchObject({ end: 'not-connected', phase: 'name' });
		}
	});

	it('several addresses, every connect failed (happy eyeballs): an AggregateError, as Node, n8n 2.41 and n8n 2.8 give it', () => {
		const errors = [
			atAddress('connect', 'ETIMEDOUT', '::1'),
			atAddress('connect', 'ECONNREFUSED', '127.0.0.1'),
		];
		// net.js internalConnectMultiple: NodeAggregateError(context.errors), its code the first one's.
		const aggregate = Object.assign(new AggregateError(errors), { code: 'ETIMEDOUT' });
		const n8n28 = {
			message: "The connection timed out, consider setting the 'Retry on Fail' option",
			messages: ['Error'],
			httpCode: 'ETIMEDOUT',
			description: errors.map((error) => error.message).join(' | '),
		};
		for (const form of [aggregate, asN8n241(aggregate), n8n28])
			expect(classifyFailure(form)).toMatchObject({
				end: 'not-connected',
				phase: 'connect',
				detail: 'connect ETIMEDOUT ::1:443; connect ECONNREFUSED 127.0.0.1:443',
			});
		const withRead = new AggregateError([...errors, atAddress('read', 'ECONNRESET', '::1')]);
		expect(classifyFailure(withRead).end).toBe('cut');
	});

	it("every X509 code of the tls docs, and checkServerIdentity's: the certificate refused before anything is written", () => {
		for (const code of X509_CODES) {
			const error = Object.assign(new Error('unsuitable certificate purpose'), { code });
			for (const form of [error, asN8n28(error), asN8n241(error, { encrypted: true })])
				expect(classifyFailure(form)).toMatchObject({ end: 'unsendable', phase: 'certificate' });
		}
		const cert = { subject: { CN: 'other.example.com' }, subjectaltname: 'DNS:other.example.com' };
		const mismatch = checkServerIdentity('api.example.com', cert as PeerCertificate) as Error;
		expect(classifyFailure(mismatch)).toMatchObject({
			end: 'unsendable',
			phase: 'certificate',
			code: 'ERR_TLS_CERT_ALTNAME_INVALID',
		});
	});

	it("a proxy that did not open the tunnel (https-proxy-agent's words), and n8n 2.41's request that never had a socket", () => {
		const closed = new Error('Proxy connection ended before receiving CONNECT response');
		const garbage = new Error('Invalid header from proxy CONNECT response: "SSH-2.0"');
		for (const form of [closed, garbage, asN8n28(closed), asN8n241(closed, null)])
			expect(classifyFailure(form)).toMatchObject({ end: 'not-connected', phase: 'proxy' });
		// The proxy reset its connection before answering: a read error, but of no socket of the request.
		const reset = kernelError('read', 'ECONNRESET', -104);
		expect(classifyFailure(asN8n241(reset, null))).toMatchObject({
			end: 'not-connected',
			phase: 'connect',
		});
		expect(
			classifyFailure({ message: 'canceled', cause: { request: { socket: null } } }, true),
		).toMatchObject({ end: 'not-connected', code: 'ETIMEDOUT' });
		// Without the request (n8n 2.8), the same reset is a read after connecting: it may have been sent.
		expect(classifyFailure(asN8n28(reset)).end).toBe('cut');
	});

	it("n8n's own Timeout (axios: ECONNABORTED) that fired before the connection opened: not sent, and the words say within how long", () => {
		const timedOut = Object.assign(new Error('timeout of 1000ms exceeded'), {
			code: 'ECONNABORTED',
		});
		const failure = classifyFailure(asN8n241(timedOut));
		expect(failure).toMatchObject({ end: 'not-connected', phase: 'connect', code: 'ETIMEDOUT' });
		const context = failureContext(
			{ method: 'POST', baseURL: 'http://api.example.com', url: CALL_PATH, timeout: 1000 },
			1,
		);
		const node = { name: 'Voice Assistant', type: 'voiceAssistant' } as INode;
		const error = toUserError(node, { ...failure, durationMs: 1000 }, context, 0, API_KEY);
		expect(error.message).toBe('Could not connect to http://api.example.com within 1 s');
		expect(error.description).toMatch(/^Nothing reached the service\./);
	});

	it("OpenSSL's handshake reasons, as Node's code or inside an EPROTO message: the TLS handshake", () => {
		const alert = Object.assign(
			new Error(
				'write EPROTO 807C:error:0A00042E:SSL routines:ssl3_read_bytes:tlsv1 alert protocol version:../deps/openssl/openssl/ssl/record/rec_layer_s3.c:1601:SSL alert number 70',
			),
			{ code: 'EPROTO', syscall: 'write' },
		);
		expect(classifyFailure(alert)).toMatchObject({
			end: 'not-connected',
			phase: 'tls',
			detail: 'tlsv1 alert protocol version',
		});
		expect(classifyFailure(asN8n28(alert)).phase).toBe('tls');
		const code = { httpCode: 'ERR_SSL_SSLV3_ALERT_HANDSHAKE_FAILURE', message: 'Error' };
		expect(classifyFailure(code).phase).toBe('tls');
		// n8n 2.41: the socket decides; a TLS connection once established may have carried it.
		expect(
			classifyFailure(asN8n241(alert, { encrypted: true, _secureEstablished: true })).end,
		).toBe('cut');
	});
});

type Shape = 'addresses' | 'name' | 'proxy' | 'certificate' | 'TLS version';
const SHAPES: Shape[] = ['addresses', 'name', 'proxy', 'certificate', 'TLS version'];
const KINDS: CertificateKind[] = [
	'selfSigned',
	'clientAuthOnly',
	'pathLength',
	'leafOnly',
	'expired',
];

describe('every shape of "nothing was written", through the real send path (fast-check)', () => {
	// The node's waits between attempts on a clock FAST times faster.
	useFastClock();
	const certificates = refusedCertificates();
	let servers: Record<CertificateKind | 'tlsVersion', Awaited<ReturnType<typeof tlsServer>>>;
	let proxy: CountingServer;
	beforeAll(async () => {
		const entries = await Promise.all(
			KINDS.map(async (kind) => [kind, await tlsServer(certificates[kind])] as const),
		);
		// A server that speaks only TLS 1.1, which Node no longer offers: it answers with an alert.
		const old = {
			minVersion: 'TLSv1',
			maxVersion: 'TLSv1.1',
			ciphers: 'DEFAULT@SECLEVEL=0',
		} as const;
		const tlsVersion = await tlsServer({ ...certificates.selfSigned, ...old });
		servers = { ...Object.fromEntries(entries), tlsVersion } as typeof servers;
		proxy = await closingProxy();
	});
	afterAll(async () => {
		await Promise.all(
			[...Object.values(servers), proxy].map(async (server) => await server.close()),
		);
	});

	// Every failure Node documents for a name (the query codes as a lookup through c-ares gives them).
	const DNS_FAILURES: Array<[string, string]> = [
		...GETADDRINFO_CODES.map((code): [string, string] => ['getaddrinfo', code]),
		...QUERY_CODES.map((code): [string, string] => ['queryAaaa', code]),
	];
	const caseArb = fc.record({
		shape: fc.constantFrom(...SHAPES),
		method: fc.constantFrom('POST' as const, 'PUT' as const),
		continueOnFail: fc.boolean(),
		retryOnFail: fc.boolean(),
		maxRetries: fc.integer({ min: 0, max: 2 }),
		// The name resolves, or the addresses answer, from the second attempt on.
		heals: fc.boolean(),
		// The host's addresses, all refusing: an IPv6 one, and an IPv4 one (Node's happy eyeballs
		// tries both; n8n turns it off, and Node tries the first alone).
		addresses: fc.constantFrom(1, 2),
		dnsFailure: fc.constantFrom(...DNS_FAILURES),
		certificate: fc.constantFrom(...KINDS),
	});
	type Case = typeof caseArb extends fc.Arbitrary<infer T> ? T : never;
	const base: Omit<Case, 'shape' | 'method' | 'continueOnFail' | 'retryOnFail'> = {
		maxRetries: 1,
		heals: false,
		addresses: 2,
		dnsFailure: ['getaddrinfo', 'EAI_FAIL'],
		certificate: 'clientAuthOnly',
	};
	// Every shape × method × Continue On Fail × Retry On Fail at least once.
	const examples: Array<[Case]> = SHAPES.flatMap((shape) =>
		(['POST', 'PUT'] as const).flatMap((method) =>
			[false, true].flatMap((continueOnFail) =>
				[false, true].map((retryOnFail): [Case] => [
					{ ...base, shape, method, continueOnFail, retryOnFail },
				]),
			),
		),
	);

	/** Where the node is pointed for a shape; how many attempts it made; the words naming what failed. */
	function arrange(run: Case) {
		const { port } = new URL(sim().url);
		const name = `${run.shape === 'name' ? 'name' : 'dual'}.va-test`;
		if (run.shape === 'addresses' || run.shape === 'name') {
			const [syscall, code] = run.dnsFailure;
			const resolved = resolveAs(name, (n) => {
				if (run.heals && n > 1) return [{ address: '127.0.0.1', family: 4 }];
				if (run.shape === 'name') return dnsError(syscall, code, name);
				// The host's addresses refuse: the simulator listens on 127.0.0.1 only.
				const both = [
					{ address: '::1', family: 6 as const },
					{ address: '127.0.0.2', family: 4 as const },
				];
				return both.slice(0, run.addresses);
			});
			const refused = 'connect ECONNREFUSED ::1:\\d+';
			const says =
				run.shape === 'name'
					? new RegExp(`: the name did not resolve \\(${syscall} ${code} name\\.va-test\\)`)
					: run.addresses === 1
						? new RegExp(`: connection refused \\(${refused}\\)`)
						: new RegExp(
								`: every address failed \\(${refused}; connect ECONNREFUSED 127\\.0\\.0\\.2:\\d+\\)`,
							);
			return {
				baseUrl: `http://${name}:${port}`,
				attempts: resolved.lookups,
				done: resolved.restore,
				says: new RegExp(
					`^Could not connect to http://${name.replace('.', '\\.')}:\\d+${says.source}`,
				),
			};
		}
		const server =
			run.shape === 'proxy'
				? proxy
				: servers[run.shape === 'certificate' ? run.certificate : 'tlsVersion'];
		const before = server.connections();
		const says = {
			proxy:
				/^Could not connect to https:\/\/127\.0\.0\.1:\d+ through the proxy http:\/\/127\.0\.0\.1:\d+: the proxy did not open the tunnel \(Proxy connection ended before receiving CONNECT response\)/,
			certificate: new RegExp(
				`^The request to https://127\\.0\\.0\\.1:\\d+ could not be sent: the server's certificate was refused: .+ \\(${certificates[run.certificate].code}\\)$`,
			),
			'TLS version':
				/^Could not connect to https:\/\/127\.0\.0\.1:\d+: the TLS handshake failed \((EPROTO: tlsv1 alert protocol version|ERR_SSL_\w+)\)/,
		}[run.shape];
		return {
			baseUrl: run.shape === 'proxy' ? `https://127.0.0.1:${port}` : server.url,
			proxy: run.shape === 'proxy' ? proxy.url : undefined,
			attempts: () => server.connections() - before,
			done: () => undefined,
			says,
		};
	}

	it('not placed, sent again as the table says, the words name what failed', async () => {
		await fc.assert(
			fc.asyncProperty(caseArb, async (run) => {
				// Each case meets no account an earlier one (or its shrinking) left.
				forgetAccounts(accountAdmissions);
				sim().reset();
				const arranged = arrange(run);
				const { method, continueOnFail, retryOnFail, maxRetries } = run;
				const path = method === 'POST' ? CALL_PATH : CONTACT_UPDATE_PATH;
				const parameters = method === 'POST' ? playgroundCallParameters : segmentContactParameters;
				let result;
				try {
					result = await runNode({
						parameters: {
							...parameters,
							options: { maxRetries },
							// A Timeout far beyond any attempt here (a minute on the node's clock).
							requestOptions: { timeout: 60_000, ...(arranged.proxy && { proxy: arranged.proxy }) },
						},
						credentials: { ...credentials(arranged.baseUrl), allowUnencryptedHttp: true },
						continueOnFail,
						retryOnFail: retryOnFail ? { maxTries: 2, waitBetweenTries: 1 } : undefined,
					});
				} finally {
					arranged.done();
				}
				// What the README says of a request that was not written: sent again within the run
				// (but a certificate, which would be refused again), and by a later try of Retry On Fail.
				const heals = run.heals && (run.shape === 'name' || run.shape === 'addresses');
				const perTry = run.shape === 'certificate' ? 1 : maxRetries + 1;
				const healedInRun = heals && perTry > 1;
				const healed = healedInRun || (heals && retryOnFail);
				const tries = retryOnFail && !healedInRun ? 2 : 1;
				expect(arranged.attempts()).toBe(healed ? 2 : perTry * tries);
				expect(sim().requests.filter((request) => request.path === path)).toHaveLength(
					healed ? 1 : 0,
				);
				// The TLS servers never got a byte of the request: refused in the handshake.
				for (const server of Object.values(servers)) expect(server.received()).toBe(0);
				const { outputs, error } = result;
				const message = continueOnFail ? (outputs[0]?.[0]?.json.error as string) : error?.message;
				if (healed) return expect(message).toBeUndefined();
				expect(message).toMatch(arranged.says);
				expect(message).not.toMatch(/not sent again|may have been/);
				if (!continueOnFail) expect(error?.description).toMatch(/^Nothing reached the service\./);
			}),
			{ numRuns: 40, examples },
		);
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
			/: the TLS handshake failed \((EPROTO: wrong version number|ERR_SSL_WRONG_VERSION_NUMBER)\)$/,
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
