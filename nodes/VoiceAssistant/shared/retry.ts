// The retry decision within a run: whether the failure model's rule lets an item be sent again,
// and how long it waits first (Retry-After, or exponential backoff), within Max Retries and Max Retry Wait.
import type { Rule } from './failureModel';
import type { RequestPolicy } from './requestPolicy';

/** The shortest wait between two attempts, whatever Retry-After or the backoff say. */
const MIN_RETRY_DELAY_MS = 250;
const BASE_BACKOFF_MS = 500;
const MAX_BACKOFF_MS = 30_000;

/** Exponential backoff with full jitter: a random wait in [0, min(cap, base·2^attempt)]. */
function backoffDelay(attempt: number, random: () => number): number {
	return Math.round(Math.min(MAX_BACKOFF_MS, BASE_BACKOFF_MS * 2 ** attempt) * random());
}

type RetryDecision =
	| { retry: true; delayMs: number; guided: boolean }
	/** `askedMs`: the service asked for a wait beyond what Max Retry Wait leaves. */
	| { retry: false; askedMs?: number };

/**
 * What to do after an attempt failed. A wait the service asked for (Retry-After on a 429 or 503)
 * is bounded by Max Retry Wait alone: under a long storm every request still goes through once
 * the service lets it. Other failures are also bounded by Max Retries. `unguidedRetries`: this
 * item's retries so far without such guidance; `waitedMs`: the time it already spent waiting.
 */
export function decideRetry(
	policy: RequestPolicy,
	rule: Rule,
	unguidedRetries: number,
	waitedMs: number,
	retryAfterMs: number | undefined,
	random: () => number = Math.random,
): RetryDecision {
	if (!policy.retry || rule.retry === false) return { retry: false };
	const guided = retryAfterMs !== undefined && rule.retry === 'as-asked';
	if (!guided && unguidedRetries >= policy.maxRetries) return { retry: false };
	// A floor: `Retry-After: 0` (or a backoff drawn as 0) must not become a burst.
	const delayMs = Math.max(
		MIN_RETRY_DELAY_MS,
		retryAfterMs ?? backoffDelay(unguidedRetries, random),
	);
	if (waitedMs + delayMs <= policy.maxRetryWaitMs) return { retry: true, delayMs, guided };
	// A Retry-After longer than the wait left fails at once, saying so: a shorter wait would be refused again.
	return retryAfterMs !== undefined && retryAfterMs > policy.maxRetryWaitMs - waitedMs
		? { retry: false, askedMs: retryAfterMs }
		: { retry: false };
}
