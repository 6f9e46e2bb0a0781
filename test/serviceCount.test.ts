/**
 * The service's own word on its rate limit as the node reads it (shared/serviceCount.ts): the IETF
 * draft's RateLimit-Policy and RateLimit fields, the older drafts' RateLimit-Limit/-Remaining/-Reset,
 * the X-RateLimit-* convention with each form of reset, and Retry-After; every time read against
 * the answer's own Date, every value that cannot be meant left out. The same headers from the
 * simulator over HTTP: test/sharedAccount.test.ts (virtual time) and test/hardening.
 */
import { retryAfterOf, statedCountOf } from '../nodes/VoiceAssistant/shared/serviceCount';

/** The longest wait or reset a header is taken at: 90 days. */
const MAX_HINT_MS = 90 * 86_400_000;

/** n8n's time of day, and the service's a minute ahead of it (n8n's clock 60 s behind). */
const N8N_NOW = Date.parse('2026-11-25T12:00:00Z');
const AHEAD = 'Wed, 25 Nov 2026 12:01:00 GMT';

describe('Retry-After', () => {
	it.each([
		['2', 2000],
		['0', 0],
		[' 120 ', 120_000],
		['1.5', 1500],
		[['3'], 3000],
		[7, 7000],
		['86400', 86_400_000],
		['3000000', 3_000_000_000],
		['Wed, 25 Nov 2026 12:00:30 GMT', 30_000],
		['Wed, 25 Nov 2026 11:59:00 GMT', 0],
	])('%j → %d ms', (header, expected) => {
		expect(retryAfterOf({ 'retry-after': header }, N8N_NOW)).toBe(expected);
	});

	it('an HTTP date is read against the answer\'s Date: "in 2 s" is 2 s, however far off n8n\'s clock is', () => {
		const inTwo = 'Wed, 25 Nov 2026 12:01:02 GMT';
		// n8n 60 s behind the service, and 60 s ahead of it.
		expect(retryAfterOf({ 'retry-after': inTwo, date: AHEAD }, N8N_NOW)).toBe(2000);
		expect(retryAfterOf({ 'retry-after': inTwo, date: AHEAD }, N8N_NOW + 120_000)).toBe(2000);
		// Without a readable Date, n8n's own clock.
		expect(retryAfterOf({ 'retry-after': inTwo, date: 'yesterday' }, N8N_NOW)).toBe(62_000);
	});

	it.each([
		undefined,
		'',
		'soon',
		'-1',
		null,
		{},
		'1e3',
		'7776001',
		'1767225600000',
		'99999999999999',
		'Fri, 25 Nov 2050 12:00:00 GMT',
	])('%j is left out: not a number of seconds or a date, or beyond 90 days', (header) => {
		expect(retryAfterOf({ 'retry-after': header, date: AHEAD }, N8N_NOW)).toBeUndefined();
	});
});

describe("the service's stated count", () => {
	it('IETF fields: the policy holding requests to the lowest rate, its quota, window, what is left and when it takes more', () => {
		const headers = {
			'ratelimit-policy': '"second";q=200;w=1, "minute";q=12000;w=60',
			ratelimit: '"second";r=37;t=1, "minute";r=11800;t=45',
		};
		// Both allow 200 a second: the shorter window.
		expect(statedCountOf(headers, N8N_NOW)).toEqual({
			quota: 200,
			windowMs: 1000,
			remaining: 37,
			resetMs: 1000,
		});
		// An hour's 5,000 may be spent at once: only windows of at most a minute pace.
		const hourly = {
			'ratelimit-policy': '"burst";q=100;w=1, "hour";q=5000;w=3600',
			ratelimit: '"hour";r=4000;t=1200',
		};
		expect(statedCountOf(hourly, N8N_NOW)).toEqual({
			quota: 100,
			windowMs: 1000,
			remaining: undefined,
			resetMs: undefined,
		});
		expect(
			statedCountOf({ 'x-ratelimit-limit': '5000', 'x-ratelimit-reset': '1200' }, N8N_NOW),
		).toBeUndefined();
		// A policy of bytes, not requests, is not a rate of requests.
		const bytes = { 'ratelimit-policy': '"data";q=1000000;qu="content-bytes";w=60' };
		expect(statedCountOf(bytes, N8N_NOW)).toBeUndefined();
	});

	it("the older drafts' RateLimit-Limit, -Remaining and -Reset, and a policy of a bare quota", () => {
		expect(
			statedCountOf(
				{ 'ratelimit-limit': '10', 'ratelimit-remaining': '4', 'ratelimit-reset': '7' },
				N8N_NOW,
			),
		).toEqual({ quota: 10, windowMs: 7000, remaining: 4, resetMs: 7000 });
		expect(statedCountOf({ 'ratelimit-policy': '10;w=1' }, N8N_NOW)).toEqual({
			quota: 10,
			windowMs: 1000,
			remaining: undefined,
			resetMs: undefined,
		});
	});

	it.each([
		['seconds to wait', '30', 30_000],
		['Unix seconds, against the Date', String(Date.parse(AHEAD) / 1000 + 30), 30_000],
		['an HTTP date, against the Date', 'Wed, 25 Nov 2026 12:01:30 GMT', 30_000],
	])(
		'X-RateLimit-*, the reset as %s: its window as long as the reset (a time of day a second less)',
		(_label, reset, resetMs) => {
			const counted = statedCountOf(
				{
					'x-ratelimit-limit': '200',
					'x-ratelimit-remaining': '150',
					'x-ratelimit-reset': reset,
					date: AHEAD,
				},
				N8N_NOW,
			);
			expect(counted).toEqual({
				quota: 200,
				windowMs: reset === '30' ? 30_000 : 29_000,
				remaining: 150,
				resetMs,
			});
		},
	);

	it.each([
		['a limit of 0', { 'x-ratelimit-limit': '0', 'x-ratelimit-remaining': '0' }],
		['a limit of 10^12', { 'x-ratelimit-limit': '1000000000000' }],
		['a negative limit', { 'x-ratelimit-limit': '-5' }],
		['a limit that is not a number', { 'x-ratelimit-limit': 'lots' }],
		['a policy of quota 0', { 'ratelimit-policy': '"a";q=0;w=1' }],
		['a policy of window 0', { 'ratelimit-policy': '"a";q=10;w=0' }],
		['fields that do not parse', { 'ratelimit-policy': ';;,"', ratelimit: '"' }],
	])('%s states no count', (_label, headers) => {
		expect(statedCountOf(headers, N8N_NOW)).toBeUndefined();
	});

	it.each([
		['a remaining count of 10^12', { 'x-ratelimit-remaining': '1000000000000' }, 'remaining'],
		['a negative remaining count', { 'x-ratelimit-remaining': '-3' }, 'remaining'],
		['a reset in a year', { 'x-ratelimit-reset': String(365 * 86_400) }, 'resetMs'],
		['a reset as a timestamp in ms', { 'x-ratelimit-reset': '1767225600000' }, 'resetMs'],
		['a reset of 99999999999999', { 'x-ratelimit-reset': '99999999999999' }, 'resetMs'],
		['a reset date in a year', { 'x-ratelimit-reset': 'Thu, 25 Nov 2027 12:00:00 GMT' }, 'resetMs'],
	])('%s is left out, the limit kept', (_label, headers, field) => {
		const counted = statedCountOf({ 'x-ratelimit-limit': '100', date: AHEAD, ...headers }, N8N_NOW);
		expect(counted?.quota).toBe(100);
		expect(counted?.[field as 'remaining' | 'resetMs']).toBeUndefined();
		expect(counted?.windowMs).toBeLessThanOrEqual(MAX_HINT_MS);
	});

	it('no count stated: undefined', () => {
		expect(statedCountOf({}, N8N_NOW)).toBeUndefined();
		expect(statedCountOf(undefined, N8N_NOW)).toBeUndefined();
	});
});
