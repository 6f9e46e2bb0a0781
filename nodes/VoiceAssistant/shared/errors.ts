import type {
	IDataObject,
	IExecuteSingleFunctions,
	IN8nHttpFullResponse,
	INode,
	INodeExecutionData,
	JsonObject,
} from 'n8n-workflow';
import { NodeApiError, NodeOperationError } from 'n8n-workflow';
import { redact } from './redact';
import { failureKindOf, type FailureKind } from './retry';

/** What a failed HTTP attempt tells us, read off n8n's error without keeping the request (and its headers). */
export interface HttpFailure {
	kind: FailureKind;
	status?: number;
	code?: string;
	retryAfter?: unknown;
	body?: unknown;
	rawMessage: string;
}

/** Responses the node answered with a status of 400 or more, kept aside by failOnHttpError. */
const failedResponses = new WeakMap<Error, { status: number; headers: IDataObject; body: unknown }>();

/** An HTML page (a proxy, a login page, a web site at the Base URL) rather than the API's JSON. */
export function isHtml(body: unknown, headers: IDataObject = {}): boolean {
	if (typeof body !== 'string' || body.trim() === '') return false;
	return String(headers['content-type'] ?? '').includes('text/html') || /^\s*<(!doctype|html)/i.test(body);
}

/**
 * postReceive of every operation. Requests are sent with ignoreHttpStatusErrors, so an error
 * status arrives here with its headers (n8n's own request error drops them, and with them
 * Retry-After); it is turned into an error that sendRequest can read and retry. A redirect or
 * an HTML page is never the service's answer: a wrong Base URL, a proxy or a login page.
 */
export async function failOnHttpError(
	this: IExecuteSingleFunctions,
	items: INodeExecutionData[],
	response: IN8nHttpFullResponse,
): Promise<INodeExecutionData[]> {
	if (response.statusCode >= 300 && response.statusCode < 400) {
		const location = String(response.headers.location ?? '');
		throw new NodeOperationError(
			this.getNode(),
			`The service redirected the request (HTTP ${response.statusCode})${location ? ` to ${originOf(location)}` : ''}: check the Base URL in the credential`,
			{
				itemIndex: this.getItemIndex(),
				description: 'Redirects are not followed, so the API key is never sent to another address.',
			},
		);
	}
	if (response.statusCode < 400 && isHtml(response.body, response.headers)) {
		throw new NodeOperationError(
			this.getNode(),
			`The service answered with an HTML page instead of JSON (HTTP ${response.statusCode}): check the Base URL in the credential`,
			{ itemIndex: this.getItemIndex(), description: 'Nothing was done: the answer came from a web page, not the API.' },
		);
	}
	if (response.statusCode < 400) return items;
	const error = new NodeApiError(this.getNode(), { message: `HTTP ${response.statusCode}` }, {
		httpCode: String(response.statusCode),
	});
	failedResponses.set(error, { status: response.statusCode, headers: response.headers, body: response.body });
	throw error;
}

type N8nRequestError = { message?: string; httpCode?: string | null; context?: { data?: unknown } };

export function readHttpFailure(error: unknown): HttpFailure {
	const response = error instanceof Error ? failedResponses.get(error) : undefined;
	if (response) {
		return {
			kind: failureKindOf(response.status, undefined),
			status: response.status,
			retryAfter: response.headers['retry-after'],
			body: response.body,
			rawMessage: `HTTP ${response.status}`,
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

const MAX_MESSAGE_LENGTH = 300;

/**
 * The service's own explanation from an error body (error body shape: not shown in the spec),
 * with the secret removed before it is shortened, so no fragment of it can survive.
 */
export function serviceMessage(body: unknown, secret?: string): string | undefined {
	const said = rawServiceMessage(body);
	const text = redact(said, secret);
	return text && text.length > MAX_MESSAGE_LENGTH ? `${text.slice(0, MAX_MESSAGE_LENGTH)}…` : text;
}

function rawServiceMessage(body: unknown): string | undefined {
	if (typeof body === 'string') {
		const text = body.trim();
		if (!text) return undefined;
		if (isHtml(text)) return 'the service answered with an HTML page instead of JSON';
		return text;
	}
	if (!body || typeof body !== 'object') return undefined;
	const data = body as IDataObject;
	for (const key of ['message', 'error', 'detail', 'title', 'msg']) {
		const value = data[key];
		if (typeof value === 'string' && value.trim()) return value.trim();
		if (value && typeof value === 'object' && typeof (value as IDataObject).message === 'string') {
			return (value as IDataObject).message as string;
		}
	}
	if (Array.isArray(data.errors)) {
		const parts = data.errors.map((entry) =>
			typeof entry === 'string' ? entry : (entry as IDataObject)?.message ?? JSON.stringify(entry),
		);
		return parts.join('; ');
	}
	return undefined;
}

export interface FailureContext {
	method: string;
	path: string;
	origin: string;
	/** The `id` query parameter of update operations. */
	id?: string;
	attempts: number;
	timeoutMs?: number;
}

const NOUN_BY_PATH: Array<[RegExp, string]> = [
	[/knowledgeBase/, 'knowledge base'],
	[/segment\/contact/, 'segment contact'],
];

function describeFailure(
	failure: HttpFailure,
	context: FailureContext,
	secret: string | undefined,
): { message: string; description?: string } {
	const said = serviceMessage(failure.body, secret);
	const status = failure.status;
	const retried = context.attempts > 1 ? ` (after ${context.attempts} attempts)` : '';
	switch (failure.kind) {
		case 'client-error':
			if (status === 401 || status === 403) {
				return {
					message: `The service refused the API key (HTTP ${status}): check the API Key in the "Voice Assistant API" credential`,
					description: said && `The service said: ${said}`,
				};
			}
			if (status === 404) {
				const noun = NOUN_BY_PATH.find(([pattern]) => pattern.test(context.path))?.[1];
				if (noun && context.id !== undefined) {
					return { message: `No ${noun} with ID "${context.id}" was found (HTTP 404)`, description: said };
				}
				return {
					message: `The service has no ${context.method} ${context.path} (HTTP 404): check the Base URL in the credential`,
					description: `The Base URL should be the service's address, e.g. https://api.example.com.${said ? ` The service said: ${said}` : ''}`,
				};
			}
			return {
				message: `The service rejected the request (HTTP ${status})${said ? `: ${said}` : ''}`,
				description: said ? undefined : 'The service gave no reason.',
			};
		case 'rate-limited':
			return {
				message: `The service kept answering "too many requests" (HTTP 429)${retried}`,
				description: 'Lower "Max Concurrent Requests", or raise "Max Retries" or "Max Retry Wait" under Options.',
			};
		case 'unavailable':
		case 'server-error':
			return {
				message: `The service failed (HTTP ${status})${said ? `: ${said}` : ''}${retried}`,
				description: 'This is a problem on the service side. Try again later.',
			};
		case 'timeout':
			return {
				message: `The request timed out${context.timeoutMs ? ` after ${context.timeoutMs} ms` : ''}${retried}`,
				description:
					context.method === 'POST'
						? 'It was not sent again because the service may have received it. Check before running it again.'
						: 'Raise the Timeout in the node settings (Request Options) if the service is slow.',
			};
		case 'connection-refused':
			return {
				message: `Could not connect to ${context.origin}: connection refused${retried}`,
				description: 'Check the Base URL in the credential and that the service is running.',
			};
		case 'connection-reset':
			return {
				message: `The connection to ${context.origin} was dropped before an answer arrived${retried}`,
				description:
					context.method === 'POST'
						? 'It was not sent again because the service may have received it. Check before running it again.'
						: undefined,
			};
		default:
			return { message: `The request to ${context.origin} failed: ${failure.rawMessage}` };
	}
}

/** The scheme, host and port of a URL (never its path, query or credentials). */
export function originOf(url: unknown): string {
	try {
		return new URL(String(url)).origin;
	} catch {
		return 'another address';
	}
}

/**
 * Builds the error a user sees. It is made from scratch (not wrapping n8n's request error)
 * so the request, whose headers carry the API key, never travels with it.
 */
export function toUserError(
	node: INode,
	failure: HttpFailure,
	context: FailureContext,
	itemIndex: number,
	secret: string | undefined,
): NodeApiError {
	const { message, description } = describeFailure(failure, context, secret);
	// Only HTTP statuses: n8n swaps the message for a generic text when httpCode is an errno like ECONNREFUSED.
	const httpCode = failure.status !== undefined ? String(failure.status) : undefined;
	const safeMessage = redact(message, secret) as string;
	const safeDescription = redact(description, secret);
	const response: JsonObject = httpCode ? { message: safeMessage, httpCode } : { message: safeMessage };
	return new NodeApiError(node, response, {
		message: safeMessage,
		description: safeDescription,
		httpCode,
		itemIndex,
	});
}

/**
 * The error of an item not sent because another item failed first (the node does not continue
 * on fail). Its own error, naming the item that failed: n8n reports the first item in input order
 * that did not succeed, and sets that error's item index to it.
 */
export function notSentError(
	node: INode,
	itemIndex: number,
	failedItem: number,
	failure: NodeApiError | NodeOperationError,
): NodeOperationError {
	const why = `Nothing was sent for this item: item ${failedItem} failed first, and without "On Error: Continue" the node stops at the first failure.`;
	return new NodeOperationError(node, `Not sent: item ${failedItem} failed first: ${failure.message}`, {
		itemIndex,
		description: failure.description ? `${why}\n${failure.description}` : why,
	});
}
