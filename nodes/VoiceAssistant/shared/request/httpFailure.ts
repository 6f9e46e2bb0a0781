import type { IDataObject, INode } from 'n8n-workflow';
import { NodeApiError } from 'n8n-workflow';
import { failureKindOf, type FailureKind } from './retry';

/**
 * An answer with an HTTP error status, as the node's postReceive throws it: the status, the
 * headers (Retry-After) and the body travel with the error to the retry decision. Never shown to
 * the user (userErrors builds that error), so the body cannot leak what the service echoed.
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

/** What a failed attempt tells us, read off the error without keeping the request (and its headers). */
export interface HttpFailure {
	kind: FailureKind;
	status?: number;
	code?: string;
	retryAfter?: unknown;
	body?: unknown;
	rawMessage: string;
}

type N8nRequestError = { message?: string; httpCode?: string | null; context?: { data?: unknown } };

export function readHttpFailure(error: unknown): HttpFailure {
	if (error instanceof ServiceAnswerError) {
		return {
			kind: failureKindOf(error.status, undefined),
			status: error.status,
			retryAfter: error.headers['retry-after'],
			body: error.body,
			rawMessage: `HTTP ${error.status}`,
		};
	}
	// A request that got no HTTP answer: n8n puts the errno (ECONNREFUSED…) in httpCode.
	const { message, httpCode, context } = (error ?? {}) as N8nRequestError;
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
