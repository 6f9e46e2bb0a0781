// The failure model: how one attempt of a request ended, and what follows from it. Whether the
// service may have received the request decides everything: whether the run sends it again (and
// how it waits), whether a later try of n8n's Retry On Fail may send it again, and what the item's
// error says. Every one of these decisions reads RULES; no other file decides one on its own.
import type { IDataObject, INode } from 'n8n-workflow';
import { NodeApiError } from 'n8n-workflow';
import { detailOf, errnoOf, phaseOf, type Phase } from './failurePhase';

/** How one attempt ended. */
export type AttemptEnd =
	| 'not-connected' // failed resolving the name, connecting, at a proxy's tunnel or in the TLS handshake: never written
	| 'unsendable' // it could not be made (a header it cannot carry, a certificate refused): never written either
	| 'cut' // written (or not known not to be), then the connection dropped or the execution was cancelled
	| 'timeout' // written (or not known not to be), then no answer within Timeout
	| 'answered' // 2xx with a JSON body, plain text, or none
	| 'unusable' // 2xx the node cannot use: a web page (HTML), or a body the operation's own check rejects
	| 'redirect' // 3xx, never followed
	| 'client-error' // 4xx but 429: the service refused it and did nothing
	| 'rate-limited' // 429: the service did nothing
	| 'unavailable' // 503
	| 'server-error'; // other 5xx

/** How a failed attempt ended: any end but an answer the node can use. */
export type FailureEnd = Exclude<AttemptEnd, 'answered'>;

/** Reads and updates (PUT) may reach the service twice without harm; a POST starts a call or creates a knowledge base. */
type MethodKind = 'repeatable' | 'once';

const REPEATABLE_METHODS: ReadonlySet<string> = new Set([
	'GET',
	'HEAD',
	'PUT',
	'DELETE',
	'OPTIONS',
]);

/** A request's method, upper case as n8n sends it (its default: GET). */
export function methodOf(options: { method?: string }): string {
	return (options.method ?? 'GET').toUpperCase();
}

function methodKind(method: string): MethodKind {
	return REPEATABLE_METHODS.has(method) ? 'repeatable' : 'once';
}

export interface Rule {
	/** Sent again within the run: waiting as Retry-After asks (else backing off), backing off, or not. */
	retry: 'as-asked' | 'backoff' | false;
	/** A later try of n8n's Retry On Fail returns this outcome instead of sending the item again. */
	remember: boolean;
}

const rule = (retry: Rule['retry'], remember: boolean): Rule => ({ retry, remember });

/** The one table. A request that may have reached the service and is not safe to repeat is never sent again in the execution. */
const RULES: Readonly<Record<AttemptEnd, Readonly<Record<MethodKind, Rule>>>> = {
	// attempt end          repeatable (GET, PUT)        once (POST)
	'not-connected': { repeatable: rule('backoff', false), once: rule('backoff', false) },
	unsendable: { repeatable: rule(false, false), once: rule(false, false) },
	cut: { repeatable: rule('backoff', false), once: rule(false, true) },
	timeout: { repeatable: rule('backoff', false), once: rule(false, true) },
	answered: { repeatable: rule(false, true), once: rule(false, true) },
	unusable: { repeatable: rule(false, false), once: rule(false, true) },
	redirect: { repeatable: rule(false, false), once: rule(false, true) },
	'client-error': { repeatable: rule(false, false), once: rule(false, false) },
	'rate-limited': { repeatable: rule('as-asked', false), once: rule('as-asked', false) },
	unavailable: { repeatable: rule('as-asked', false), once: rule(false, true) },
	'server-error': { repeatable: rule('backoff', false), once: rule(false, true) },
};

/** `method`: as methodOf gives it. */
export function ruleOf(end: AttemptEnd, method: string): Rule {
	return RULES[end][methodKind(method)];
}

/** The request left this machine: the service may have seen it. */
export function reachedService(end: AttemptEnd): boolean {
	return end !== 'not-connected' && end !== 'unsendable';
}

/** What one failed attempt tells, read off the error without keeping the request (its headers hold the key). */
export interface AttemptFailure {
	end: FailureEnd;
	status?: number;
	code?: string;
	/** Where an attempt without an answer failed, when before its request was written. */
	phase?: Phase;
	/** Node's words for what failed, when before the request was written: each address tried, the name, the proxy's, OpenSSL's reason. */
	detail?: string;
	/** How long the attempt took. */
	durationMs?: number;
	body?: unknown;
	headers?: IDataObject;
	rawMessage: string;
}

/** What an item had sent before it ended: its attempts that left this machine, and how the last one ended. */
export interface SentSoFar {
	times: number;
	last?: AttemptFailure;
}

const TIMEOUT_CODES = new Set(['ETIMEDOUT', 'ECONNABORTED', 'ESOCKETTIMEDOUT']);

/** Node's codes for a request it refuses to make (a refused certificate is failurePhase's). */
const REFUSED_REQUEST = /^(ERR_INVALID_|ERR_HTTP_INVALID_|ERR_UNESCAPED_)/;

function endOfStatus(status: number): AttemptEnd {
	if (status === 429) return 'rate-limited';
	if (status === 503) return 'unavailable';
	if (status >= 500) return 'server-error';
	if (status >= 400) return 'client-error';
	return status >= 300 ? 'redirect' : 'answered';
}

/** How an answer ended: a 2xx that is a web page (a proxy, a login page, a site at the Base URL) is not the API's answer. */
export function endOfAnswer(status: number, headers: IDataObject, body: unknown): AttemptEnd {
	const end = endOfStatus(status);
	return end === 'answered' && isHtml(body, headers) ? 'unusable' : end;
}

/**
 * An answer the node cannot use (an error status, a redirect, a 2xx web page), as the attempt
 * throws it with its end: status, headers (Retry-After) and body travel to the decisions. Never
 * shown to the user (failureWords builds that error).
 */
export class ServiceAnswerError extends NodeApiError {
	constructor(
		node: INode,
		readonly end: FailureEnd,
		readonly status: number,
		readonly headers: IDataObject,
		readonly body: unknown,
	) {
		super(node, { message: `HTTP ${status}` }, { httpCode: String(status) });
	}
}

type RequestError = { message?: unknown; httpCode?: unknown; context?: { data?: unknown } };

/**
 * `deadlinePassed`: the attempt's own deadline aborted it. Without an answer, the phase decides
 * (failurePhase.ts): before the request was written, it did not reach the service; otherwise, or
 * when unknown, it may have.
 */
export function classifyFailure(error: unknown, deadlinePassed = false): AttemptFailure {
	if (error instanceof ServiceAnswerError) {
		const { end, status, headers, body } = error;
		return {
			end,
			status,
			headers,
			body,
			rawMessage: `HTTP ${status}`,
		};
	}
	const { message, httpCode, context } = (error ?? {}) as RequestError;
	const status = /^\d{3}$/.test(String(httpCode)) ? Number(httpCode) : undefined;
	const rawMessage = typeof message === 'string' ? message : 'Unknown error';
	const end = status === undefined ? undefined : endOfStatus(status);
	// n8n's request error names an error status (a 2xx would not be one).
	if (end && end !== 'answered') return { end, status, body: context?.data, rawMessage };
	const found = errnoOf(error);
	// A timer's end reads as ETIMEDOUT: the node's deadline, or n8n's own Timeout (axios: ECONNABORTED).
	const errno = deadlinePassed || TIMEOUT_CODES.has(found ?? '') ? 'ETIMEDOUT' : found;
	const phase = phaseOf(error);
	const detail = phase && detailOf(error, phase);
	if (phase === 'certificate' || phase === 'ssrf' || (errno && REFUSED_REQUEST.test(errno)))
		return { end: 'unsendable', phase, code: errno, detail, rawMessage };
	if (phase) return { end: 'not-connected', phase, code: errno, detail, rawMessage };
	if (errno === 'ETIMEDOUT') return { end: 'timeout', code: errno, rawMessage };
	return { end: 'cut', code: errno, rawMessage };
}

/** An HTML page (a proxy, a login page, a web site at the Base URL) rather than the API's JSON. */
export function isHtml(body: unknown, headers: IDataObject = {}): boolean {
	if (typeof body !== 'string' || body.trim() === '') return false;
	return (
		String(headers['content-type'] ?? '').includes('text/html') ||
		/^\s*<(!doctype|html)/i.test(body)
	);
}
