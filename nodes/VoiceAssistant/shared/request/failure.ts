import type { IDataObject, INode } from 'n8n-workflow';
import { NodeApiError } from 'n8n-workflow';
import type { RequestPolicy } from '../requestPolicy';

/** What went wrong with one attempt, as far as retrying and pacing care. */
export type FailureKind =
	| 'rate-limited' // 429
	| 'unavailable' // 503
	| 'server-error' // other 5xx
	| 'client-error' // other 4xx
	| 'timeout'
	| 'connection-reset'
	| 'connection-refused'
	| 'other';

/** What a request that got no HTTP answer failed with, by n8n's errno. */
const KIND_OF_CODE: Readonly<Record<string, FailureKind>> = {
	ECONNREFUSED: 'connection-refused',
	ECONNRESET: 'connection-reset',
	EPIPE: 'connection-reset',
	ERR_SOCKET_CONNECTION_TIMEOUT: 'connection-reset',
	ECONNABORTED_BY_PEER: 'connection-reset',
	ETIMEDOUT: 'timeout',
	ECONNABORTED: 'timeout',
	ESOCKETTIMEDOUT: 'timeout',
};

export function failureKindOf(status: number | undefined, code: string | undefined): FailureKind {
	if (status === 429) return 'rate-limited';
	if (status === 503) return 'unavailable';
	if (status !== undefined) return status >= 500 ? 'server-error' : 'client-error';
	return (code !== undefined && KIND_OF_CODE[code]) || 'other';
}

/** The service asks for less load: automatic concurrency halves (429, 503, a timeout). */
export function isPushback(kind: FailureKind): boolean {
	return kind === 'rate-limited' || kind === 'unavailable' || kind === 'timeout';
}

/** Failures after which the service provably did nothing, so even a create may be sent again. */
const NOT_RECEIVED: ReadonlySet<FailureKind> = new Set(['rate-limited', 'connection-refused']);

const TRANSIENT: ReadonlySet<FailureKind> = new Set([
	'rate-limited',
	'unavailable',
	'server-error',
	'timeout',
	'connection-reset',
	'connection-refused',
]);

const IDEMPOTENT_METHODS: ReadonlySet<string> = new Set(['GET', 'HEAD', 'PUT', 'DELETE', 'OPTIONS']);

/**
 * Whether a failed request may be sent again. A POST here starts a phone call or creates a
 * knowledge base: it is repeated only when the service cannot have acted on it.
 */
export function isRetryable(method: string, kind: FailureKind): boolean {
	return IDEMPOTENT_METHODS.has(method.toUpperCase()) ? TRANSIENT.has(kind) : NOT_RECEIVED.has(kind);
}

/**
 * The service may have acted on a request that is not safe to repeat: a POST cut off, timed out
 * or answered with a server error. Such an item is never sent again, not even by another try of
 * n8n's Retry On Fail in the same execution. A refusal (4xx) says the service did nothing.
 */
export function mayHaveReceived(method: string, kind: FailureKind): boolean {
	return !isRetryable(method, kind) && kind !== 'client-error' && kind !== 'connection-refused';
}

/** Retry-After as milliseconds from `now`: delay-seconds or an HTTP date; undefined if absent or unreadable. */
export function parseRetryAfter(header: unknown, now: number): number | undefined {
	const value = Array.isArray(header) ? header[0] : header;
	if (typeof value === 'number') return value >= 0 ? value * 1000 : undefined;
	if (typeof value !== 'string' || value.trim() === '') return undefined;
	const text = value.trim();
	if (/^\d+(\.\d+)?$/.test(text)) return Math.round(Number(text) * 1000);
	if (!/[a-z]/i.test(text)) return undefined; // an HTTP date names its weekday and month
	const date = Date.parse(text);
	return Number.isNaN(date) ? undefined : Math.max(0, date - now);
}

/** The shortest wait between two attempts, whatever Retry-After or the backoff say. */
export const MIN_RETRY_DELAY_MS = 250;
const BASE_BACKOFF_MS = 500;
const MAX_BACKOFF_MS = 30_000;

/** Exponential backoff with full jitter: a random wait in [0, min(cap, base·2^attempt)]. */
export function backoffDelay(attempt: number, random: () => number = Math.random): number {
	return Math.round(Math.min(MAX_BACKOFF_MS, BASE_BACKOFF_MS * 2 ** attempt) * random());
}

export type RetryDecision =
	| { retry: true; delayMs: number; guided: boolean }
	/** `askedMs`: the service asked for a wait beyond what Max Retry Wait leaves. */
	| { retry: false; askedMs?: number };

/**
 * What to do after an attempt failed. A wait the service asked for (Retry-After on a 429 or 503)
 * is bounded by Max Retry Wait alone: under a long storm every request still goes through once
 * the service lets it. Other failures are also bounded by Max Retries. `unguidedRetries`: this
 * item's retries so far without such guidance; `waitedMs`: the time it already spent waiting.
 */
export function decideRetry(
	policy: RequestPolicy,
	method: string,
	kind: FailureKind,
	unguidedRetries: number,
	waitedMs: number,
	retryAfterMs: number | undefined,
	random: () => number = Math.random,
): RetryDecision {
	const guided = retryAfterMs !== undefined && (kind === 'rate-limited' || kind === 'unavailable');
	if (!policy.retry || !isRetryable(method, kind)) return { retry: false };
	if (!guided && unguidedRetries >= policy.maxRetries) return { retry: false };
	// A floor: `Retry-After: 0` (or a backoff drawn as 0) must not become a burst.
	const delayMs = Math.max(MIN_RETRY_DELAY_MS, retryAfterMs ?? backoffDelay(unguidedRetries, random));
	if (waitedMs + delayMs <= policy.maxRetryWaitMs) return { retry: true, delayMs, guided };
	// A Retry-After longer than the wait left fails at once, saying so (an hour would overflow a timer).
	return guided && (retryAfterMs as number) > policy.maxRetryWaitMs - waitedMs ? { retry: false, askedMs: retryAfterMs } : { retry: false };
}

/**
 * An answer with an HTTP error status, as postReceive throws it: status, headers (Retry-After) and
 * body travel to the retry decision. Never shown to the user (userErrors builds that error).
 */
export class ServiceAnswerError extends NodeApiError {
	constructor(
		node: INode,
		readonly status: number,
		readonly headers: IDataObject,
		readonly body: unknown,
	) {
		super(node, { message: `HTTP ${status}` }, { httpCode: String(status) });
	}
}

/** What a failed attempt tells, read off the error without keeping the request (its headers hold the key). */
export interface HttpFailure {
	kind: FailureKind;
	status?: number;
	code?: string;
	retryAfter?: unknown;
	body?: unknown;
	rawMessage: string;
}

type N8nRequestError = { message?: string; httpCode?: string | null; context?: { data?: unknown } };

/** `deadlinePassed`: the attempt's own deadline aborted it (see sendItem), which is a timeout. */
export function readHttpFailure(error: unknown, deadlinePassed = false): HttpFailure {
	if (error instanceof ServiceAnswerError) {
		const { status, headers, body } = error;
		return { kind: failureKindOf(status, undefined), status, retryAfter: headers['retry-after'], body, rawMessage: `HTTP ${status}` };
	}
	const { message, httpCode, context } = (error ?? {}) as N8nRequestError;
	if (deadlinePassed) return { kind: 'timeout', code: 'ETIMEDOUT', rawMessage: 'timed out' };
	// A request that got no HTTP answer: n8n puts the errno (ECONNREFUSED…) in httpCode.
	const status = /^\d{3}$/.test(String(httpCode)) ? Number(httpCode) : undefined;
	const code = status === undefined && httpCode ? String(httpCode) : undefined;
	return { kind: failureKindOf(status, code), status, code, body: context?.data, rawMessage: String(message ?? 'Unknown error') };
}
