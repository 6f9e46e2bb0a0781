'use strict';

/**
 * The strict rate's count, stated on an answer's headers as services state theirs: the simulator's
 * own reading of the IETF httpapi working group's draft "RateLimit header fields for HTTP" and of
 * the older X-RateLimit-* convention (it never imports the node's reading).
 *
 * - `ietf`: `RateLimit-Policy` lists each window as a quota policy, a string naming it with its
 *   quota `q` and its window `w` in seconds (`"second";q=200;w=1, "minute";q=12000;w=60`);
 *   `RateLimit` gives, for each policy by name, the quota units left `r` and the seconds `t` until
 *   the window takes more (`"second";r=37;t=1, …`). Whole numbers; `t` rounded up.
 * - `x-ratelimit`: one window (`policy`: the second's, or the minute's) in `X-RateLimit-Limit`,
 *   `X-RateLimit-Remaining` and `X-RateLimit-Reset`, the reset as the seconds to wait (`reset:
 *   'seconds'`, rounded up), as Unix seconds (`'unix'`, rounded up) or as an HTTP date (`'date'`,
 *   the second after). The window's length is not stated, as in the convention.
 *
 * Each answer's count is the window's after the request was judged: an accepted one is counted in
 * it. Node's own `Date` header goes with every answer.
 */

/**
 * @typedef {{ fields: 'ietf' | 'x-ratelimit', reset?: 'seconds' | 'unix' | 'date', policy?: 'second' | 'minute' }} StatedCountOptions
 */

const POLICY_NAMES = ['second', 'minute'];

/** @param {StatedCountOptions} options */
function checkStatedCount(options) {
	const { fields, reset = 'seconds', policy = 'second' } = options;
	if (fields !== 'ietf' && fields !== 'x-ratelimit') {
		throw new TypeError('statedCount.fields must be "ietf" or "x-ratelimit"');
	}
	if (!['seconds', 'unix', 'date'].includes(reset)) {
		throw new TypeError('statedCount.reset must be "seconds", "unix" or "date"');
	}
	if (!POLICY_NAMES.includes(policy)) {
		throw new TypeError('statedCount.policy must be "second" or "minute"');
	}
	return { fields, reset, policy };
}

/**
 * The headers stating `windows` (StrictRate.state(), the second's window first).
 * @param {import('./limits').WindowState[]} windows
 * @param {ReturnType<typeof checkStatedCount>} options
 * @param {number} wallNow the time of day in ms (Date.now())
 * @returns {Record<string, string>}
 */
function statedCountHeaders(windows, options, wallNow) {
	const seconds = (/** @type {number} */ ms) => Math.max(0, Math.ceil(ms / 1000));
	if (options.fields === 'ietf') {
		const named = windows.map((window, i) => ({ name: POLICY_NAMES[i], ...window }));
		return {
			'ratelimit-policy': named
				.map(({ name, quota, windowMs }) => `"${name}";q=${quota};w=${seconds(windowMs)}`)
				.join(', '),
			ratelimit: named
				.map(({ name, remaining, resetMs }) => `"${name}";r=${remaining};t=${seconds(resetMs)}`)
				.join(', '),
		};
	}
	const window = windows[POLICY_NAMES.indexOf(options.policy)] ?? windows[0];
	const resetAt = wallNow + window.resetMs;
	const reset = {
		seconds: String(seconds(window.resetMs)),
		unix: String(Math.ceil(resetAt / 1000)),
		date: new Date(Math.ceil(resetAt / 1000) * 1000).toUTCString(),
	}[options.reset];
	return {
		'x-ratelimit-limit': String(window.quota),
		'x-ratelimit-remaining': String(window.remaining),
		'x-ratelimit-reset': reset,
	};
}

module.exports = { checkStatedCount, statedCountHeaders };
