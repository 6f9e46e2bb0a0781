'use strict';

/**
 * Local HTTP simulator of the Voice Assistant API (docs/api.md describes it),
 * for the unit tests, the e2e suite, the demo and the benchmark.
 *
 * It is an independent reading of the API: it must not import from nodes/ or
 * credentials/, so that a mistake in the node's field tables is caught here.
 *
 * Each API request goes: record → the arrival delay → canned failNext → auth (401) →
 * the first ones throttled / strict rate + rate limit / chaos (429, 503, reset) → latency →
 * validation → apply → a failNext cut after applying → answer.
 */

const http = require('http');
const { dispatch } = require('./routes');
const { apiKeyProblem, requestProblem } = require('./rules');
const { createStore } = require('./store');
const { ArrivalDelay, TokenBucket, StrictRate, Chaos, ThrottleFirst } = require('./limits');
const { checkStatedCount, statedCountHeaders } = require('./count');
const { readBody, sendJson, sendRaw } = require('./http-util');
const { isControlPath, handleControl } = require('./control');
const {
	OPT_OUT_SCRIPT,
	SEEDED_KNOWLEDGE_BASE_IDS,
	defaultAssistants,
	defaultKnowledgeBases,
} = require('./seed');

/**
 * The simulator's public types.
 *
 * @typedef {import('./store').KnowledgeBase} KnowledgeBase
 * @typedef {import('./store').Data} SimulatorData
 * @typedef {import('./limits').RateLimitOptions} RateLimitOptions
 *   ratePerSec: tokens added per second; burst: the bucket's size (default max(1, ratePerSec)).
 * @typedef {import('./limits').StrictRateOptions} StrictRateOptions
 *   At most perSecond (a whole number, at least 1) requests accepted in any trailing windowMs
 *   (default 1,000 ms), sliding: the window at a time t is (t − windowMs, t], and only accepted
 *   requests count in it; with perMinute, also at most that many in any 60,000 ms; with window:
 *   'fixed', the windows are those of the clock, [k · length, (k + 1) · length), each counted from
 *   zero. One beyond is answered 429 with Retry-After max(1, ceil((the time the window has room
 *   again − now) / 1000)), without being applied. With rateLimit set too, a request must pass
 *   both; one refused by either is counted by neither.
 * @typedef {import('./count').StatedCountOptions} StatedCountOptions
 *   The strict rate states its count on every answer of a request it judged (count.js): the IETF
 *   draft's RateLimit-Policy and RateLimit fields (every window), or X-RateLimit-Limit, -Remaining
 *   and -Reset (one window: policy 'second', the default, or 'minute'; the reset as seconds to
 *   wait, Unix seconds or an HTTP date). Nothing without strictRate.
 * @typedef {import('./limits').ChaosOptions} ChaosOptions
 *   Shares of requests answered 429 or 503 (Retry-After: retryAfterSeconds, default 1) without
 *   being applied, or whose socket is destroyed (rateReset: half before and half after applying);
 *   the same seed (default 1) gives the same sequence of fates.
 * @typedef {import('./limits').ThrottleFirstOptions} ThrottleFirstOptions
 *   The first `count` requests with the right API key (since the option was set, or since the
 *   last reset()) answered 429 with Retry-After: retryAfterSeconds (default 1), without being
 *   applied; the rest go on as usual.
 * @typedef {import('./limits').ArrivalDelayOptions} ArrivalDelayOptions
 *   A random delay in [0, maxMs] (seeded, default seed 1) before the service counts a request (its
 *   arrivedAt and the rate checks): requests a client started evenly spaced arrive unevenly.
 * @typedef {{ latencyMs?: number, arrivalDelay?: ArrivalDelayOptions | null, rateLimit?: RateLimitOptions | null, strictRate?: StrictRateOptions | null, statedCount?: StatedCountOptions | null, chaos?: ChaosOptions | null, throttleFirst?: ThrottleFirstOptions | null }} ModeOptions
 *   Load modes; null or undefined switches the arrival delay, the rate limit, the strict rate, its
 *   stated count, chaos or throttleFirst off; setting rateLimit or strictRate starts a full bucket or an empty
 *   window.
 * @typedef {ModeOptions & { apiKey: string, host?: string, port?: number, assistants?: Array<Record<string, unknown>>, dataFile?: string, now?: () => number }} SimulatorOptions
 *   apiKey: requests with another x-api-key get 401; host: default 127.0.0.1; port: default 0
 *   (a free port); assistants: the seed (default defaultAssistants(), wins over the data file's);
 *   dataFile: state loaded from it if it exists and saved to it (throttled, and on close);
 *   now: the monotonic clock in ms of the rate limits and of `arrivedAt` (default
 *   performance.now(); tests give a clock of their own to move time themselves).
 * @typedef {'pending' | 'applied' | 'rejected' | 'reset-before' | 'reset-after' | 'throttled'} Outcome
 *   applied: answered normally (for writes: the change was made); rejected: an error status,
 *   nothing changed (canned answers too); throttled: 429 from throttleFirst, the strict rate, the
 *   rate limit or chaos, or chaos's 503; reset-before / reset-after: the socket destroyed without
 *   an answer, before or after applying; pending: not answered yet.
 * @typedef {{
 *   method: string,
 *   target: string,
 *   path: string,
 *   query: Record<string, string>,
 *   headers: import('http').IncomingHttpHeaders,
 *   rawBody: string,
 *   body: unknown,
 *   status: number,
 *   receivedAt: number,
 *   arrivedAt: number,
 *   answeredAt?: number,
 *   outcome: Outcome,
 *   canned?: boolean,
 * }} RecordedRequest
 *   target: the request target as it arrived (path and query string, byte for byte); path: without the query string; body: parsed JSON, undefined if empty or not JSON; status:
 *   the one answered, 0 for a reset (or while pending); receivedAt / answeredAt: Date.now() when
 *   it arrived / was answered or reset; arrivedAt: the monotonic clock (performance.now(), or the
 *   `now` option) when the simulator judged it, its body read: the time the strict rate and the
 *   rate limit count it at (failNext, auth and the rate checks all run at that instant), for
 *   counting arrivals in any sliding 1,000 ms; for a request cut before its body was read, when
 *   it arrived. Only differences of arrivedAt mean something (each process has its own origin);
 *   canned: answered from failNext.
 * @typedef {'playground.call' | 'knowledgeBase.create' | 'knowledgeBase.update' | 'segment.contact.update'} LedgerOp
 * @typedef {{ op: LedgerOp, id: string | undefined, body: unknown, at: number, createdId?: string }} LedgerEntry
 *   id: the query id of the update operations; at: Date.now() when applied; createdId
 *   (knowledgeBase.create): the id the record was stored under (the API never returns it).
 * @typedef {{ applied: LedgerEntry[], countsByKey: Map<string, number> }} Ledger
 *   countsByKey: by op + ':' + (id ?? JSON.stringify(body)).
 * @typedef {{ inFlight: number, maxInFlight: number, total: number }} Stats
 *   inFlight: received and not yet answered, latency included.
 * @typedef {{
 *   status: number,
 *   body?: unknown,
 *   rawBody?: string,
 *   headers?: Record<string, string>,
 *   times?: number,
 *   method?: string,
 *   path?: string,
 *   id?: string,
 *   bodyFields?: Record<string, unknown>,
 *   afterApplying?: boolean,
 * }} FailureSpec
 *   A canned answer: status (0 destroys the socket), a JSON body (default {message: <status
 *   text>}) or a raw one (content-type text/html unless headers say otherwise), for `times`
 *   matching requests (default 1). The matching: method, path (without query), the `id` query
 *   parameter, body fields with these values (compared as JSON). afterApplying: the request goes
 *   through as usual and, once applied, gets the canned answer instead of its own (status 0: its
 *   connection is cut, outcome reset-after; otherwise outcome applied); requests not applied do
 *   not use it up.
 * @typedef {{
 *   url: string,
 *   readonly requests: RecordedRequest[],
 *   readonly ledger: Ledger,
 *   readonly stats: Stats,
 *   readonly data: SimulatorData,
 *   reset(): void,
 *   failNext(spec: FailureSpec): void,
 *   setOptions(options: ModeOptions): void,
 *   close(): Promise<void>,
 * }} Simulator
 *   url: e.g. http://127.0.0.1:PORT, no trailing slash; reset() clears requests, ledger, queued
 *   failures and stats, refills the rate-limit bucket, empties the strict rate's window and
 *   counts throttleFirst's requests anew, keeping the data, and cuts the requests
 *   still in flight before they are applied (reset-before); failNext() queues a
 *   canned answer, given before auth and validation, never applied (or a cut after applying);
 *   setOptions() changes only the keys present.
 */

/** @param {string} rawBody @returns {unknown} */
function parseJsonOrUndefined(rawBody) {
	try {
		return rawBody === '' ? undefined : JSON.parse(rawBody);
	} catch {
		return undefined;
	}
}

/**
 * Checks a failNext argument and fills in its defaults.
 * @param {FailureSpec} spec
 */
function normalizeFailure(spec) {
	if (typeof spec !== 'object' || spec === null) throw new TypeError('failNext needs an object');
	const {
		status,
		times = 1,
		method,
		path,
		id,
		rawBody,
		body,
		bodyFields,
		afterApplying = false,
	} = spec;
	if (!Number.isInteger(status) || (status !== 0 && (status < 100 || status > 599))) {
		throw new TypeError('failNext.status must be 0 (reset) or an HTTP status code');
	}
	if (!Number.isInteger(times) || times < 1)
		throw new TypeError('failNext.times must be at least 1');
	if (rawBody !== undefined && typeof rawBody !== 'string') {
		throw new TypeError('failNext.rawBody must be a string');
	}
	if (
		bodyFields !== undefined &&
		(typeof bodyFields !== 'object' || bodyFields === null || Array.isArray(bodyFields))
	) {
		throw new TypeError('failNext.bodyFields must be an object of field values');
	}
	if (typeof afterApplying !== 'boolean')
		throw new TypeError('failNext.afterApplying must be true or false');
	/** @type {Record<string, string>} */
	const headers = {};
	for (const [name, value] of Object.entries(spec.headers ?? {})) {
		headers[name.toLowerCase()] = String(value);
	}
	return {
		status,
		body,
		rawBody,
		headers,
		remaining: times,
		method: method ? method.toUpperCase() : undefined,
		path,
		id,
		bodyFields,
		afterApplying,
	};
}

/**
 * Whether a JSON body has every field of `fields` with the same value (compared as JSON).
 * @param {unknown} body @param {Record<string, unknown> | undefined} fields
 */
function bodyHasFields(body, fields) {
	if (fields === undefined) return true;
	if (typeof body !== 'object' || body === null) return false;
	return Object.entries(fields).every(
		([name, value]) =>
			Object.prototype.hasOwnProperty.call(body, name) &&
			JSON.stringify(/** @type {Record<string, unknown>} */ (body)[name]) === JSON.stringify(value),
	);
}

/** @param {number} status */
function defaultBodyFor(status) {
	return status === 204 || status === 304
		? undefined
		: { message: http.STATUS_CODES[status] ?? 'Error' };
}

/**
 * @param {SimulatorOptions} options
 * @returns {Promise<Simulator>}
 */
async function createSimulator(options) {
	if (!options || typeof options.apiKey !== 'string' || options.apiKey === '') {
		throw new TypeError('createSimulator: apiKey is required');
	}
	const host = options.host ?? '127.0.0.1';
	if (options.now !== undefined && typeof options.now !== 'function') {
		throw new TypeError('createSimulator: now must be a function returning milliseconds');
	}
	/** The monotonic clock of the rate limits and of arrivedAt. */
	const now = options.now ?? (() => performance.now());
	const store = createStore({ assistants: options.assistants, dataFile: options.dataFile });

	/** @type {RecordedRequest[]} */
	const requests = [];
	/** @type {Simulator['ledger']} */
	const ledger = { applied: [], countsByKey: new Map() };
	const stats = { inFlight: 0, maxInFlight: 0, total: 0 };
	/** @type {Array<ReturnType<typeof normalizeFailure>>} */
	const failures = [];
	/** @type {{ latencyMs: number, arrivalDelay?: ArrivalDelay, bucket?: TokenBucket, strictRate?: StrictRate, statedCount?: ReturnType<typeof checkStatedCount>, chaos?: Chaos, throttleFirst?: ThrottleFirst }} */
	const modes = { latencyMs: 0 };
	/** Cancel functions of the latency waits in progress, so close() needn't wait for them. */
	const waits = new Set();
	let closed = false;
	/** Counts reset() calls: a request that arrived before the last one is cut before it is applied. */
	let generation = 0;

	/** Only the keys present change; null or undefined switches a mode off. @param {ModeOptions} next */
	function setOptions(next = {}) {
		if (typeof next !== 'object' || next === null)
			throw new TypeError('setOptions needs an object');
		const changed = { ...modes };
		if ('latencyMs' in next) {
			const latencyMs = next.latencyMs ?? 0;
			if (!(typeof latencyMs === 'number' && latencyMs >= 0)) {
				throw new TypeError('latencyMs must be a non-negative number');
			}
			changed.latencyMs = latencyMs;
		}
		if ('arrivalDelay' in next)
			changed.arrivalDelay = next.arrivalDelay ? new ArrivalDelay(next.arrivalDelay) : undefined;
		if ('rateLimit' in next)
			changed.bucket = next.rateLimit ? new TokenBucket(next.rateLimit, now) : undefined;
		if ('strictRate' in next)
			changed.strictRate = next.strictRate ? new StrictRate(next.strictRate, now) : undefined;
		if ('statedCount' in next)
			changed.statedCount = next.statedCount ? checkStatedCount(next.statedCount) : undefined;
		if ('chaos' in next) changed.chaos = next.chaos ? new Chaos(next.chaos) : undefined;
		if ('throttleFirst' in next)
			changed.throttleFirst = next.throttleFirst
				? new ThrottleFirst(next.throttleFirst)
				: undefined;
		Object.assign(modes, changed);
	}

	/** @param {FailureSpec} spec */
	function failNext(spec) {
		failures.push(normalizeFailure(spec));
	}

	/**
	 * The first queued failure matching the request, for the moment asked: on arrival, or
	 * after the request was applied (afterApplying).
	 * @param {RecordedRequest} record @param {boolean} afterApplying
	 */
	function takeFailure({ method, path, query, body }, afterApplying) {
		const index = failures.findIndex(
			(f) =>
				f.afterApplying === afterApplying &&
				(!f.method || f.method === method) &&
				(!f.path || f.path === path) &&
				(f.id === undefined || f.id === query.id) &&
				bodyHasFields(body, f.bodyFields),
		);
		if (index === -1) return undefined;
		const failure = failures[index];
		failure.remaining -= 1;
		if (failure.remaining === 0) failures.splice(index, 1);
		return failure;
	}

	function reset() {
		// The last test's requests end here: those still in flight (a latency wait, a body being
		// read) are cut before they are applied, so nothing of that test lands in the next one's.
		generation += 1;
		for (const cancel of [...waits]) cancel();
		requests.length = 0;
		ledger.applied.length = 0;
		ledger.countsByKey.clear();
		failures.length = 0;
		stats.total = 0;
		stats.maxInFlight = stats.inFlight;
		modes.bucket?.refill();
		modes.strictRate?.clear();
		modes.throttleFirst?.refill();
	}

	/** @param {import('./routes').Applied} applied */
	function recordApplied({ op, id, body, createdId }) {
		ledger.applied.push({
			op: /** @type {LedgerOp} */ (op),
			id,
			body,
			at: Date.now(),
			...(createdId ? { createdId } : {}),
		});
		const key = `${op}:${id ?? JSON.stringify(body)}`;
		ledger.countsByKey.set(key, (ledger.countsByKey.get(key) ?? 0) + 1);
		store.changed();
	}

	/** @param {number} ms */
	function wait(ms) {
		return new Promise((resolve) => {
			const cancel = () => {
				clearTimeout(timer);
				waits.delete(cancel);
				resolve(undefined);
			};
			const timer = setTimeout(cancel, ms);
			waits.add(cancel);
		});
	}

	/**
	 * @param {import('http').IncomingMessage} req
	 * @param {import('http').ServerResponse} res
	 * @param {URL} url
	 */
	async function handleApi(req, res, url) {
		const arrivedIn = generation;
		stats.total += 1;
		stats.inFlight += 1;
		stats.maxInFlight = Math.max(stats.maxInFlight, stats.inFlight);
		/** @type {RecordedRequest} */
		const record = {
			method: req.method ?? 'GET',
			target: req.url ?? '/',
			path: url.pathname,
			query: Object.fromEntries(url.searchParams),
			headers: req.headers,
			rawBody: '',
			body: undefined,
			status: 0,
			receivedAt: Date.now(),
			arrivedAt: now(),
			outcome: 'pending',
		};
		requests.push(record);

		// Every path ends in exactly one finish(), which keeps inFlight exact.
		let answered = false;
		/** @param {number} status @param {Outcome} outcome */
		const finish = (status, outcome) => {
			if (answered) return false;
			answered = true;
			record.status = status;
			record.outcome = outcome;
			record.answeredAt = Date.now();
			stats.inFlight -= 1;
			return true;
		};
		/** @param {number} status @param {Outcome} outcome @param {unknown} body @param {Record<string, string>} [headers] */
		const reply = (status, outcome, body, headers) => {
			if (finish(status, outcome)) sendJson(res, status, body, headers);
		};
		/** @param {'reset-before' | 'reset-after'} outcome */
		const resetSocket = (outcome) => {
			if (finish(0, outcome)) req.socket.destroy();
		};

		try {
			try {
				record.rawBody = await readBody(req);
			} catch {
				return resetSocket('reset-before');
			}
			record.body = parseJsonOrUndefined(record.rawBody);
			if (modes.arrivalDelay) await wait(modes.arrivalDelay.next());
			if (arrivedIn !== generation) return resetSocket('reset-before');
			// From here to the rate checks nothing waits: they count the request at this time.
			record.arrivedAt = now();

			/**
			 * A canned answer instead of the real one: before applying ('rejected') or after ('applied').
			 * @param {ReturnType<typeof normalizeFailure>} canned @param {'rejected' | 'applied'} outcome
			 */
			const answerCanned = (canned, outcome) => {
				record.canned = true;
				if (canned.status === 0) {
					return resetSocket(outcome === 'applied' ? 'reset-after' : 'reset-before');
				}
				if (!finish(canned.status, outcome)) return;
				if (canned.rawBody !== undefined) {
					return sendRaw(res, canned.status, canned.rawBody, {
						'content-type': 'text/html; charset=utf-8',
						...canned.headers,
					});
				}
				const body = canned.body !== undefined ? canned.body : defaultBodyFor(canned.status);
				return sendJson(res, canned.status, body, canned.headers);
			};

			const canned = takeFailure(record, false);
			if (canned) return answerCanned(canned, 'rejected');

			if (apiKeyProblem(req.headers, options.apiKey)) {
				return reply(401, 'rejected', { message: 'Invalid or missing API key' });
			}

			if (modes.throttleFirst?.take()) {
				return reply(
					429,
					'throttled',
					{ message: 'Too many requests' },
					{ 'retry-after': String(modes.throttleFirst.retryAfterSeconds) },
				);
			}
			// A request must pass the strict rate and the rate limit: the strict window is asked
			// first without counting, then the bucket takes its token, then the window counts it,
			// so that one refused by either is counted by neither.
			const strictWait = modes.strictRate ? modes.strictRate.retryAfter(record.arrivedAt) : 0;
			const retryAfter = strictWait > 0 ? strictWait : modes.bucket ? modes.bucket.take() : 0;
			if (retryAfter === 0) modes.strictRate?.take(record.arrivedAt);
			// The strict rate's count as it stands once the request was judged, on every answer from here.
			const count =
				modes.strictRate && modes.statedCount
					? statedCountHeaders(
							modes.strictRate.state(record.arrivedAt),
							modes.statedCount,
							Date.now(),
						)
					: {};
			if (retryAfter > 0) {
				return reply(
					429,
					'throttled',
					{ message: 'Too many requests' },
					{ ...count, 'retry-after': String(retryAfter) },
				);
			}
			const fate = modes.chaos ? modes.chaos.next() : 'none';
			if (fate === '429') {
				return reply(
					429,
					'throttled',
					{ message: 'Too many requests' },
					{ 'retry-after': String(modes.chaos?.retryAfterSeconds) },
				);
			}
			if (fate === '503') {
				return reply(
					503,
					'throttled',
					{ message: 'Service unavailable' },
					{ 'retry-after': String(modes.chaos?.retryAfterSeconds) },
				);
			}

			if (modes.latencyMs > 0) await wait(modes.latencyMs);
			if (closed || arrivedIn !== generation || fate === 'reset-before')
				return resetSocket('reset-before');

			const result = dispatch(record, store.data);
			if (result.applied) recordApplied(result.applied);
			// 'reset-after' means processed, then cut off: applied if it was valid.
			if (fate === 'reset-after') return resetSocket('reset-after');
			const cannedAfter = result.applied ? takeFailure(record, true) : undefined;
			if (cannedAfter) return answerCanned(cannedAfter, 'applied');
			reply(result.status, result.status < 400 ? 'applied' : 'rejected', result.body, {
				...count,
				...result.headers,
			});
		} catch (error) {
			reply(500, 'rejected', { message: `Simulator error: ${error.message}` });
		}
	}

	const server = http.createServer((req, res) => {
		const url = new URL(req.url ?? '/', 'http://simulator.invalid');
		if (isControlPath(url.pathname)) {
			handleControl(req, res, url, sim).catch((error) => {
				sendJson(res, 500, { message: `Simulator error: ${error.message}` });
			});
		} else {
			void handleApi(req, res, url);
		}
	});

	/** @type {Promise<void> | undefined} */
	let closing;
	function close() {
		if (!closing) {
			closed = true;
			for (const cancel of [...waits]) cancel();
			closing = new Promise((resolve) => server.close(() => resolve()));
			server.closeAllConnections();
			store.flush();
		}
		return closing;
	}

	setOptions({
		latencyMs: options.latencyMs,
		arrivalDelay: options.arrivalDelay,
		rateLimit: options.rateLimit,
		strictRate: options.strictRate,
		statedCount: options.statedCount,
		chaos: options.chaos,
		throttleFirst: options.throttleFirst,
	});

	await new Promise((resolve, reject) => {
		server.once('error', reject);
		server.listen(options.port ?? 0, host, () => {
			server.off('error', reject);
			resolve(undefined);
		});
	});
	const address = /** @type {import('net').AddressInfo} */ (server.address());
	const urlHost = host.includes(':') ? `[${host}]` : host;

	/** @type {Simulator} */
	const sim = {
		url: `http://${urlHost}:${address.port}`,
		get requests() {
			return requests;
		},
		get ledger() {
			return ledger;
		},
		get stats() {
			return stats;
		},
		get data() {
			return store.data;
		},
		reset,
		failNext,
		setOptions,
		close,
	};
	return sim;
}

module.exports = {
	createSimulator,
	apiKeyProblem,
	requestProblem,
	defaultAssistants,
	defaultKnowledgeBases,
	OPT_OUT_SCRIPT,
	SEEDED_KNOWLEDGE_BASE_IDS,
};
