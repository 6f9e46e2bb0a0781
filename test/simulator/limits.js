'use strict';

/**
 * Load modes: a token-bucket rate limit, a strict sliding-window rate limit, the first requests
 * throttled, and seeded "chaos" failures. None is in the spec (it shows no rate limits or error
 * codes); they let tests exercise the node's retry handling reproducibly.
 */

/**
 * mulberry32: a tiny seeded PRNG, good enough to make chaos reproducible.
 * @param {number} seed
 * @returns {() => number} uniform numbers in [0, 1)
 */
function mulberry32(seed) {
	let a = seed >>> 0;
	return () => {
		a = (a + 0x6d2b79f5) >>> 0;
		let t = a;
		t = Math.imul(t ^ (t >>> 15), t | 1);
		t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
		return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
	};
}

/**
 * @typedef {{ ratePerSec: number, burst?: number }} RateLimitOptions
 */

/**
 * A token-bucket rate limit: `burst` requests at once, then `ratePerSec` a second on average; a
 * request finding no token is told how many whole seconds until there is one.
 */
class TokenBucket {
	/**
	 * @param {RateLimitOptions} options
	 * @param {() => number} [now] clock in ms
	 */
	constructor(options, now = () => performance.now()) {
		const { ratePerSec } = options;
		const burst = options.burst ?? Math.max(1, ratePerSec);
		if (!(typeof ratePerSec === 'number' && ratePerSec > 0)) {
			throw new TypeError('rateLimit.ratePerSec must be a positive number');
		}
		if (!(typeof burst === 'number' && burst >= 1)) {
			throw new TypeError('rateLimit.burst must be a number of at least 1');
		}
		this.ratePerSec = ratePerSec;
		this.burst = burst;
		this.now = now;
		this.tokens = burst;
		this.last = now();
	}

	/**
	 * Takes one token if there is one.
	 * @returns {number} 0 when allowed, else the whole seconds (at least 1) to wait
	 */
	take() {
		const now = this.now();
		this.tokens = Math.min(this.burst, this.tokens + ((now - this.last) / 1000) * this.ratePerSec);
		this.last = now;
		if (this.tokens >= 1) {
			this.tokens -= 1;
			return 0;
		}
		return Math.max(1, Math.ceil((1 - this.tokens) / this.ratePerSec));
	}

	refill() {
		this.tokens = this.burst;
		this.last = this.now();
	}
}

/**
 * @typedef {{ perSecond: number, windowMs?: number, perMinute?: number, window?: 'sliding' | 'fixed' }} StrictRateOptions
 * @typedef {{ quota: number, windowMs: number, remaining: number, resetMs: number }} WindowState
 *   What one window says of itself at a moment: its quota, its length, how many more it accepts
 *   now, and how long until it accepts more (sliding: until its oldest request leaves it, 0 when
 *   empty; fixed: until the window ends).
 */

/**
 * One window of a strict rate limit: at most `quota` requests accepted in a window of `windowMs`.
 * Sliding, the window at a time `now` is (now − windowMs, now]: a request arriving exactly when
 * the oldest accepted one leaves the window is accepted. Fixed, the windows are [k · windowMs,
 * (k + 1) · windowMs) of the clock, each counted from zero. Only accepted requests are counted,
 * so a refused one does not extend the window; a refused one is told to wait until the window has
 * room: max(1, ceil(ms until then / 1000)) whole seconds.
 */
class WindowLimit {
	/**
	 * @param {{ quota: number, windowMs: number, fixed: boolean }} options (checked by StrictRate)
	 * @param {() => number} now a monotonic clock in ms
	 */
	constructor({ quota, windowMs, fixed }, now) {
		this.quota = quota;
		this.windowMs = windowMs;
		this.fixed = fixed;
		this.now = now;
		/** @type {number[]} sliding: the times of the accepted requests from `first` on, oldest first */
		this.accepted = [];
		this.first = 0;
		/** fixed: the window counted, and its count */
		this.window = -Infinity;
		this.count = 0;
	}

	/** Forgets what left the window ending at `at`. @param {number} at */
	slide(at) {
		if (this.fixed) {
			const window = Math.floor(at / this.windowMs);
			if (window !== this.window) [this.window, this.count] = [window, 0];
			return;
		}
		while (this.first < this.accepted.length && this.accepted[this.first] <= at - this.windowMs) {
			this.first += 1;
		}
		if (this.first > 1024 && this.first * 2 > this.accepted.length) {
			this.accepted.splice(0, this.first);
			this.first = 0;
		}
	}

	/** @param {number} at @returns {WindowState} */
	state(at) {
		this.slide(at);
		const used = this.fixed ? this.count : this.accepted.length - this.first;
		const resetMs = this.fixed
			? (this.window + 1) * this.windowMs - at
			: used === 0
				? 0
				: this.accepted[this.first] + this.windowMs - at;
		return { quota: this.quota, windowMs: this.windowMs, remaining: this.quota - used, resetMs };
	}

	/** 0 when a request at `at` would be accepted, else the whole seconds (at least 1) to wait. @param {number} at */
	retryAfter(at) {
		const { remaining, resetMs } = this.state(at);
		return remaining > 0 ? 0 : Math.max(1, Math.ceil(resetMs / 1000));
	}

	/** Counts a request accepted at `at`. @param {number} at */
	take(at) {
		this.slide(at);
		if (this.fixed) this.count += 1;
		else this.accepted.push(at);
	}

	clear() {
		this.accepted = [];
		this.first = 0;
		this.window = -Infinity;
	}
}

/**
 * A strict rate limit: at most `perSecond` requests accepted in any window of `windowMs` (default
 * 1,000 ms), and with `perMinute` also at most that many in any window of 60,000 ms; sliding
 * windows by default, fixed ones (`window: 'fixed'`) on the clock. A request must pass every
 * window and is counted by every one or by none. Unlike the TokenBucket, no burst is ever allowed
 * beyond a window's quota.
 */
class StrictRate {
	/**
	 * @param {StrictRateOptions} options
	 * @param {() => number} [now] a monotonic clock in ms
	 */
	constructor(options, now = () => performance.now()) {
		const { perSecond, windowMs = 1000, perMinute, window = 'sliding' } = options;
		if (!(Number.isInteger(perSecond) && perSecond >= 1)) {
			throw new TypeError('strictRate.perSecond must be a whole number of at least 1');
		}
		if (!(typeof windowMs === 'number' && Number.isFinite(windowMs) && windowMs > 0)) {
			throw new TypeError('strictRate.windowMs must be a positive number of milliseconds');
		}
		if (perMinute !== undefined && !(Number.isInteger(perMinute) && perMinute >= 1)) {
			throw new TypeError('strictRate.perMinute must be a whole number of at least 1');
		}
		if (window !== 'sliding' && window !== 'fixed') {
			throw new TypeError('strictRate.window must be "sliding" or "fixed"');
		}
		const fixed = window === 'fixed';
		this.now = now;
		/** @type {WindowLimit[]} */
		this.windows = [new WindowLimit({ quota: perSecond, windowMs, fixed }, now)];
		if (perMinute !== undefined)
			this.windows.push(new WindowLimit({ quota: perMinute, windowMs: 60_000, fixed }, now));
	}

	/**
	 * Whether a request at `at` would be accepted, counting nothing.
	 * @param {number} [at] @returns {number} 0 when it would be, else the whole seconds (at least 1) to wait
	 */
	retryAfter(at = this.now()) {
		return Math.max(...this.windows.map((window) => window.retryAfter(at)));
	}

	/**
	 * Counts a request at `at` if every window has room for it.
	 * @param {number} [at] @returns {number} 0 when accepted (counted), else the whole seconds (at least 1) to wait (not counted)
	 */
	take(at = this.now()) {
		const wait = this.retryAfter(at);
		if (wait === 0) for (const window of this.windows) window.take(at);
		return wait;
	}

	/** Each window's state at `at`, the second's first. @param {number} [at] @returns {WindowState[]} */
	state(at = this.now()) {
		return this.windows.map((window) => window.state(at));
	}

	/** Empties the windows. */
	clear() {
		for (const window of this.windows) window.clear();
	}
}

/**
 * @typedef {{ rate429?: number, rate503?: number, rateReset?: number, seed?: number, retryAfterSeconds?: number }} ChaosOptions
 * @typedef {'none' | '429' | '503' | 'reset-before' | 'reset-after'} ChaosFate
 */

class Chaos {
	/** @param {ChaosOptions} options */
	constructor(options) {
		const { rate429 = 0, rate503 = 0, rateReset = 0, seed = 1, retryAfterSeconds = 1 } = options;
		if (!(Number.isInteger(retryAfterSeconds) && retryAfterSeconds >= 0)) {
			throw new TypeError('chaos.retryAfterSeconds must be a whole number of at least 0');
		}
		this.retryAfterSeconds = retryAfterSeconds;
		for (const [name, rate] of Object.entries({ rate429, rate503, rateReset })) {
			if (!(typeof rate === 'number' && rate >= 0 && rate <= 1)) {
				throw new TypeError(`chaos.${name} must be a number between 0 and 1`);
			}
		}
		if (rate429 + rate503 + rateReset > 1) {
			throw new TypeError('chaos rates must add up to at most 1');
		}
		this.rate429 = rate429;
		this.rate503 = rate503;
		this.rateReset = rateReset;
		this.random = mulberry32(seed);
	}

	/** Decides the fate of one request. @returns {ChaosFate} */
	next() {
		const r = this.random();
		if (r < this.rate429) return '429';
		if (r < this.rate429 + this.rate503) return '503';
		if (r < this.rate429 + this.rate503 + this.rateReset) {
			// A client can't tell whether a reset request was applied, so do both.
			return this.random() < 0.5 ? 'reset-before' : 'reset-after';
		}
		return 'none';
	}
}

/**
 * @typedef {{ count: number, retryAfterSeconds?: number }} ThrottleFirstOptions
 */

/** The first `count` requests answered 429 (Retry-After: retryAfterSeconds, default 1), then none. */
class ThrottleFirst {
	/** @param {ThrottleFirstOptions} options */
	constructor(options) {
		const { count, retryAfterSeconds = 1 } = options;
		if (!(Number.isInteger(count) && count >= 1)) {
			throw new TypeError('throttleFirst.count must be a whole number of at least 1');
		}
		if (!(Number.isInteger(retryAfterSeconds) && retryAfterSeconds >= 0)) {
			throw new TypeError('throttleFirst.retryAfterSeconds must be a whole number of at least 0');
		}
		this.count = count;
		this.retryAfterSeconds = retryAfterSeconds;
		this.left = count;
	}

	/** Whether this request is one of the first: it is then counted. @returns {boolean} */
	take() {
		if (this.left === 0) return false;
		this.left -= 1;
		return true;
	}

	refill() {
		this.left = this.count;
	}
}

/**
 * @typedef {{ maxMs: number, seed?: number }} ArrivalDelayOptions
 */

/**
 * The time a request takes from the client to the moment the service counts it: a seeded random
 * delay in [0, maxMs], as a network and a service's own queue add (the rate limits count a
 * request when it is over).
 */
class ArrivalDelay {
	/** @param {ArrivalDelayOptions} options */
	constructor(options) {
		const { maxMs, seed = 1 } = options;
		if (!(typeof maxMs === 'number' && Number.isFinite(maxMs) && maxMs >= 0)) {
			throw new TypeError('arrivalDelay.maxMs must be a non-negative number');
		}
		this.maxMs = maxMs;
		this.random = mulberry32(seed);
	}

	/** The next request's delay. @returns {number} ms */
	next() {
		return this.random() * this.maxMs;
	}
}

module.exports = {
	ArrivalDelay,
	mulberry32,
	TokenBucket,
	StrictRate,
	Chaos,
	ThrottleFirst,
};
