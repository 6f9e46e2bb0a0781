import {
	failureKindOf,
	isRetryable,
	type FailureKind,
} from '../nodes/VoiceAssistant/shared/httpFailure';
import {
	MIN_RETRY_DELAY_MS,
	backoffDelay,
	decideRetry,
	parseRetryAfter,
} from '../nodes/VoiceAssistant/shared/request/retry';
import {
	DEFAULT_REQUEST_POLICY,
	readRequestPolicy,
	requestPolicyOptions,
} from '../nodes/VoiceAssistant/shared/requestPolicy';

describe('Retry-After', () => {
	const now = Date.parse('2026-11-25T12:00:00Z');

	it.each([
		['2', 2000],
		['0', 0],
		[' 120 ', 120_000],
		['1.5', 1500],
		[['3'], 3000],
		[7, 7000],
		['Wed, 25 Nov 2026 12:00:30 GMT', 30_000],
		['Wed, 25 Nov 2026 11:59:00 GMT', 0],
	])('%j → %d ms', (header, expected) => {
		expect(parseRetryAfter(header, now)).toBe(expected);
	});

	it.each([undefined, '', 'soon', '-1', null, {}])('%j is ignored', (header) => {
		expect(parseRetryAfter(header, now)).toBeUndefined();
	});
});

describe('which failures are retried', () => {
	it('classifies statuses and connection errors', () => {
		expect(failureKindOf(429, undefined)).toBe('rate-limited');
		expect(failureKindOf(503, undefined)).toBe('unavailable');
		expect(failureKindOf(500, undefined)).toBe('server-error');
		expect(failureKindOf(504, undefined)).toBe('server-error');
		expect(failureKindOf(404, undefined)).toBe('client-error');
		expect(failureKindOf(undefined, 'ECONNREFUSED')).toBe('connection-refused');
		expect(failureKindOf(undefined, 'ECONNRESET')).toBe('connection-reset');
		expect(failureKindOf(undefined, 'ECONNABORTED')).toBe('timeout');
		expect(failureKindOf(undefined, 'ETIMEDOUT')).toBe('timeout');
		expect(failureKindOf(undefined, 'ENOTFOUND')).toBe('other');
	});

	// PUT and GET can be repeated safely; a POST starts a call or creates a knowledge base.
	const table: Array<[FailureKind, boolean, boolean]> = [
		// kind,               GET/PUT, POST
		['rate-limited', true, true],
		['connection-refused', true, true],
		['unavailable', true, false],
		['server-error', true, false],
		['timeout', true, false],
		['connection-reset', true, false],
		['client-error', false, false],
		['other', false, false],
	];
	it.each(table)('%s: idempotent %s, POST %s', (kind, idempotent, post) => {
		expect(isRetryable('GET', kind)).toBe(idempotent);
		expect(isRetryable('put', kind)).toBe(idempotent);
		expect(isRetryable('POST', kind)).toBe(post);
	});
});

describe('retry decision', () => {
	const policy = { ...DEFAULT_REQUEST_POLICY, maxRetries: 3, maxRetryWaitMs: 10_000 };

	it('uses Retry-After when given, backoff otherwise', () => {
		expect(decideRetry(policy, 'PUT', 'rate-limited', 0, 0, 2000)).toEqual({
			retry: true,
			delayMs: 2000,
			guided: true,
		});
		expect(decideRetry(policy, 'PUT', 'server-error', 2, 0, undefined, () => 1)).toEqual({
			retry: true,
			delayMs: 2000,
			guided: false,
		});
	});

	it('stops after the last unguided retry, past the wait budget, or when retrying is off', () => {
		expect(decideRetry(policy, 'PUT', 'server-error', 3, 0, undefined).retry).toBe(false);
		expect(decideRetry(policy, 'PUT', 'rate-limited', 3, 0, undefined).retry).toBe(false);
		expect(decideRetry(policy, 'PUT', 'server-error', 3, 0, 1000).retry).toBe(false); // a 500's Retry-After is no pushback
		expect(decideRetry(policy, 'PUT', 'rate-limited', 1, 9000, 2000).retry).toBe(false);
		expect(decideRetry({ ...policy, retry: false }, 'GET', 'unavailable', 0, 0, 0).retry).toBe(
			false,
		);
		expect(decideRetry(policy, 'POST', 'unavailable', 0, 0, 0).retry).toBe(false);
	});

	it('waits as long as a 429 or 503 asks, however many times, within Max Retry Wait', () => {
		for (const kind of ['rate-limited', 'unavailable'] as const) {
			expect(decideRetry(policy, 'PUT', kind, 3, 0, 1000)).toEqual({
				retry: true,
				delayMs: 1000,
				guided: true,
			});
			expect(decideRetry(policy, 'PUT', kind, 50, 9000, 1000)).toEqual({
				retry: true,
				delayMs: 1000,
				guided: true,
			});
			expect(decideRetry(policy, 'PUT', kind, 50, 9001, 1000).retry).toBe(false);
		}
		// A create is repeated after a 429 only (the service did not take it), never after a 503.
		expect(decideRetry(policy, 'POST', 'rate-limited', 50, 0, 1000).retry).toBe(true);
		expect(decideRetry(policy, 'POST', 'unavailable', 0, 0, 1000).retry).toBe(false);
	});

	it('backs off exponentially with full jitter, capped at 30 s', () => {
		expect([0, 1, 2, 3].map((attempt) => backoffDelay(attempt, () => 1))).toEqual([
			500, 1000, 2000, 4000,
		]);
		expect(backoffDelay(10, () => 1)).toBe(30_000);
		expect(backoffDelay(3, () => 0)).toBe(0);
		expect(backoffDelay(3, () => 0.5)).toBe(2000);
	});

	it('never retries back to back: a Retry-After of 0, or a backoff drawn as 0, still waits the floor', () => {
		expect(MIN_RETRY_DELAY_MS).toBe(250);
		expect(decideRetry(policy, 'PUT', 'rate-limited', 0, 0, 0)).toEqual({
			retry: true,
			delayMs: MIN_RETRY_DELAY_MS,
			guided: true,
		});
		expect(decideRetry(policy, 'PUT', 'server-error', 0, 0, undefined, () => 0)).toEqual({
			retry: true,
			delayMs: MIN_RETRY_DELAY_MS,
			guided: false,
		});
	});
});

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
