// The words of a run's log lines: what held its requests back, and rates as the user set them.
import type { SetLimit } from './rate';

/** n8n pauses between batches while preparing, and the node sends nothing before every item is prepared. */
const BATCHING_ADVICE =
	". n8n's Batching held requests back (the node sends once n8n prepared the last batch): to space requests, set the credential's Rate Limit and turn Batching off";

/** Held back for less than this is not worth a word. */
const WORTH_SAYING_MS = 50;

/**
 * What held a run's own requests back (ms): its account's rate (how long each limit with words held
 * them: a Rate Limit as set, the service's stated limit; the lowest learned rate), its own Max
 * Requests per Second, Retry-After pauses; whether n8n's Batching held a request back, and whether
 * its credential sets a Rate Limit.
 */
export interface HeldBack {
	rateMs: number;
	heldBy?: Record<string, number>;
	lowestLearned?: number;
	/** The Rate Limit (its words) at which the service answered 429, so the rate was learned below it. */
	throttledAtLimit?: string;
	ownMs: number;
	ownRate?: number;
	pauseMs: number;
	batching: boolean;
	limitSet?: boolean;
}

export const seconds = (ms: number) => (ms / 1000).toFixed(1);

/** A rate a second, to two significant digits below 10 (1 a minute: 0.017 requests/s). */
const perSecond = (rate: number) =>
	`${rate >= 10 ? Math.round(rate) : Number(rate.toPrecision(2))} requests/s`;

/** A count of requests in a window as a service would say it: "200 a second", "12000 a minute", "5 in 10 s". */
function perWindow(quota: number, windowMs: number): string {
	const unit = { 1000: 'a second', 60_000: 'a minute', 3_600_000: 'an hour', 86_400_000: 'a day' }[
		windowMs
	];
	return `${quota} ${unit ?? `in ${seconds(windowMs)} s`}`;
}

/** The service's stated limit, and whether others of the account used part of it. */
export function statedWords(stated: {
	quota: number;
	windowMs: number;
	perSecond: number;
	share: number;
}): string {
	const limit = `the service's stated limit, ${perWindow(stated.quota, stated.windowMs)}`;
	return stated.share < stated.perSecond ? `${limit}, shared with others of the account` : limit;
}

/** The account's rate: the Rate Limit in force as the user set it, the service's stated one, or the learned rate. */
export function rateWords(
	rate: number,
	limit: SetLimit | undefined,
	stated?: Parameters<typeof statedWords>[0],
): string {
	if (rate === limit?.perSecond) return limit.words;
	if (stated && rate === stated.share) return `${perSecond(rate)}, ${statedWords(stated)}`;
	return `${perSecond(rate)}, learned from 429 answers`;
}

/** The words of what held the run back, each opening with a comma. */
export function heldBackWords(held: HeldBack): string {
	const { rateMs, ownMs, pauseMs, lowestLearned: learned, ownRate } = held;
	const words: string[] = [];
	const below = held.throttledAtLimit
		? ` below ${held.throttledAtLimit}, at which the service answered 429: another process (a queue-mode worker, another n8n) likely sends with the same account`
		: '';
	// The limit that held it longest: the credential's, another's of the account, the service's stated one.
	const [longest] = Object.entries(held.heldBy ?? {}).sort(([, a], [, b]) => b - a);
	const rate =
		learned === undefined
			? longest?.[0]
			: `learned from the service's 429 answers, down to ${perSecond(learned)}${below}`;
	if (rateMs >= WORTH_SAYING_MS && rate)
		words.push(`held back ${seconds(rateMs)} s by the account's rate limit (${rate})`);
	if (ownMs >= WORTH_SAYING_MS && ownRate !== undefined)
		words.push(`held back ${seconds(ownMs)} s by Max Requests per Second (${perSecond(ownRate)})`);
	if (pauseMs > 0) words.push(`paused ${seconds(pauseMs)} s as the service asked (Retry-After)`);
	const advice = held.batching && !held.limitSet && ownRate === undefined;
	return words.map((word) => `, ${word}`).join('') + (advice ? BATCHING_ADVICE : '');
}
