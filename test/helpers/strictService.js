'use strict';

/**
 * What a run did behind a strict service (the simulator's `strictRate`: at most N requests
 * accepted in any trailing 1,000 ms, one beyond answered 429), read from the requests the
 * simulator recorded: each one's `arrivedAt` (its monotonic clock at the rate check) and status.
 * Plain CommonJS with JSDoc types: `npm run bench` (Node.js alone) and the queue suite (ts-jest)
 * both read it.
 */

/** @typedef {Pick<import('../simulator').RecordedRequest, 'path' | 'status' | 'arrivedAt'>} Arrival */

/**
 * @typedef {{
 *   requests: number, answered429: number, share429: number, arrivalSpanMs: number,
 *   mostSentInAnySecond: number, mostAcceptedInAnySecond: number,
 *   mostSentAfterSettle: number, mostAcceptedAfterSettle: number, settleMs: number,
 * }} StrictFigures
 *   requests: the API requests received (429s included), answered429 of them, share429 their
 *   share (0–1); arrivalSpanMs: first arrival to last; mostSent / mostAccepted: the most requests
 *   that arrived (any answer) / that the service accepted (any answer but a 429) in any window of
 *   `windowMs`; …AfterSettle: the same in any window that starts `settleMs` or more after the
 *   first arrival (the start of a run left out).
 */

/**
 * The most of `times` (sorted ascending) in any window (t − windowMs, t] ending at one of them.
 * @param {number[]} times
 * @param {number} windowMs
 */
function mostInAnyWindow(times, windowMs) {
	let most = 0;
	for (let last = 0, first = 0; last < times.length; last++) {
		// By what passed between two times (exact), not `times[last] - windowMs` (rounded by the clock's reading).
		while (times[last] - times[first] >= windowMs) first++;
		most = Math.max(most, last - first + 1);
	}
	return most;
}

/**
 * @param {ReadonlyArray<Arrival>} recorded the simulator's requests (control paths are never recorded)
 * @param {{ settleMs?: number, windowMs?: number }} [options] defaults: 5,000 ms, 1,000 ms
 * @returns {StrictFigures}
 */
function strictFigures(recorded, { settleMs = 5_000, windowMs = 1_000 } = {}) {
	const api = recorded.filter((request) => request.path.startsWith('/api/'));
	/** @param {ReadonlyArray<Arrival>} requests */
	const timesOf = (requests) => requests.map((request) => request.arrivedAt).sort((a, b) => a - b);
	const sent = timesOf(api);
	const accepted = timesOf(api.filter((request) => request.status !== 429));
	const first = sent.length ? sent[0] : 0;
	/** @param {number[]} times */
	const settled = (times) => times.filter((time) => time >= first + settleMs);
	const answered429 = api.length - accepted.length;
	return {
		requests: api.length,
		answered429,
		share429: api.length ? answered429 / api.length : 0,
		arrivalSpanMs: sent.length ? sent[sent.length - 1] - first : 0,
		mostSentInAnySecond: mostInAnyWindow(sent, windowMs),
		mostAcceptedInAnySecond: mostInAnyWindow(accepted, windowMs),
		mostSentAfterSettle: mostInAnyWindow(settled(sent), windowMs),
		mostAcceptedAfterSettle: mostInAnyWindow(settled(accepted), windowMs),
		settleMs,
	};
}

/** An ANSI colour code, as n8n's console log writes them. */
const COLOUR = new RegExp(`${String.fromCharCode(27)}\\[[0-9;]*m`, 'g');

/**
 * The runs' summary lines in n8n's log text (one per run of the node, logged as it ends: "Voice
 * Assistant "<node>": done: N items in S s: …"), each with its count of items; without n8n's
 * colours and the metadata it appends ({ "file": …, "function": … }).
 * @param {string} text
 * @returns {Array<{ items: number, line: string }>}
 */
function summaryLines(text) {
	const plain = text.replace(COLOUR, '');
	return [
		...plain.matchAll(/Voice Assistant "[^"]*": [^\n]*?(\d+) items in [0-9.]+ s: [^\n]*/g),
	].map((match) => ({
		items: Number(match[1]),
		line: match[0].replace(/\s*\{\s*"file":[^\n]*$/, '').trim(),
	}));
}

module.exports = { mostInAnyWindow, strictFigures, summaryLines };
