// The errors of an item that is not sent (again): another item stopped the run, n8n could not
// prepare the run, the execution was cancelled, the service asked the account or the item to wait
// longer than the item may, its caller's deadline came, the credential cannot be used, or the
// node's own code failed; each says what the item had sent so far.
import type { INode } from 'n8n-workflow';
import { clock } from './clock';
import { CREDENTIAL_NAME } from './credential';
import type { SentSoFar } from './failureModel';
import { nodeError, type NodeError } from './nodeError';
import type { RetryDecision } from './retry';

type Words = { message: string; description?: string };

/** When a wait ends, `inMs` from now (`at`, the time of day), as a person reads it: 12:01:55 UTC (in 115 s). */
function spokenUntil(inMs: number, at = new Date(clock.date() + inMs)): string {
	return `${at.toISOString().slice(11, 19)} UTC (in ${Math.ceil(inMs / 1000)} s)`;
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

/** The error of an item of a run whose items n8n could not all prepare (under On Error: Continue): nothing of it is sent. */
export function notPreparedError(node: INode, itemIndex: number, failedItem: number): NodeError {
	return nodeError(
		node,
		`Not sent: n8n could not prepare every item of this run (item ${failedItem} failed)`,
		{
			itemIndex,
			description:
				'The node sends nothing of a run whose items n8n could not all prepare. Fix the failing item and run it again.',
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
	const said =
		caught instanceof Error
			? caught.message
			: typeof caught === 'string'
				? caught
				: 'unknown error';
	return nodeError(node, `The node could not handle this item: ${said}`, {
		itemIndex,
		description: `${sentSoFar(sent)} It was not sent again.`,
	});
}

/**
 * The error of an item not sent (again) because the service asked the account to wait (Retry-After)
 * longer than the item's Max Retry Wait has left: `inMs` from now, at the time of day `at`.
 */
export function pausedError(
	node: INode,
	itemIndex: number,
	sent: SentSoFar,
	inMs: number,
	at: Date,
): NodeError {
	const when = spokenUntil(inMs, at);
	return nodeError(
		node,
		`Not sent${sent.times ? ' again' : ''}: the service asked this account to wait until ${when}, longer than "Max Retry Wait" lets this item wait`,
		{
			itemIndex,
			description: `${sentSoFar(sent)} An answer with Retry-After (a 429, or a 503 to a GET or PUT) asked every request of the account to wait until then; requests whose Max Retry Wait allows it wait, others fail without a request. Run it again after that time.`,
		},
	);
}

/**
 * The error of an item not sent because the node's credential breaks its own rules (`problem`:
 * its field and rule, e.g. a negative Rate Limit, a Base URL with a query string). Not "Invalid
 * input": no input or tool argument can change it, so the words name the credential and say a
 * person must fix it.
 */
export function unusableCredentialError(
	node: INode,
	itemIndex: number,
	problem: string,
): NodeError {
	const name = node.credentials?.[CREDENTIAL_NAME]?.name;
	const credential = name ? `the credential "${name}"` : 'the "Voice Assistant API" credential';
	const words = `${credential.charAt(0).toUpperCase()}${credential.slice(1)} cannot be used`;
	return nodeError(node, `${words}: ${problem}`, {
		itemIndex,
		description: `${sentSoFar({ times: 0 })} A person must fix ${credential} in n8n: no change to the input or to the arguments of a tool call can.`,
	});
}

/** The error of an item not sent (again) because its caller (an MCP client, `waitsMs` through n8n) may have given up by now. */
export function callerGaveUpError(
	node: INode,
	itemIndex: number,
	sent: SentSoFar,
	waitsMs = 0,
): NodeError {
	return nodeError(
		node,
		`Not sent${sent.times ? ' again' : ''}: the caller waits ${waitsMs / 1000} s for this tool call (n8n's MCP Server Trigger in queue mode) and may have given up by now`,
		{
			itemIndex,
			description: `${sentSoFar(sent)} A request started this late could act after its caller was told the call failed: a model that calls again would act twice.`,
		},
	);
}

/** The caller's deadline that ended an item: the caller waits `waitsMs` (an MCP client's tool call on a queue-mode worker); `cut`: it cut the item's last attempt. */
interface CallerDeadline {
	waitsMs: number;
	cut: boolean;
}

/** Why an item's last attempt was not sent again, beyond the failure model's rule. */
export interface NotSentAgain {
	/** The service asked (Retry-After) for a wait beyond what Max Retry Wait leaves, or past the caller's deadline. */
	askedMs?: number;
	/** The caller's deadline ended the item: it cut the attempt, or no retry fitted before it. */
	caller?: CallerDeadline;
}

/** Why, from the retry decision and the caller's deadline (`waitsMs` undefined: the caller waits as long as it takes). */
export function notSentAgain(
	decision: RetryDecision | undefined,
	{ waitsMs, cut }: { waitsMs?: number; cut: boolean } = { cut: false },
): NotSentAgain {
	const ended = decision?.retry === false ? decision : undefined;
	const caller = waitsMs && (cut || ended?.pastCaller) ? { waitsMs, cut } : undefined;
	return { askedMs: ended?.askedMs, caller };
}

const callerDeadline = (waitsMs: number) =>
	`the caller's deadline: it waits ${waitsMs / 1000} s for this tool call (n8n's MCP Server Trigger in queue mode)`;

/** The words of an item the service asked (Retry-After) to wait longer than Max Retry Wait leaves, or past its caller's deadline. */
export function askedTooLongWords(
	status: number | undefined,
	{ askedMs = 0, caller }: NotSentAgain,
	retried: string,
): Words {
	if (caller)
		return {
			message: `The service asked to wait until ${spokenUntil(askedMs)} before trying again (HTTP ${status}, Retry-After), past ${callerDeadline(caller.waitsMs)}${retried}`,
			description:
				'Nothing more was sent for this item: a request sent after that deadline could act after the caller was told the call failed. Call the tool again once the time has passed.',
		};
	return {
		message: `The service asked to wait ${Math.ceil(askedMs / 1000)} s before trying again (HTTP ${status}, Retry-After), longer than "Max Retry Wait" allows${retried}`,
		description:
			'Nothing more was sent for this item. Raise "Max Retry Wait" under Options (at most an hour), or run it again later.',
	};
}

/** A failed attempt's `words` when its caller's deadline ended the item: it cut the attempt, or no retry fitted before it. */
export function callerDeadlineWords(caller: CallerDeadline | undefined, words: Words): Words {
	if (!caller) return words;
	if (caller.cut)
		return {
			message: `No answer before ${callerDeadline(caller.waitsMs)}`,
			description:
				'The node gives a request up shortly before that deadline, so that no answer comes after the caller was told the call failed.',
		};
	const retry = `Not sent again: a retry would come after ${callerDeadline(caller.waitsMs)}.`;
	return { ...words, description: words.description ? `${words.description} ${retry}` : retry };
}
