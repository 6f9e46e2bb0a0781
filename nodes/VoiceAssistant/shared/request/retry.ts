import type { RequestPolicy } from './requestPolicy';

export type FailureKind =
	| 'rate-limited' // 429
	| 'unavailable' // 503
	| 'server-error' // other 5xx
	| 'client-error' // other 4xx
	| 'timeout'
	| 'connection-reset'
	| 'connection-refused'
	| 'other';

export function failureKindOf(status: number | undefined, code: string | undefined): FailureKind {
	if (status === 429) return 'rate-limited';
	if (status === 503) return 'unavailable';
	if (status !== undefined && status >= 500) return 'server-error';
	if (status !== undefined && status >= 400) return 'client-error';
	switch (code) {
		case 'ECONNREFUSED':
			return 'connection-refused';
		case 'ECONNRESET':
		case 'EPIPE':
		case 'ERR_SOCKET_CONNECTION_TIMEOUT':
		case 'ECONNABORTED_BY_PEER':
			return 'connection-reset';
		case 'ETIMEDOUT':
		case 'ECONNABORTED':
		case 'ESOCKETTIMEDOUT':
			return 'timeout';
		default:
			return 'other';
	}
}

/** The service asks for less load: automatic concurrency halves (429, 503, a timeout). */
export function isPushback(kind: FailureKind): boolean {
	return kind === 'rate-limited' || kind === 'unavailable' || kind === 'timeout';
}

/** Failures after which the service provably did nothing, so even a create may be sent again. */
const NOT_RECEIVED: ReadonlySet<FailureKind> = new Set(['rate-limited', 'connection-refused']);

/** Failures worth retrying when repeating the request is harmless (GET, PUT). */
const TRANSIENT: ReadonlySet<FailureKind> = new Set([
	'rate-limited',
	'unavailable',
	'server-error',
	'timeout',
	'connection-reset',
	'connection-refused',
]);

const IDEMPOTENT_METHODS: ReadonlySet<string> = new Set(['GET', 'HEAD', 'PUT', 'DELETE', 'OPTIONS']);

/**
 * Whether a failed request may be sent again. A POST here starts a phone call or creates a
 * knowledge base: sending it twice rings someone twice, so it is repeated only when the
 * service cannot have acted on it.
 */
export function isRetryable(method: string, kind: FailureKind): boolean {
	return IDEMPOTENT_METHODS.has(method.toUpperCase()) ? TRANSIENT.has(kind) : NOT_RECEIVED.has(kind);
}

/** Retry-After as milliseconds from `now`: delay-seconds or an HTTP date; undefined if absent or unreadable. */
export function parseRetryAfter(header: unknown, now: number): number | undefined {
	const value = Array.isArray(header) ? header[0] : header;
	if (typeof value === 'number') return value >= 0 ? value * 1000 : undefined;
	if (typeof value !== 'string' || value.trim() === '') return undefined;
	const text = value.trim();
	if (/^\d+(\.\d+)?$/.test(text)) return Math.round(Number(text) * 1000);
	if (!/[a-z]/i.test(text)) return undefined; // an HTTP date names its weekday and month
	const date = Date.parse(text);
	if (Number.isNaN(date)) return undefined;
	return Math.max(0, date - now);
}

/** The shortest wait between two attempts of an item, whatever Retry-After or the backoff say. */
export const MIN_RETRY_DELAY_MS = 250;

const BASE_BACKOFF_MS = 500;
const MAX_BACKOFF_MS = 30_000;

/** Exponential backoff with full jitter: a random wait in [0, min(cap, base·2^attempt)]. */
export function backoffDelay(attempt: number, random: () => number = Math.random): number {
	const ceiling = Math.min(MAX_BACKOFF_MS, BASE_BACKOFF_MS * 2 ** attempt);
	return Math.round(ceiling * random());
}

interface RetryDecision {
	retry: boolean;
	delayMs: number;
	/** The service said when to come back (Retry-After on a 429 or 503). */
	guided: boolean;
}

/** Pushback that says when to come back: 429 or 503 with a Retry-After. */
function isGuided(kind: FailureKind, retryAfterMs: number | undefined): boolean {
	return retryAfterMs !== undefined && (kind === 'rate-limited' || kind === 'unavailable');
}

/**
 * Decides what to do after an attempt failed. A wait the service asked for (Retry-After on a 429
 * or 503) is bounded by Max Retry Wait alone: under a long storm every request still goes
 * through once the service lets it. Failures without such guidance are bounded by Max Retries
 * too. `unguidedRetries` counts this item's retries so far that had no guidance; `waitedMs` is
 * the time it already spent waiting between attempts.
 */
export function decideRetry(
	policy: RequestPolicy,
	method: string,
	kind: FailureKind,
	unguidedRetries: number,
	waitedMs: number,
	retryAfterMs: number | undefined,
	random: () => number = Math.random,
): RetryDecision {
	const guided = isGuided(kind, retryAfterMs);
	const no = { retry: false, delayMs: 0, guided };
	if (!policy.retry || !isRetryable(method, kind)) return no;
	if (!guided && unguidedRetries >= policy.maxRetries) return no;
	// A floor: `Retry-After: 0` (or a backoff drawn as 0) must not become a burst of back-to-back requests.
	const delayMs = Math.max(MIN_RETRY_DELAY_MS, retryAfterMs ?? backoffDelay(unguidedRetries, random));
	if (waitedMs + delayMs > policy.maxRetryWaitMs) return no;
	return { retry: true, delayMs, guided };
}
