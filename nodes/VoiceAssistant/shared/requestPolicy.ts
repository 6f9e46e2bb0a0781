import type { IDataObject, INodeProperties } from 'n8n-workflow';

export interface RequestPolicy {
	maxConcurrency: number;
	retry: boolean;
	maxRetries: number;
	/** Upper bound on the time one item spends sleeping between its attempts. */
	maxRetryWaitMs: number;
}

function positiveInteger(value: unknown, fallback: number): number {
	const number = Number(value);
	return Number.isFinite(number) && number >= 1 ? Math.floor(number) : fallback;
}

export function readRequestPolicy(options: IDataObject): RequestPolicy {
	const defaults = DEFAULT_REQUEST_POLICY;
	return {
		maxConcurrency: positiveInteger(options.maxConcurrency, defaults.maxConcurrency),
		retry: options.retryOnFailure === undefined ? defaults.retry : options.retryOnFailure !== false,
		maxRetries: Number.isFinite(Number(options.maxRetries))
			? Math.max(0, Math.floor(Number(options.maxRetries)))
			: defaults.maxRetries,
		maxRetryWaitMs:
			positiveInteger(options.maxRetryWaitSeconds, defaults.maxRetryWaitMs / 1000) * 1000,
	};
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
			displayName: 'Max Concurrent Requests',
			name: 'maxConcurrency',
			type: 'number',
			typeOptions: { minValue: 1, maxValue: 100 },
			default: 10,
			description:
				'Most requests in flight at once across all input items of one run. Raise it for a slow API; lower it for a strict rate limit.',
		},
		{
			displayName: 'Retry on Rate Limit and Transient Errors',
			name: 'retryOnFailure',
			type: 'boolean',
			default: true,
			description:
				'Whether to retry a request answered with 429 or 5xx, or cut by a timeout or a dropped connection. Honors Retry-After. Requests that create something (start a call, create a knowledge base) are retried only when the service provably did not receive them (429, connection refused).',
		},
		{
			displayName: 'Max Retries',
			name: 'maxRetries',
			type: 'number',
			typeOptions: { minValue: 0, maxValue: 50 },
			default: 8,
			description: 'Most retries of one item before it fails (when retrying is on)',
		},
		{
			displayName: 'Max Retry Wait (Seconds)',
			name: 'maxRetryWaitSeconds',
			type: 'number',
			typeOptions: { minValue: 1 },
			default: 300,
			description:
				'Most time one item may spend waiting between its retries before it fails (when retrying is on)',
		},
	],
};

function defaultOf(name: string): unknown {
	const option = requestPolicyOptions.options?.find((candidate) => candidate.name === name);
	return (option as INodeProperties | undefined)?.default;
}

/** The defaults shown in the UI are the ones applied when an option is not set. */
export const DEFAULT_REQUEST_POLICY: RequestPolicy = {
	maxConcurrency: defaultOf('maxConcurrency') as number,
	retry: defaultOf('retryOnFailure') as boolean,
	maxRetries: defaultOf('maxRetries') as number,
	maxRetryWaitMs: (defaultOf('maxRetryWaitSeconds') as number) * 1000,
};
