/**
 * Dry Run: each item comes out as the request a real run would send (method, full URL, headers,
 * JSON body; the key is added later, by n8n's authentication, so it is never there), or as every
 * problem of the item. Nothing is sent, and an invalid item never stops the run.
 */
import type {
	DeclarativeRestApiSettings,
	IDataObject,
	IExecuteSingleFunctions,
	IHttpRequestOptions,
	INodeExecutionData,
} from 'n8n-workflow';
import { DRY_RUN_PARAMETER } from './dryRunOption';
import { methodOf } from './failureModel';
import { redactValue } from './redact';
import type { Problem } from './spec/validation';
import { problemFromText } from './spec/validation';
import { requestToTarget, type ApiTarget } from './target';

/** A value longer than this (as JSON) is shown cut: enough to recognise it, not a whole document. */
const SHOWN_VALUE_LENGTH = 200;

export function isDryRun(context: IExecuteSingleFunctions): boolean {
	return context.getNodeParameter(DRY_RUN_PARAMETER, false) === true;
}

/** The problems of a dry run's invalid items, by their request (the options object of their preSend). */
const problemsOfRequest = new WeakMap<object, Problem[]>();

/**
 * preSend of an invalid item: in a dry run its problems wait for its output item and the run goes
 * on (true); otherwise (false) the item fails as usual.
 */
export function keepForDryRun(
	context: IExecuteSingleFunctions,
	request: object,
	problems: Problem[],
): boolean {
	if (!isDryRun(context)) return false;
	problemsOfRequest.set(request, problems);
	return true;
}

/** qs's encoding (n8n's params serializer, RFC 3986): what encodeURIComponent leaves, bar !'()*. */
function encodeQueryPart(text: string): string {
	return encodeURIComponent(text).replace(
		/[!'()*]/g,
		(char) => `%${char.charCodeAt(0).toString(16).toUpperCase()}`,
	);
}

/** The URL n8n's request client (axios) sends to: the Base URL joined to the path, then the query. */
function requestUrl(options: IHttpRequestOptions): string {
	const { baseURL, url } = options;
	const absolute = /^([a-z][a-z\d+\-.]*:)?\/\//i.test(url);
	const full =
		baseURL && !absolute ? `${baseURL.replace(/\/?\/$/, '')}/${url.replace(/^\/+/, '')}` : url;
	const query = Object.entries(options.qs ?? {})
		.filter(([, value]) => value !== undefined)
		.map(([key, value]) => `${encodeQueryPart(key)}=${encodeQueryPart(String(value ?? ''))}`)
		.join('&');
	return query ? `${full}${full.includes('?') ? '&' : '?'}${query}` : full;
}

/** The request as n8n's request helper gets it, as an item's json: method, full URL, headers, body. */
function describeRequest(options: IHttpRequestOptions): IDataObject {
	const described: IDataObject = {
		method: methodOf(options),
		url: requestUrl(options),
		headers: { ...options.headers } as IDataObject,
	};
	// n8n's request helper sends a body that is text or a non-empty object, nothing else.
	const { body } = options;
	if (typeof body === 'string' || (typeof body === 'object' && body && Object.keys(body).length))
		described.body = body as IDataObject;
	return described;
}

/** A problem's value, cut when long: the item is the user's own data, but a whole document helps nobody. */
function shownValue(value: unknown): unknown {
	const text = typeof value === 'string' ? value : JSON.stringify(value);
	if (text === undefined || text.length <= SHOWN_VALUE_LENGTH) return value;
	return `${text.slice(0, SHOWN_VALUE_LENGTH)}… (${text.length} characters)`;
}

function describeProblem(found: Problem): IDataObject {
	const described: IDataObject = { field: found.field };
	if (found.label) described.label = found.label;
	described.rule = found.rule;
	if ('value' in found) described.value = shownValue(found.value) as IDataObject[string];
	described.message = found.message;
	return described;
}

/** What stops every item of the run from being sent: the credential's Base URL or domains, the Options. */
function runProblems(target: ApiTarget, policyProblem: string | undefined): Problem[] {
	const texts = [target.problem ?? policyProblem, target.notAllowed];
	return texts.filter((text): text is string => !!text).map(problemFromText);
}

/**
 * The send step of a dry run's item: its output item, paired with it, without the key anywhere.
 * The request shown is the one the real send gives n8n's request helper (requestToTarget).
 */
export function dryRunOutput(
	run: { policy: { problem?: string }; finishItem(succeeded: boolean): void },
	itemIndex: number,
	request: DeclarativeRestApiSettings.HttpRequestOptions,
	target: ApiTarget,
): INodeExecutionData[] {
	const problems = [
		...(problemsOfRequest.get(request) ?? []),
		...runProblems(target, run.policy.problem),
	];
	run.finishItem(problems.length === 0);
	const json: IDataObject = problems.length
		? { dryRun: true, valid: false, problems: problems.map(describeProblem) }
		: { dryRun: true, valid: true, request: describeRequest(requestToTarget(request, target)) };
	return [{ json: redactValue(json, target.apiKey), pairedItem: { item: itemIndex } }];
}
