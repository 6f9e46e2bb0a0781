// The request policy: how a run sends (concurrency, retries, waits), read from the node's
// "Options" collection, which is declared here too, and the node's own Max Requests per Second.
import type { IDataObject, IExecuteSingleFunctions, INodeProperties } from 'n8n-workflow';
import { readRate } from './rate';
import { isUnset, readSwitch } from './spec/coerce';

/** Requests in flight when a run starts in automatic mode: a service answering in 100 ms sees about 320 a second. */
export const INITIAL_CONCURRENCY = 32;

export interface RequestPolicy {
	/** The fixed bound on requests in flight, or in automatic mode its ceiling. */
	maxConcurrency: number;
	/** Automatic mode: the bound follows the service's pushback (see WindowSizer). */
	adaptiveConcurrency: boolean;
	retry: boolean;
	maxRetries: number;
	/** Upper bound on the time one item spends sleeping between its attempts. */
	maxRetryWaitMs: number;
	/** Set when an option is not a number: nothing may be sent then. */
	problem?: string;
}

type NumericOption = 'maxConcurrency' | 'maxRetries' | 'maxRetryWaitSeconds';

/**
 * A whole number within the range the UI shows for the option (values from expressions are not
 * held to it by n8n): empty means not set, numeric text is its number, anything else is refused.
 */
function readWholeNumber(
	options: IDataObject,
	name: NumericOption,
): { value?: number; problem?: string } {
	const given = options[name];
	if (isUnset(given)) return {};
	const number =
		typeof given === 'number' || typeof given === 'string' ? Number(given) : Number.NaN;
	const option = optionNamed(name);
	if (!Number.isFinite(number))
		return { problem: `"${option.displayName}" (Options) must be a number` };
	const { minValue = -Infinity, maxValue = Infinity } = option.typeOptions ?? {};
	return { value: Math.min(maxValue, Math.max(minValue, Math.floor(number))) };
}

type FlagOption = 'adaptiveConcurrency' | 'retryOnFailure';

/** An on/off option (readSwitch); anything else is refused, naming the option. */
function readFlag(options: IDataObject, name: FlagOption): { value?: boolean; problem?: string } {
	const given = options[name];
	if (isUnset(given)) return {};
	const value = readSwitch(given);
	if (value !== undefined) return { value };
	return {
		problem: `"${optionNamed(name).displayName}" (Options) must be true or false, not ${JSON.stringify(given)}`,
	};
}

export function readRequestPolicy(options: IDataObject): RequestPolicy {
	const defaults = DEFAULT_REQUEST_POLICY;
	const concurrency = readWholeNumber(options, 'maxConcurrency');
	const retries = readWholeNumber(options, 'maxRetries');
	const waitSeconds = readWholeNumber(options, 'maxRetryWaitSeconds');
	const adaptive = readFlag(options, 'adaptiveConcurrency');
	const retry = readFlag(options, 'retryOnFailure');
	const policy: RequestPolicy = {
		maxConcurrency: concurrency.value ?? defaults.maxConcurrency,
		adaptiveConcurrency: adaptive.value ?? defaults.adaptiveConcurrency,
		retry: retry.value ?? defaults.retry,
		maxRetries: retries.value ?? defaults.maxRetries,
		maxRetryWaitMs:
			waitSeconds.value === undefined ? defaults.maxRetryWaitMs : waitSeconds.value * 1000,
	};
	const problem =
		concurrency.problem ??
		retries.problem ??
		waitSeconds.problem ??
		adaptive.problem ??
		retry.problem;
	return problem ? { ...policy, problem } : policy;
}

/** The "Options" collection every operation shows: how requests are sent, not what they carry. */
export const requestPolicyOptions: INodeProperties = {
	displayName: 'Options',
	name: 'options',
	type: 'collection',
	placeholder: 'Add Option',
	default: {},
	options: [
		{
			displayName: 'Adapt Concurrency to the Service',
			name: 'adaptiveConcurrency',
			type: 'boolean',
			default: true,
			description: `Whether to start with ${INITIAL_CONCURRENCY} requests in flight and raise that toward Max Concurrent Requests while the service keeps up, halving it when more than half of a round of requests (as many as it allows in flight) end in 429, 503 or a timeout, and to hold the account's requests to the rate the service allows once its 429s show a rate limit. Off: always Max Concurrent Requests, and no pacing of its own (the credential's Rate Limit still holds).`,
		},
		{
			displayName: 'Max Concurrent Requests',
			name: 'maxConcurrency',
			type: 'number',
			typeOptions: { minValue: 1, maxValue: 1000 },
			default: 1000,
			description:
				'Most requests in flight at once across all input items of one run: the ceiling when concurrency adapts to the service, the exact number otherwise (then set it to what the service allows)',
		},
		{
			displayName: 'Max Requests per Second',
			name: 'maxRequestsPerSecond',
			type: 'number',
			typeOptions: { minValue: 0 },
			default: 0,
			description:
				"Most requests of this node's run that arrive at the service in any second, across all its input items (0.5: one every 2 s). It only lowers the account's Rate Limit (set on the credential) for this node's own requests, never for other runs or workflows of the account. Read for every item: the lowest value holds. 0: none.",
		},
		{
			displayName: 'Max Retries',
			name: 'maxRetries',
			type: 'number',
			typeOptions: { minValue: 0, maxValue: 50 },
			default: 8,
			description:
				'Most retries of one item before it fails (when retrying is on), not counting the retries a Retry-After asked for: Max Retry Wait bounds those',
		},
		{
			displayName: 'Max Retry Wait (Seconds)',
			name: 'maxRetryWaitSeconds',
			type: 'number',
			typeOptions: { minValue: 1, maxValue: 3600 },
			default: 300,
			description:
				'Most time one item may spend waiting between its retries before it fails (when retrying is on), at most an hour. A Retry-After asking for longer fails the item at once.',
		},
		{
			displayName: 'Retry on Rate Limit and Transient Errors',
			name: 'retryOnFailure',
			type: 'boolean',
			default: true,
			description:
				'Whether to retry a request answered with 429 or 5xx, or cut by a timeout or a dropped connection. Honors Retry-After. Requests that create something (start a call, create a knowledge base) are retried only when the service provably did not receive them (429, connection refused).',
		},
	],
};

/**
 * The node's own Max Requests per Second for the item in `context` (undefined: none), or the
 * problem of its value, named with the field: read on every item, from the UI or an expression.
 */
export function readMaxRequestsPerSecond(context: IExecuteSingleFunctions): {
	perSecond?: number;
	problem?: string;
} {
	const raw = (context.getNode().parameters.options as IDataObject | undefined)
		?.maxRequestsPerSecond;
	const fromExpression = typeof raw === 'string' && raw.startsWith('=');
	const given = context.getNodeParameter('options.maxRequestsPerSecond', '');
	return readRate(
		given,
		`"${optionNamed('maxRequestsPerSecond').displayName}" (Options)`,
		fromExpression,
	);
}

function optionNamed(name: string): INodeProperties {
	return requestPolicyOptions.options?.find(
		(candidate) => candidate.name === name,
	) as INodeProperties;
}

/** The defaults shown in the UI are the ones applied when an option is not set. */
const DEFAULT_REQUEST_POLICY: RequestPolicy = {
	maxConcurrency: optionNamed('maxConcurrency').default as number,
	adaptiveConcurrency: optionNamed('adaptiveConcurrency').default as boolean,
	retry: optionNamed('retryOnFailure').default as boolean,
	maxRetries: optionNamed('maxRetries').default as number,
	maxRetryWaitMs: (optionNamed('maxRetryWaitSeconds').default as number) * 1000,
};
