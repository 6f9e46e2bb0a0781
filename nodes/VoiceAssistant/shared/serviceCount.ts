// The service's own word on its rate limit, as an answer's headers state it: its count (the IETF
// httpapi draft's RateLimit-Policy and RateLimit fields, the draft's older RateLimit-Limit,
// -Remaining and -Reset, and the X-RateLimit-Limit, -Remaining and -Reset convention) and its
// Retry-After. A header is a hint: every time in one is read against the answer's own Date (n8n's
// clock may be off), and a value that cannot be meant (not a number, negative, a count beyond
// MAX_COUNT, a limit of 0, a wait beyond MAX_HINT_MS) is left out, never a crash. Only a window of
// at most PACED_WINDOW_MS paces the account: a longer one's quota (an hour's, a day's) may be spent
// at once, and its exhaustion is the service's Retry-After's to answer.

import { SECOND_MS } from './clock';

/** Headers as n8n gives them: lower-case names, a value or a list of values. */
type Headers = Record<string, unknown> | undefined;

/** The longest wait or reset a header is taken at (90 days): a reset in a year or a timestamp given as seconds is no hint. */
const MAX_HINT_MS = 7_776_000_000;
/** The longest window that paces the account: a minute. */
const PACED_WINDOW_MS = 60_000;
/** The largest count taken (a quota or a remaining count of 10^12 is no hint). */
const MAX_COUNT = 1e9;
/** A reset at or above this many seconds is a Unix time, below it the seconds to wait. */
const UNIX_SECONDS_FROM = 1e9;

/** A window of the service's count: its quota of requests and its length; the requests left in it and when it takes more, where stated. */
export interface StatedCount {
	quota: number;
	windowMs: number;
	remaining?: number;
	resetMs?: number;
}

/** A header's one value as text (n8n gives a repeated header as a list: its first). */
function text(headers: Headers, name: string): string | undefined {
	const value = headers?.[name];
	const first = Array.isArray(value) ? value[0] : value;
	return typeof first === 'number' || typeof first === 'string' ? String(first).trim() : undefined;
}

/** A whole count in 0..MAX_COUNT. */
function count(value: string | undefined): number | undefined {
	if (value === undefined || !/^\d+$/.test(value)) return undefined;
	const number = Number(value);
	return number <= MAX_COUNT ? number : undefined;
}

/** A wait in ms within 0..MAX_HINT_MS, or undefined. */
const bounded = (ms: number) => (ms >= 0 && ms <= MAX_HINT_MS ? ms : undefined);

/** The time of day the answer was given: its Date header, or `now` (n8n's clock) without a readable one. */
function answeredAt(headers: Headers, now: number): number {
	const date = Date.parse(text(headers, 'date') ?? '');
	return Number.isNaN(date) ? now : date;
}

/** An HTTP date (it names its weekday and month) as ms from the answer's Date. */
function fromDate(value: string, headers: Headers, now: number): number | undefined {
	if (!/[a-z]/i.test(value)) return undefined;
	const date = Date.parse(value);
	return Number.isNaN(date) ? undefined : bounded(Math.max(0, date - answeredAt(headers, now)));
}

/**
 * Retry-After in ms: delay-seconds, or an HTTP date read against the answer's Date; undefined if
 * absent, unreadable, negative or beyond MAX_HINT_MS. `now`: n8n's time of day.
 */
export function retryAfterOf(headers: Headers, now: number): number | undefined {
	const value = text(headers, 'retry-after');
	if (!value) return undefined;
	if (/^\d+(\.\d+)?$/.test(value)) return bounded(Math.round(Number(value) * 1000));
	return fromDate(value, headers, now);
}

/** A reset: seconds to wait, or a time (Unix seconds, an HTTP date) read against the answer's Date, to the second. */
function resetOf(value: string | undefined, headers: Headers, now: number) {
	if (!value) return undefined;
	const seconds = /^\d+(\.\d+)?$/.test(value) ? Number(value) : undefined;
	if (seconds !== undefined && seconds < UNIX_SECONDS_FROM)
		return { ms: bounded(seconds * 1000), atTime: false };
	const at = seconds === undefined ? undefined : seconds * 1000 - answeredAt(headers, now);
	return {
		ms: at === undefined ? fromDate(value, headers, now) : bounded(Math.max(0, at)),
		atTime: true,
	};
}

/** A Structured Field list's items: `"name";a=1;b=2` → { name, a: '1', b: '2' } (a bare integer item is named by its place). */
function items(value: string | undefined): Array<Record<string, string>> {
	return (value ?? '').split(',').map((item, place) => {
		const [name, ...parameters] = item.split(';').map((part) => part.trim());
		const fields: Record<string, string> = { name: name.replace(/^"(.*)"$/, '$1') };
		if (/^\d+$/.test(name)) [fields.name, fields.q] = [String(place), name];
		for (const parameter of parameters) {
			const [key, found = ''] = parameter.split('=').map((part) => part.trim());
			fields[key] = found.replace(/^"(.*)"$/, '$1');
		}
		return fields;
	});
}

/** The IETF draft's policies (quota `q` in requests, window `w` in seconds), each with its `RateLimit` item (`r` left, reset in `t` seconds). */
function ietfCounts(headers: Headers): StatedCount[] {
	const states = items(text(headers, 'ratelimit'));
	return items(text(headers, 'ratelimit-policy')).flatMap((policy) => {
		const quota = count(policy.q);
		const seconds = count(policy.w);
		if (!quota || !seconds || (policy.qu ?? 'requests') !== 'requests') return [];
		const state = states.find(({ name }) => name === policy.name);
		const resetMs = count(state?.t);
		return [
			{
				quota,
				windowMs: Math.min(seconds * 1000, MAX_HINT_MS),
				remaining: count(state?.r),
				resetMs: resetMs === undefined ? undefined : bounded(resetMs * 1000),
			},
		];
	});
}

/**
 * `<prefix>Limit`, `-Remaining`, `-Reset` (the older drafts' RateLimit-*, and X-RateLimit-*). The
 * window, which they do not state, is taken as long as the reset to the whole second (a time of
 * day to the second, read against a Date to the second, is a second less), at least a second.
 */
function limitFields(headers: Headers, prefix: string, now: number): StatedCount | undefined {
	const quota = count(text(headers, `${prefix}limit`)?.split(/[,;]/)[0]);
	if (!quota) return undefined;
	const reset = resetOf(text(headers, `${prefix}reset`), headers, now);
	const seconds = Math.ceil((reset?.ms ?? 0) / SECOND_MS) - (reset?.atTime ? 1 : 0);
	const windowMs = Math.max(1, seconds) * SECOND_MS;
	return {
		quota,
		windowMs,
		remaining: count(text(headers, `${prefix}remaining`)),
		resetMs: reset?.ms,
	};
}

/**
 * The count an answer states, by the window of at most a minute that holds requests to the lowest
 * rate (of two as low, the shorter); undefined when it states none that can be read. `now`: n8n's
 * time of day.
 */
export function statedCountOf(headers: Headers, now: number): StatedCount | undefined {
	const stated = [
		...ietfCounts(headers),
		limitFields(headers, 'ratelimit-', now),
		limitFields(headers, 'x-ratelimit-', now),
	].filter((found): found is StatedCount => found !== undefined);
	const perMs = ({ quota, windowMs }: StatedCount) => quota / windowMs;
	return stated
		.filter(({ windowMs }) => windowMs <= PACED_WINDOW_MS)
		.sort((a, b) => perMs(a) - perMs(b) || a.windowMs - b.windowMs)[0];
}
