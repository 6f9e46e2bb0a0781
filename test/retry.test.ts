/**
 * The retry decision within a run (shared/retry.ts): backoff, Max Retries, Max Retry Wait and the
 * floor between attempts, for the failure model's rules. How Retry-After is read:
 * test/serviceCount.test.ts.
 */
import { ruleOf } from '../nodes/VoiceAssistant/shared/failureModel';
import { decideRetry } from '../nodes/VoiceAssistant/shared/retry';
import { readRequestPolicy } from '../nodes/VoiceAssistant/shared/requestPolicy';

describe('retry decision', () => {
	const policy = { ...readRequestPolicy({}), maxRetries: 3, maxRetryWaitMs: 10_000 };

	it('uses Retry-After when given, backoff otherwise', () => {
		expect(decideRetry(policy, ruleOf('rate-limited', 'PUT'), 0, 0, 2000)).toEqual({
			retry: true,
			delayMs: 2000,
			guided: true,
		});
		expect(
			decideRetry(policy, ruleOf('server-error', 'PUT'), 2, 0, undefined, Infinity, () => 1),
		).toEqual({
			retry: true,
			delayMs: 2000,
			guided: false,
		});
	});

	it('stops after the last unguided retry, past the wait budget, or when retrying is off', () => {
		expect(decideRetry(policy, ruleOf('server-error', 'PUT'), 3, 0, undefined).retry).toBe(false);
		expect(decideRetry(policy, ruleOf('rate-limited', 'PUT'), 3, 0, undefined).retry).toBe(false);
		expect(decideRetry(policy, ruleOf('server-error', 'PUT'), 3, 0, 1000).retry).toBe(false); // a 500's Retry-After is no pushback
		expect(decideRetry(policy, ruleOf('rate-limited', 'PUT'), 1, 9000, 2000).retry).toBe(false);
		expect(
			decideRetry({ ...policy, retry: false }, ruleOf('unavailable', 'GET'), 0, 0, 0).retry,
		).toBe(false);
		expect(decideRetry(policy, ruleOf('unavailable', 'POST'), 0, 0, 0).retry).toBe(false);
	});

	it('waits as long as a 429 or 503 asks, however many times, within Max Retry Wait', () => {
		for (const kind of ['rate-limited', 'unavailable'] as const) {
			expect(decideRetry(policy, ruleOf(kind, 'PUT'), 3, 0, 1000)).toEqual({
				retry: true,
				delayMs: 1000,
				guided: true,
			});
			expect(decideRetry(policy, ruleOf(kind, 'PUT'), 50, 9000, 1000)).toEqual({
				retry: true,
				delayMs: 1000,
				guided: true,
			});
			expect(decideRetry(policy, ruleOf(kind, 'PUT'), 50, 9001, 1000).retry).toBe(false);
		}
		// A create is repeated after a 429 only (the service did not take it), never after a 503.
		expect(decideRetry(policy, ruleOf('rate-limited', 'POST'), 50, 0, 1000).retry).toBe(true);
		expect(decideRetry(policy, ruleOf('unavailable', 'POST'), 0, 0, 1000).retry).toBe(false);
	});

	it('backs off exponentially with full jitter, capped at 30 s', () => {
		const backoff = (retries: number, random: () => number) => {
			const decision = decideRetry(
				{ ...policy, maxRetries: 50, maxRetryWaitMs: 3_600_000 },
				ruleOf('server-error', 'PUT'),
				retries,
				0,
				undefined,
				Infinity,
				random,
			);
			return decision.retry ? decision.delayMs : undefined;
		};
		expect([0, 1, 2, 3].map((retries) => backoff(retries, () => 1))).toEqual([
			500, 1000, 2000, 4000,
		]);
		expect(backoff(10, () => 1)).toBe(30_000);
		expect(backoff(3, () => 0.5)).toBe(2000);
		// A backoff drawn below the floor waits the floor (next test).
		expect(backoff(3, () => 0)).toBe(250);
	});

	it('never retries back to back: a Retry-After of 0, or a backoff drawn as 0, still waits the floor', () => {
		expect(decideRetry(policy, ruleOf('rate-limited', 'PUT'), 0, 0, 0)).toEqual({
			retry: true,
			delayMs: 250,
			guided: true,
		});
		expect(
			decideRetry(policy, ruleOf('server-error', 'PUT'), 0, 0, undefined, Infinity, () => 0),
		).toEqual({
			retry: true,
			delayMs: 250,
			guided: false,
		});
	});

	describe("no wait reaches the caller's deadline (an MCP client's tool call on a queue-mode worker)", () => {
		const patient = { ...policy, maxRetryWaitMs: 600_000 };
		const backoffOf1 = () => 1;
		it.each([
			[
				'a Retry-After past it: refused at once, naming the wait',
				patient,
				['rate-limited', 'POST'],
				115_000,
				109_000,
				{ retry: false, askedMs: 115_000, pastCaller: true },
			],
			[
				'a Retry-After before it: waited',
				patient,
				['rate-limited', 'POST'],
				2000,
				109_000,
				{ retry: true, delayMs: 2000, guided: true },
			],
			[
				'a Retry-After ending at it: past it',
				patient,
				['rate-limited', 'PUT'],
				2000,
				2000,
				{ retry: false, askedMs: 2000, pastCaller: true },
			],
			[
				'Max Retry Wait reached first: its words',
				policy,
				['rate-limited', 'PUT'],
				20_000,
				60_000,
				{ retry: false, askedMs: 20_000 },
			],
			[
				'a backoff past it: no retry, nothing asked',
				policy,
				['server-error', 'PUT'],
				undefined,
				400,
				{ retry: false, pastCaller: true },
			],
			[
				'none left (an attempt it cut): no retry',
				policy,
				['timeout', 'GET'],
				undefined,
				0,
				{ retry: false, pastCaller: true },
			],
			[
				"the failure model's table first: a POST that may have been received, never",
				policy,
				['timeout', 'POST'],
				undefined,
				0,
				{ retry: false },
			],
		] as const)('%s', (_case, withPolicy, [end, method], retryAfterMs, callerLeftMs, expected) => {
			expect(
				decideRetry(withPolicy, ruleOf(end, method), 0, 0, retryAfterMs, callerLeftMs, backoffOf1),
			).toEqual(expected);
		});
	});
});
