// The words of a failed attempt, for each way an attempt ends (failureModel decides whether it was
// sent again; this file only says so), built so that n8n keeps them, and without the key.
import type { DeclarativeRestApiSettings, INode } from 'n8n-workflow';
import { isHtml, methodOf, ruleOf, type AttemptFailure, type FailureEnd } from './failureModel';
import { PLAIN_HTTP_ANSWER, type Phase } from './failurePhase';
import { nodeError, type NodeError } from './nodeError';
import { askedTooLongWords, callerDeadlineWords, type NotSentAgain } from './notSentErrors';
import { redact } from './redact';
import { serviceMessage } from './serviceMessage';
import { originOf } from './target';

/** Where and how a failed request went, for its message, and why it was not sent again. */
interface FailureContext extends NotSentAgain {
	method: string;
	path: string;
	origin: string;
	/** The `id` query parameter of update operations. */
	id?: string;
	attempts: number;
	timeoutMs?: number;
	/** Request Options → Proxy, without its user name and password. */
	proxy?: string;
}

/** `notAgain`: for an item's last attempt, why it was not sent again (notSentErrors.ts notSentAgain). */
export function failureContext(
	options: DeclarativeRestApiSettings.HttpRequestOptions,
	attempts: number,
	notAgain: NotSentAgain = {},
): FailureContext {
	const { qs, proxy } = options;
	const id = qs?.id;
	return {
		...notAgain,
		method: methodOf(options),
		path: String(options.url ?? ''),
		origin: originOf(options.baseURL),
		id: id === undefined ? undefined : String(id),
		attempts,
		timeoutMs: options.timeout,
		proxy: proxy?.host && `${proxy.protocol ?? 'http'}://${proxy.host}:${proxy.port}`,
	};
}

/** What the service may have done with a request that is not sent again. */
function mayHaveDone(path: string): string {
	if (/playground\/call/.test(path)) return 'the call may have been placed';
	if (/knowledgeBase\/create/.test(path)) return 'the knowledge base may have been created';
	return 'it may have been applied';
}

/** A duration as a person reads it: 240 ms, 1.5 s. */
const spoken = (ms: number) =>
	ms < 1000 ? `${Math.round(ms)} ms` : `${Math.round(ms / 100) / 10} s`;

const NOUN_BY_PATH: Array<[RegExp, string]> = [
	[/knowledgeBase/, 'knowledge base'],
	[/segment\/contact/, 'segment contact'],
];

type Words = { message: string; description?: string };
type Facts = { failure: AttemptFailure; context: FailureContext; said?: string; retried: string };

/** What refused a request before it was sent, and what to check, by the step that refused it. */
const REFUSED: Partial<Record<Phase, (failure: AttemptFailure) => [string, string]>> = {
	certificate: ({ rawMessage, code }) => [
		`the server's certificate was refused: ${rawMessage} (${code})`,
		" Node.js checks the certificate before sending anything: check the server's certificate chain, dates, name and purpose.",
	],
	ssrf: ({ detail }) => [
		`n8n's SSRF protection refused the address${detail ? ` ${detail}` : ''}`,
		' With N8N_SSRF_PROTECTION_ENABLED, n8n refuses addresses in its blocked ranges: allow the host with N8N_SSRF_ALLOWED_HOSTNAMES or its addresses with N8N_SSRF_ALLOWED_IP_RANGES.',
	],
};

/** A 404: an update's record; else the service's own reason first (a page or "Not Found" is none). */
function notFound({ failure, context: { method, path, id }, said }: Facts): Words {
	const noun = NOUN_BY_PATH.find(([pattern]) => pattern.test(path))?.[1];
	const noReason =
		isHtml(failure.body, failure.headers) || /^(404 )?not found\.?$/i.test(said ?? '');
	const reason = noReason ? undefined : said;
	if (noun && id !== undefined)
		return { message: `No ${noun} with ID "${id}" was found (HTTP 404)`, description: reason };
	if (reason)
		return {
			message: `The service found nothing for ${method} ${path} (HTTP 404): ${reason}`,
			description: `If every request answers HTTP 404, check the Base URL in the credential: it should be the service's address, e.g. https://api.example.com.`,
		};
	return {
		message: `The service has no ${method} ${path} (HTTP 404): check the Base URL in the credential`,
		description: `The Base URL should be the service's address, e.g. https://api.example.com.${said ? ` The service said: ${said}` : ''}`,
	};
}

/** The words for each way an attempt fails. */
const WORDS: Record<FailureEnd, (facts: Facts) => Words> = {
	'not-connected': ({ failure, context, retried }) => {
		const { code, phase, detail, durationMs, rawMessage } = failure;
		const several = detail?.includes('; ');
		// The one address Node tried (`connect ECONNREFUSED ::1:443`), when the Base URL does not show it.
		const address = !several && phase === 'connect' && detail?.split(' ')[2]?.replace(/:\d+$/, '');
		// How long it took, when an attempt of a run timed it (the picker's request is not timed).
		const took = durationMs === undefined ? '' : spoken(durationMs);
		let why = `: ${code === 'ECONNREFUSED' ? 'connection refused' : `no connection (${code ?? 'unknown'})`}`;
		let check = 'Check the Base URL in the credential and that the service is running.';
		if (phase === 'name') why = `: the name did not resolve (${detail ?? code})`;
		else if (phase === 'proxy') {
			why = `: the proxy did not open the tunnel (${detail ?? rawMessage})`;
			check =
				'Check the proxy (Request Options → Proxy, or HTTPS_PROXY) and that it reaches the Base URL.';
		} else if (several) why = `: every address failed (${detail})`;
		else if (code === 'ETIMEDOUT') why = took ? ` within ${took}` : ': the connection timed out';
		else if (phase === 'tls') {
			// EPROTO: an OpenSSL error during a system call; only its message says which.
			why = `: the TLS handshake failed (${code ?? 'unknown'}${code === 'EPROTO' && detail ? `: ${detail}` : ''})`;
			check = PLAIN_HTTP_ANSWER.test(`${code} ${rawMessage}`)
				? 'The port answers plain HTTP: use http:// instead of https:// in the Base URL of the credential.'
				: "Check that the Base URL's port serves HTTPS.";
		}
		if (address && !context.origin.includes(address)) why += ` (${detail})`;
		const via = context.proxy ? ` through the proxy ${context.proxy}` : '';
		return {
			message: `Could not connect to ${context.origin}${via}${why}${retried}`,
			description: `Nothing reached the service. ${check}`,
		};
	},
	unsendable: ({ failure, context }) => {
		const { phase, rawMessage } = failure;
		const [why, check] = (phase && REFUSED[phase]?.(failure)) || [rawMessage, ''];
		return {
			message: `The request to ${context.origin} could not be sent: ${why}`,
			description: `Nothing reached the service.${check}`,
		};
	},
	cut: ({ context, retried }) => ({
		message: `The connection to ${context.origin} was dropped before an answer arrived${retried}`,
	}),
	timeout: ({ context, retried }) => ({
		message: `The request timed out${context.timeoutMs ? ` after ${context.timeoutMs} ms` : ''}${retried}`,
		description: 'Raise the Timeout in the node settings (Request Options) if the service is slow.',
	}),
	unusable: ({ failure, context }) => ({
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
	'client-error': (facts) => {
		const { status } = facts.failure;
		const { said } = facts;
		if (status === 401 || status === 403)
			return {
				message: `The service refused the API key (HTTP ${status}): check the API Key in the "Voice Assistant API" credential`,
				description: said && `The service said: ${said}`,
			};
		if (status === 404) return notFound(facts);
		return {
			message: `The service rejected the request (HTTP ${status})${said ? `: ${said}` : ''}`,
			description: said ? undefined : 'The service gave no reason.',
		};
	},
	'rate-limited': ({ retried }) => ({
		message: `The service kept answering "too many requests" (HTTP 429)${retried}`,
		description:
			'Set the account\'s limit as the Rate Limit of the "Voice Assistant API" credential, or raise "Max Retries" or "Max Retry Wait" under Options.',
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
	if (context.askedMs !== undefined) return askedTooLongWords(failure.status, context, retried);
	const said = serviceMessage(failure.body, secret);
	const words = callerDeadlineWords(
		context.caller,
		WORDS[failure.end]({ failure, context, said, retried }),
	);
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
