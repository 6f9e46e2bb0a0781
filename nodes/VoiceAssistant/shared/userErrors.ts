// The errors a user sees: worded for each way an attempt ends (failureModel decides whether it was
// sent again; this file only says so), built so that n8n keeps the node's words, and without the key.
import type { INode, JsonObject } from 'n8n-workflow';
import { NodeApiError } from 'n8n-workflow';
import { isHtml, ruleOf, type AttemptEnd, type AttemptFailure } from './failureModel';
import { redact } from './redact';
import { originOf } from './target';

export type NodeError = NodeApiError;

/**
 * An error that says exactly `message`. n8n's error constructors replace a message that merely
 * contains an error code (a 500 whose body mentions ECONNREFUSED would read "The service refused
 * the connection"), so the words are set again after construction. A NodeApiError, because n8n's
 * declarative loop wraps any other error in one (and rewrites it again).
 */
export function nodeError(
	node: INode,
	message: string,
	{
		description,
		itemIndex,
		httpCode,
	}: { description?: string; itemIndex?: number; httpCode?: string } = {},
): NodeError {
	const response: JsonObject = httpCode ? { message, httpCode } : { message };
	const error = new NodeApiError(node, response, { message, description, httpCode, itemIndex });
	error.message = message;
	error.description = description;
	return error;
}

const MAX_MESSAGE_LENGTH = 300;

/** A text, if `value` is one: the body is the service's (or anyone's), so nothing is converted. */
function text(value: unknown): string | undefined {
	return typeof value === 'string' && value.trim() ? value.trim() : undefined;
}

function rawServiceMessage(body: unknown): string | undefined {
	if (typeof body === 'string')
		return isHtml(body) ? 'the service answered with an HTML page instead of JSON' : text(body);
	if (!body || typeof body !== 'object') return undefined;
	const data = body as Record<string, unknown>;
	for (const key of ['message', 'error', 'detail', 'title', 'msg']) {
		const value = data[key];
		const said =
			text(value) ??
			(value && typeof value === 'object'
				? text((value as Record<string, unknown>).message)
				: undefined);
		if (said) return said;
	}
	if (!Array.isArray(data.errors)) return undefined;
	const parts = data.errors.map(
		(entry: unknown) =>
			text(entry) ??
			(entry && typeof entry === 'object'
				? text((entry as Record<string, unknown>).message)
				: undefined),
	);
	return parts.filter(Boolean).join('; ') || undefined;
}

/**
 * The service's own explanation from an error body (its shape: not shown in the spec), with the
 * secret removed before it is shortened. A hostile body (getters that throw) gives none.
 */
function serviceMessage(body: unknown, secret?: string): string | undefined {
	let said: string | undefined;
	try {
		said = redact(rawServiceMessage(body), secret);
	} catch {
		return undefined;
	}
	return said && said.length > MAX_MESSAGE_LENGTH ? `${said.slice(0, MAX_MESSAGE_LENGTH)}…` : said;
}

/** Where and how a failed request went, for its message. */
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

/** What the service may have done with a request that is not sent again. */
function mayHaveDone(path: string): string {
	if (/playground\/call/.test(path)) return 'the call may have been placed';
	if (/knowledgeBase\/create/.test(path)) return 'the knowledge base may have been created';
	return 'it may have been applied';
}

const NOUN_BY_PATH: Array<[RegExp, string]> = [
	[/knowledgeBase/, 'knowledge base'],
	[/segment\/contact/, 'segment contact'],
];

type Words = { message: string; description?: string };
type Facts = { failure: AttemptFailure; context: FailureContext; said?: string; retried: string };

/** The words for each way an attempt ends. */
const WORDS: Record<AttemptEnd, (facts: Facts) => Words> = {
	'not-connected': ({ failure, context, retried }) => ({
		message: `Could not connect to ${context.origin}: ${failure.code === 'ECONNREFUSED' ? 'connection refused' : `no connection (${failure.code ?? 'unknown'})`}${retried}`,
		description:
			'Nothing reached the service. Check the Base URL in the credential and that the service is running.',
	}),
	'not-sent': ({ failure, context }) => ({
		message: `The request to ${context.origin} could not be sent: ${failure.rawMessage}`,
		description: 'Nothing reached the service.',
	}),
	cut: ({ context, retried }) => ({
		message: `The connection to ${context.origin} was dropped before an answer arrived${retried}`,
	}),
	timeout: ({ context, retried }) => ({
		message: `The request timed out${context.timeoutMs ? ` after ${context.timeoutMs} ms` : ''}${retried}`,
		description: 'Raise the Timeout in the node settings (Request Options) if the service is slow.',
	}),
	answered: () => ({ message: 'The service answered' }),
	'not-json': ({ failure, context }) => ({
		message: `The service answered HTTP ${failure.status}, but not as JSON${isHtml(failure.body, failure.headers) ? ' (an HTML page)' : ''}`,
		description: `Check the Base URL in the credential: ${context.origin} should be the API, not a web page.`,
	}),
	redirect: ({ failure }) => {
		const location = failure.headers?.location;
		return {
			message: `The service redirected the request (HTTP ${failure.status})${location ? ` to ${originOf(location)}` : ''}: check the Base URL in the credential`,
			description: 'Redirects are not followed, so the API key is never sent to another address.',
		};
	},
	'client-error': ({ failure: { status }, context, said }) => {
		if (status === 401 || status === 403) {
			return {
				message: `The service refused the API key (HTTP ${status}): check the API Key in the "Voice Assistant API" credential`,
				description: said && `The service said: ${said}`,
			};
		}
		const noun = NOUN_BY_PATH.find(([pattern]) => pattern.test(context.path))?.[1];
		if (status === 404 && noun && context.id !== undefined) {
			return {
				message: `No ${noun} with ID "${context.id}" was found (HTTP 404)`,
				description: said,
			};
		}
		if (status === 404) {
			return {
				message: `The service has no ${context.method} ${context.path} (HTTP 404): check the Base URL in the credential`,
				description: `The Base URL should be the service's address, e.g. https://api.example.com.${said ? ` The service said: ${said}` : ''}`,
			};
		}
		return {
			message: `The service rejected the request (HTTP ${status})${said ? `: ${said}` : ''}`,
			description: said ? undefined : 'The service gave no reason.',
		};
	},
	'rate-limited': ({ retried }) => ({
		message: `The service kept answering "too many requests" (HTTP 429)${retried}`,
		description:
			'Lower "Max Concurrent Requests", or raise "Max Retries" or "Max Retry Wait" under Options.',
	}),
	unavailable: (facts) => WORDS['server-error'](facts),
	'server-error': ({ failure, said, retried }) => ({
		message: `The service failed (HTTP ${failure.status})${said ? `: ${said}` : ''}${retried}`,
		description: 'This is a problem on the service side. Try again later.',
	}),
};

function describeFailure(
	failure: AttemptFailure,
	context: FailureContext,
	secret: string | undefined,
): Words {
	const retried = context.attempts > 1 ? ` (after ${context.attempts} attempts)` : '';
	if (context.askedMs !== undefined) {
		return {
			message: `The service asked to wait ${Math.ceil(context.askedMs / 1000)} s before trying again (HTTP ${failure.status}, Retry-After), longer than "Max Retry Wait" allows${retried}`,
			description:
				'Nothing more was sent for this item. Raise "Max Retry Wait" under Options (at most an hour), or run it again later.',
		};
	}
	const words = WORDS[failure.end]({
		failure,
		context,
		said: serviceMessage(failure.body, secret),
		retried,
	});
	if (!ruleOf(failure.end, context.method).remember) return words;
	// The service may have acted on it: the table says it is never sent again in this execution.
	return {
		message: `${words.message}: ${mayHaveDone(context.path)}; not sent again`,
		description: `It was not sent again because the service may have received it. Check before running it again.${words.description ? ` ${words.description}` : ''}`,
	};
}

/**
 * The error of a failed attempt. Made from scratch (not wrapping n8n's request error) so the
 * request, whose headers carry the API key, never travels with it.
 */
export function toUserError(
	node: INode,
	failure: AttemptFailure,
	context: FailureContext,
	itemIndex: number,
	secret: string | undefined,
): NodeError {
	const { message, description } = describeFailure(failure, context, secret);
	return nodeError(node, redact(message, secret) as string, {
		description: redact(description, secret),
		// Only HTTP statuses: n8n swaps the message for a generic text when httpCode is an errno.
		httpCode: failure.status !== undefined ? String(failure.status) : undefined,
		itemIndex,
	});
}

/** What an item that is not sent (again) had sent before: its attempts that left this machine and the last answer. */
export interface SentSoFar {
	times: number;
	last?: AttemptFailure;
}

function sentSoFar(sent: SentSoFar): string {
	if (sent.times === 0) return 'Nothing was sent for this item.';
	const last =
		sent.last?.status !== undefined
			? `HTTP ${sent.last.status}`
			: `none (${sent.last?.end ?? 'cut'})`;
	return `This item was sent ${sent.times} time${sent.times > 1 ? 's' : ''} (last answer: ${last}): the service may have received it.`;
}

/**
 * The error of an item not sent (again) because another item failed first (the node does not
 * continue on fail), naming that item: n8n reports the first item in input order that did not
 * succeed.
 */
export function notSentError(
	node: INode,
	itemIndex: number,
	sent: SentSoFar,
	failedItem: number,
	failure: NodeError,
): NodeError {
	const stops = `item ${failedItem} failed first, and without "On Error: Continue" the node stops at the first failure.`;
	const why = sent.times
		? `${sentSoFar(sent)} It was not sent again because ${stops}`
		: `Nothing was sent for this item: ${stops}`;
	return nodeError(
		node,
		`Not sent${sent.times ? ' again' : ''}: item ${failedItem} failed first: ${failure.message}`,
		{
			itemIndex,
			description: failure.description ? `${why}\n${failure.description}` : why,
		},
	);
}

/** The error of an item not sent (again) because the execution was cancelled. */
export function cancelledError(node: INode, itemIndex: number, sent: SentSoFar): NodeError {
	return nodeError(node, 'The execution was cancelled', {
		itemIndex,
		description: `${sentSoFar(sent)} It was not sent${sent.times ? ' again' : ''} after the execution was cancelled.`,
	});
}

/** An exception of the node's own while it handled an item: the item fails, saying whether it was sent. */
export function unexpectedError(
	node: INode,
	itemIndex: number,
	caught: unknown,
	sent: SentSoFar,
): NodeError {
	let said = 'unknown error';
	try {
		said = caught instanceof Error ? caught.message : typeof caught === 'string' ? caught : said;
	} catch {
		// a hostile error: its message getter threw
	}
	return nodeError(node, `The node could not handle this item: ${said}`, {
		itemIndex,
		description: `${sentSoFar(sent)} It was not sent again.`,
	});
}
