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

export type RetryDecision =
	| { retry: true; delayMs: number; guided: boolean }
	/** `askedMs`: the service asked for a wait beyond what Max Retry Wait leaves or past the caller's deadline; `pastCaller`: the wait would end after that deadline. */
	| { retry: false; askedMs?: number; pastCaller?: true };

/**
 * What to do after an attempt failed. A wait the service asked for (Retry-After on a 429 or 503)
 * is bounded by Max Retry Wait and the caller's deadline alone: under a long storm every request
 * still goes through once the service lets it. Other failures are also bounded by Max Retries.
 * `unguidedRetries`: this item's retries so far without such guidance; `waitedMs`: the time it
 * already spent waiting; `callerLeftMs`: how long until the caller gives up (an MCP client's tool
 * call on a queue-mode worker): a request sent after that could act after the caller was told
 * the call failed.
 */
export function decideRetry(
	policy: RequestPolicy,
	rule: Rule,
	unguidedRetries: number,
	waitedMs: number,
	retryAfterMs: number | undefined,
	callerLeftMs = Infinity,
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
	const leftMs = policy.maxRetryWaitMs - waitedMs;
	const pastCaller = delayMs >= callerLeftMs;
	if (delayMs <= leftMs && !pastCaller) return { retry: true, delayMs, guided };
	// A Retry-After longer than the wait left fails at once, saying so: a shorter wait would be refused again.
	const asked =
		retryAfterMs !== undefined && (retryAfterMs > leftMs || retryAfterMs >= callerLeftMs);
	return {
		retry: false,
		...(asked && { askedMs: retryAfterMs }),
		...(pastCaller && { pastCaller }),
	};
}
