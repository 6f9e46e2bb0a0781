/** The Options collection read into the request policy (shared/requestPolicy.ts): defaults, values, refusals. */
import {
	DEFAULT_REQUEST_POLICY,
	readRequestPolicy,
	requestPolicyOptions,
} from '../nodes/VoiceAssistant/shared/requestPolicy';

describe('request policy options', () => {
	it('applies the defaults shown in the UI', () => {
		expect(readRequestPolicy({})).toEqual(DEFAULT_REQUEST_POLICY);
		expect(DEFAULT_REQUEST_POLICY).toEqual({
			maxConcurrency: 1000,
			adaptiveConcurrency: true,
			retry: true,
			maxRetries: 8,
			maxRetryWaitMs: 300_000,
		});
		expect(requestPolicyOptions.options?.map((option) => option.name)).toEqual([
			'adaptiveConcurrency',
			'maxConcurrency',
			'maxRetries',
			'maxRetryWaitSeconds',
			'retryOnFailure',
		]);
	});

	it('reads the values a user sets', () => {
		expect(
			readRequestPolicy({
				maxConcurrency: 3,
				adaptiveConcurrency: false,
				retryOnFailure: false,
				maxRetries: 0,
				maxRetryWaitSeconds: 5,
			}),
		).toEqual({
			maxConcurrency: 3,
			adaptiveConcurrency: false,
			retry: false,
			maxRetries: 0,
			maxRetryWaitMs: 5000,
		});
		expect(
			readRequestPolicy({ maxConcurrency: '4', maxRetries: ' 2 ', maxRetryWaitSeconds: '60' }),
		).toEqual({
			...DEFAULT_REQUEST_POLICY,
			maxConcurrency: 4,
			maxRetries: 2,
			maxRetryWaitMs: 60_000,
		});
	});

	it.each([
		['maxConcurrency', 100_000, 1000],
		['maxConcurrency', 0, 1],
		['maxConcurrency', -3, 1],
		['maxConcurrency', 0.5, 1],
		['maxConcurrency', 2.9, 2],
		['maxRetries', 100_000, 50],
		['maxRetries', -1, 0],
		['maxRetryWaitSeconds', 0, 1],
		['maxRetryWaitSeconds', -5, 1],
	])('clamps %s = %j to the range the UI shows: %j', (name, given, expected) => {
		const policy = readRequestPolicy({ [name]: given });
		const read =
			name === 'maxRetryWaitSeconds'
				? policy.maxRetryWaitMs / 1000
				: policy[name as 'maxConcurrency' | 'maxRetries'];
		expect(read).toBe(expected);
		expect(policy.problem).toBeUndefined();
	});

	it.each([
		['maxConcurrency', ''],
		['maxRetries', '   '],
		['maxRetryWaitSeconds', null],
		['maxRetries', undefined],
	])('%s = %j is not set: the default applies', (name, given) => {
		expect(readRequestPolicy({ [name]: given })).toEqual(DEFAULT_REQUEST_POLICY);
	});

	it.each([
		['maxConcurrency', 'ten', 'Max Concurrent Requests'],
		['maxRetries', 'x', 'Max Retries'],
		['maxRetries', true, 'Max Retries'],
		['maxRetryWaitSeconds', [5], 'Max Retry Wait (Seconds)'],
		['maxRetryWaitSeconds', 'Infinity', 'Max Retry Wait (Seconds)'],
		['maxConcurrency', Number.NaN, 'Max Concurrent Requests'],
	])('%s = %j is refused, naming the option', (name, given, label) => {
		expect(readRequestPolicy({ [name]: given }).problem).toBe(
			`"${label}" (Options) must be a number`,
		);
	});
});
