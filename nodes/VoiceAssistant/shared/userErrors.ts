import type { IDataObject, INode, JsonObject } from 'n8n-workflow';
import { NodeApiError, NodeOperationError } from 'n8n-workflow';
import { isHtml, isRetryable, type HttpFailure } from './httpFailure';
import { redact } from './redact';
import { originOf } from './target';

const MAX_MESSAGE_LENGTH = 300;

/**
 * The service's own explanation from an error body (error body shape: not shown in the spec),
 * with the secret removed before it is shortened, so no fragment of it can survive.
 */
function serviceMessage(body: unknown, secret?: string): string | undefined {
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
			typeof entry === 'string'
				? entry
				: ((entry as IDataObject)?.message ?? JSON.stringify(entry)),
		);
		return parts.join('; ');
	}
	return undefined;
}

/** Where and how a failed request went, for its message. */
export function failureContext(
	options: {
		method?: unknown;
		url?: unknown;
		baseURL?: unknown;
		qs?: { id?: unknown };
		timeout?: number;
	},
	attempts: number,
): FailureContext {
	const id = options.qs?.id;
	return {
		method: String(options.method ?? 'GET').toUpperCase(),
		path: String(options.url ?? ''),
		origin: originOf(options.baseURL),
		id: id === undefined ? undefined : String(id),
		attempts,
		timeoutMs: options.timeout,
	};
}

export interface FailureContext {
	method: string;
	path: string;
	origin: string;
	/** The `id` query parameter of update operations. */
	id?: string;
	attempts: number;
	timeoutMs?: number;
	/** The service asked (Retry-After) for a wait beyond what Max Retry Wait leaves. */
	askedMs?: number;
}

/** Said of a request that is not repeated because the service may have acted on it (see isRetryable). */
const MAY_HAVE_ARRIVED =
	'It was not sent again because the service may have received it. Check before running it again.';

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
	if (context.askedMs !== undefined) {
		return {
			message: `The service asked to wait ${Math.ceil(context.askedMs / 1000)} s before trying again (HTTP ${status}, Retry-After), longer than "Max Retry Wait" allows${retried}`,
			description:
				'Nothing more was sent for this item. Raise "Max Retry Wait" under Options (at most an hour), or run it again later.',
		};
	}
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
					return {
						message: `No ${noun} with ID "${context.id}" was found (HTTP 404)`,
						description: said,
					};
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
				description:
					'Lower "Max Concurrent Requests", or raise "Max Retries" or "Max Retry Wait" under Options.',
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
				description: isRetryable(context.method, failure.kind)
					? 'Raise the Timeout in the node settings (Request Options) if the service is slow.'
					: MAY_HAVE_ARRIVED,
			};
		case 'connection-refused':
			return {
				message: `Could not connect to ${context.origin}: connection refused${retried}`,
				description: 'Check the Base URL in the credential and that the service is running.',
			};
		case 'connection-reset':
			return {
				message: `The connection to ${context.origin} was dropped before an answer arrived${retried}`,
				description: isRetryable(context.method, failure.kind) ? undefined : MAY_HAVE_ARRIVED,
			};
		default:
			return { message: `The request to ${context.origin} failed: ${failure.rawMessage}` };
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
	const response: JsonObject = httpCode
		? { message: safeMessage, httpCode }
		: { message: safeMessage };
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
	return new NodeOperationError(
		node,
		`Not sent: item ${failedItem} failed first: ${failure.message}`,
		{
			itemIndex,
			description: failure.description ? `${why}\n${failure.description}` : why,
		},
	);
}
