/**
 * The failure model (shared/failureModel.ts): how an attempt ended, and what follows — sent again
 * within the run, sent again by a later try of n8n's Retry On Fail, and what the item's error says.
 * The whole table (attempt end × method × Continue On Fail × Retry On Fail) is walked through the
 * real send path, in n8n's own engine over HTTP against the simulator. The expectations are this
 * file's own reading of the rules (README "Guarantees"), not the node's table.
 */
import { classifyFailure, endOfAnswer } from '../nodes/VoiceAssistant/shared/failureModel';
import { runNode } from './helpers/runNode';
import { useSimulator } from './helpers/simulator';
import { FAST, useFastClock } from './helpers/fastClock';
import {
	API_KEY,
	CONTACT_UPDATE_PATH,
	PLAYGROUND_CALL_PATH,
	playgroundCallParameters,
	segmentContactParameters,
} from './helpers/fixtures';
import {
	brokenTlsServer,
	connectTimedOut,
	faultSockets,
	failAfterSending,
	kernelError,
} from './helpers/socketFaults';
import type { Socket } from 'node:net';

const sim = useSimulator();

describe('classifying an attempt', () => {
	it('a request that never left this machine: refused, DNS (also transient)', () => {
		for (const code of ['ECONNREFUSED', 'ENOTFOUND', 'EAI_AGAIN']) {
			expect(classifyFailure({ httpCode: code, message: code }).end).toBe('not-connected');
			expect(classifyFailure({ code, message: code }).end).toBe('not-connected');
		}
	});

	it('a cut, a timeout, and anything unknown counts as a cut (the service may have received it)', () => {
		expect(classifyFailure({ httpCode: 'ECONNRESET' }).end).toBe('cut');
		expect(classifyFailure({ httpCode: 'EPIPE' }).end).toBe('cut');
		expect(classifyFailure({ httpCode: 'EHOSTUNREACH' }).end).toBe('cut');
		expect(classifyFailure({ httpCode: 'ETIMEDOUT' }).end).toBe('timeout');
		expect(classifyFailure(new Error('socket hang up')).end).toBe('cut');
		expect(classifyFailure(undefined).end).toBe('cut');
		expect(classifyFailure({ message: 'canceled' }, true).end).toBe('timeout');
	});

	it("answers: a 2xx web page is not the API's answer; JSON, plain text or nothing is", () => {
		const html = { 'content-type': 'text/html; charset=utf-8' };
		const json = { 'content-type': 'application/json' };
		expect(endOfAnswer(200, html, 'Call queued')).toBe('unusable');
		expect(endOfAnswer(200, {}, '<html></html>')).toBe('unusable');
		expect(endOfAnswer(200, json, 'Call queued')).toBe('answered'); // the JSON string "Call queued"
		expect(endOfAnswer(200, { 'content-type': 'text/plain' }, 'Call queued')).toBe('answered');
		expect(endOfAnswer(200, html, { ok: true })).toBe('answered');
		expect(endOfAnswer(204, {}, '')).toBe('answered');
		expect(endOfAnswer(303, {}, '')).toBe('redirect');
		expect(endOfAnswer(422, json, {})).toBe('client-error');
		expect(endOfAnswer(429, json, {})).toBe('rate-limited');
		expect(endOfAnswer(503, json, {})).toBe('unavailable');
		expect(endOfAnswer(502, json, {})).toBe('server-error');
	});
});

type End =
	| 'not-connected'
	| 'connect-timeout'
	| 'tls-failed'
	| 'cut'
	| 'read-failed'
	| 'write-failed'
	| 'timeout'
	| 'answered'
	| 'unusable'
	| 'redirect'
	| 'client-error'
	| 'rate-limited'
	| 'unavailable'
	| 'server-error';

/** Closed: nothing listens there. */
const CLOSED_PORT = 'http://127.0.0.1:9';
let tlsServer: Awaited<ReturnType<typeof brokenTlsServer>>;
beforeAll(async () => (tlsServer = await brokenTlsServer('plain')));
afterAll(async () => await tlsServer.close());
let stopFaults: (() => void) | undefined;
afterEach(() => stopFaults?.());
/** Faults the real sockets to the simulator: every one, or only the first. */
const fault = (what: (socket: Socket) => void, everyTime: boolean) => {
	let faulted = 0;
	stopFaults = faultSockets(Number(new URL(sim().url).port), (socket) => {
		if (everyTime || faulted++ === 0) what(socket);
	});
};

/**
 * The Timeout of `timeout`: 150 ms of real time on the table's fast clock. The request has that
 * long to reach the simulator, which answers only after 600 ms.
 */
const TIMEOUT_MS = 150 * FAST;

/**
 * How the simulator makes the first attempt end so; `everyTime`: every attempt ends so.
 * `timeoutMs`: the node's Timeout, only where the attempt is to end by it; elsewhere a Timeout far
 * beyond any answer, so that a busy machine cannot make an attempt end by a timeout instead.
 */
const SCENARIOS: Record<
	End,
	{
		everyTime: boolean;
		says?: RegExp;
		arrange: (path: string) => void;
		baseUrl?: () => string;
		timeoutMs?: number;
	}
> = {
	'not-connected': {
		everyTime: true,
		says: /^Could not connect to/,
		arrange: () => undefined,
		baseUrl: () => CLOSED_PORT,
	},
	'connect-timeout': {
		everyTime: true,
		// How long the attempt took, on the fast clock: a busy machine's delay there reads as seconds.
		says: /^Could not connect to http:\/\/127\.0\.0\.1:\d+ within (\d+ ms|\d+(\.\d)? s)/,
		arrange: () => fault(connectTimedOut, true),
	},
	'tls-failed': {
		everyTime: true,
		says: /^Could not connect to https:.*: the TLS handshake failed/,
		arrange: () => undefined,
		baseUrl: () => tlsServer.url,
	},
	'read-failed': {
		everyTime: false,
		says: /was dropped before an answer/,
		arrange: () => {
			sim().setOptions({ latencyMs: 100 });
			fault(
				failAfterSending(() => sim().requests.length > 0),
				false,
			);
		},
	},
	'write-failed': {
		everyTime: false,
		says: /was dropped before an answer/,
		arrange: () => {
			sim().setOptions({ latencyMs: 100 });
			const epipe = kernelError('write', 'EPIPE', -32);
			fault(
				failAfterSending(() => sim().requests.length > 0, epipe),
				false,
			);
		},
	},
	cut: {
		everyTime: false,
		says: /was dropped before an answer/,
		arrange: (path) => sim().failNext({ status: 0, path }),
	},
	timeout: {
		everyTime: true,
		says: new RegExp(`timed out after ${TIMEOUT_MS} ms`),
		arrange: () => sim().setOptions({ latencyMs: 600 }),
		timeoutMs: TIMEOUT_MS,
	},
	answered: { everyTime: false, arrange: () => undefined },
	unusable: {
		everyTime: false,
		says: /answered HTTP 200, but not as JSON/,
		arrange: (path) =>
			sim().failNext({ status: 200, rawBody: 'Call queued', afterApplying: true, path }),
	},
	redirect: {
		everyTime: false,
		says: /redirected the request \(HTTP 303\)/,
		arrange: (path) =>
			sim().failNext({
				status: 303,
				headers: { location: '/done' },
				rawBody: '',
				afterApplying: true,
				path,
			}),
	},
	'client-error': {
		everyTime: false,
		says: /rejected the request \(HTTP 422\): Phone rejected/,
		arrange: (path) => sim().failNext({ status: 422, body: { message: 'Phone rejected' }, path }),
	},
	'rate-limited': {
		everyTime: false,
		arrange: (path) => sim().failNext({ status: 429, headers: { 'retry-after': '0' }, path }),
	},
	unavailable: {
		everyTime: false,
		says: /failed \(HTTP 503\)/,
		arrange: (path) =>
			sim().failNext({ status: 503, headers: { 'retry-after': '0' }, afterApplying: true, path }),
	},
	'server-error': {
		everyTime: false,
		says: /failed \(HTTP 500\)/,
		arrange: (path) => sim().failNext({ status: 500, afterApplying: true, path }),
	},
};

/**
 * The rules as the README states them. POST: any answer (2xx of any body, 3xx, 5xx) or a cut after
 * sending may have acted: never sent again; a 4xx or 429 says it did not; no connection means it
 * did not. PUT is always safe to send again, but a page that is not JSON, a redirect or a refusal
 * would only answer the same.
 */
const NEVER_SENT: End[] = ['not-connected', 'connect-timeout', 'tls-failed'];
const SENT_AGAIN_IN_RUN: Record<'POST' | 'PUT', End[]> = {
	POST: [...NEVER_SENT, 'rate-limited'],
	PUT: [
		...NEVER_SENT,
		...(['cut', 'read-failed', 'write-failed', 'timeout'] as End[]),
		...(['rate-limited', 'unavailable', 'server-error'] as End[]),
	],
};
const MAY_HAVE_ACTED: Record<'POST' | 'PUT', End[]> = {
	POST: [
		...(['cut', 'read-failed', 'write-failed', 'timeout', 'unusable', 'redirect'] as End[]),
		...(['unavailable', 'server-error'] as End[]),
	],
	PUT: [],
};

const OPERATIONS = {
	POST: { parameters: playgroundCallParameters, path: PLAYGROUND_CALL_PATH },
	PUT: { parameters: segmentContactParameters, path: CONTACT_UPDATE_PATH },
};

const cases = (Object.keys(SCENARIOS) as End[]).flatMap((end) =>
	(['POST', 'PUT'] as const).flatMap((method) =>
		[false, true].flatMap((continueOnFail) =>
			[false, true].map((retryOnFail) => ({ end, method, continueOnFail, retryOnFail })),
		),
	),
);

/** The Timeout of the scenarios that do not end by it: a minute on the node's clock. */
const NO_TIMEOUT_MS = 60_000;

describe('the whole table, through the real send path', () => {
	// The node's waits between attempts (250 ms and more) on a clock FAST times faster; its Timeout
	// runs on that clock too (TIMEOUT_MS).
	useFastClock();
	// A request that timed out here is still in the simulator's latency when the case ends: the next
	// case's fresh start (helpers/simulator.ts) cuts it before it is applied.

	it.each(cases)(
		'$end, $method, Continue On Fail $continueOnFail, Retry On Fail $retryOnFail',
		async ({ end, method, continueOnFail, retryOnFail }) => {
			const scenario = SCENARIOS[end];
			const { parameters, path } = OPERATIONS[method];
			scenario.arrange(path);
			const { outputs, error } = await runNode({
				parameters: {
					...parameters,
					options: { maxRetries: 1 },
					requestOptions: { timeout: scenario.timeoutMs ?? NO_TIMEOUT_MS },
				},
				credentials: { apiKey: API_KEY, baseUrl: scenario.baseUrl?.() ?? sim().url },
				continueOnFail,
				retryOnFail: retryOnFail ? { maxTries: 2, waitBetweenTries: 1 } : undefined,
			});

			const sentAgain = SENT_AGAIN_IN_RUN[method].includes(end);
			const mayHaveActed = MAY_HAVE_ACTED[method].includes(end);
			// A later try of Retry On Fail sends the item again unless the service may have acted on it.
			const laterTry = retryOnFail && !mayHaveActed;
			let expected: number;
			if (NEVER_SENT.includes(end)) expected = 0;
			else if (end === 'answered') expected = 1;
			else if (!scenario.everyTime) expected = sentAgain || laterTry ? 2 : 1;
			else expected = (sentAgain ? 2 : 1) * (laterTry ? 2 : 1);
			const requests = sim().requests.filter((request) => request.path === path);
			// A timeout: on a starved machine (a cold CI run, n8n installing beside the suite) an attempt
			// can time out before it is written, and the service never sees it. Never more than expected.
			if (end === 'timeout') expect(requests.length).toBeGreaterThanOrEqual(1);
			if (end === 'timeout') expect(requests.length).toBeLessThanOrEqual(expected);
			else expect(requests).toHaveLength(expected);
			// The call is never placed twice.
			if (method === 'POST') expect(sim().ledger.applied.length).toBeLessThanOrEqual(1);

			const succeeds = end === 'answered' || (!scenario.everyTime && (sentAgain || laterTry));
			const message = continueOnFail
				? (outputs[0]?.[0]?.json.error as string | undefined)
				: error?.message;
			if (succeeds) {
				expect(error).toBeUndefined();
				expect(outputs[0]?.[0]?.json.error).toBeUndefined();
				return;
			}
			expect(message).toMatch(scenario.says as RegExp);
			if (mayHaveActed) {
				expect(message).toMatch(/the call may have been placed; not sent again$/);
				if (!continueOnFail)
					expect(error?.description).toMatch(
						/^It was not sent again because the service may have received it/,
					);
			} else {
				expect(message).not.toMatch(/not sent again/);
			}
		},
	);
});
