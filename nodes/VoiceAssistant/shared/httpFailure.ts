import type { IDataObject, INode } from 'n8n-workflow';
import { NodeApiError } from 'n8n-workflow';

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

const IDEMPOTENT_METHODS: ReadonlySet<string> = new Set([
	'GET',
	'HEAD',
	'PUT',
	'DELETE',
	'OPTIONS',
]);

/**
 * Whether a failed request may be sent again. A POST here starts a phone call or creates a
 * knowledge base: it is repeated only when the service cannot have acted on it.
 */
export function isRetryable(method: string, kind: FailureKind): boolean {
	return IDEMPOTENT_METHODS.has(method.toUpperCase())
		? TRANSIENT.has(kind)
		: NOT_RECEIVED.has(kind);
}

/**
 * The service may have acted on a request that is not safe to repeat: a POST cut off, timed out
 * or answered with a server error. Such an item is never sent again, not even by another try of
 * n8n's Retry On Fail in the same execution. A refusal (4xx) says the service did nothing.
 */
export function mayHaveReceived(method: string, kind: FailureKind): boolean {
	return !isRetryable(method, kind) && kind !== 'client-error' && kind !== 'connection-refused';
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

/** `deadlinePassed`: the attempt's own deadline aborted it (see request/sendItem), which is a timeout. */
export function readHttpFailure(error: unknown, deadlinePassed = false): HttpFailure {
	if (error instanceof ServiceAnswerError) {
		const { status, headers, body } = error;
		return {
			kind: failureKindOf(status, undefined),
			status,
			retryAfter: headers['retry-after'],
			body,
			rawMessage: `HTTP ${status}`,
		};
	}
	const { message, httpCode, context } = (error ?? {}) as N8nRequestError;
	if (deadlinePassed) return { kind: 'timeout', code: 'ETIMEDOUT', rawMessage: 'timed out' };
	// A request that got no HTTP answer: n8n puts the errno (ECONNREFUSED…) in httpCode.
	const status = /^\d{3}$/.test(String(httpCode)) ? Number(httpCode) : undefined;
	const code = status === undefined && httpCode ? String(httpCode) : undefined;
	return {
		kind: failureKindOf(status, code),
		status,
		code,
		body: context?.data,
		rawMessage: String(message ?? 'Unknown error'),
	};
}

/** An HTML page (a proxy, a login page, a web site at the Base URL) rather than the API's JSON. */
export function isHtml(body: unknown, headers: IDataObject = {}): boolean {
	if (typeof body !== 'string' || body.trim() === '') return false;
	return (
		String(headers['content-type'] ?? '').includes('text/html') ||
		/^\s*<(!doctype|html)/i.test(body)
	);
}
