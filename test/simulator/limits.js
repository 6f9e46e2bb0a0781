'use strict';

/**
 * Load modes: a token-bucket rate limit, the first requests throttled, and seeded "chaos" failures.
 * None is in the spec (it shows no rate limits or error codes); they let
 * tests exercise the node's retry handling reproducibly.
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

module.exports = { mulberry32, TokenBucket, Chaos, ThrottleFirst };
