'use strict';

/**
 * Control endpoints under /__sim (a prefix the real API never uses), so that
 * another process — the e2e suite running n8n — can steer the simulator and
 * read what it received. They need no API key and are not recorded.
 */

const { readBody, sendJson } = require('./http-util');

const CONTROL_PREFIX = '/__sim';

/** @param {string} pathname */
function isControlPath(pathname) {
	return pathname === CONTROL_PREFIX || pathname.startsWith(`${CONTROL_PREFIX}/`);
}

/**
 * Parses the JSON body, runs the command and answers {ok: true}, or 400 when
 * the body is not JSON or the command rejects its argument.
 * @param {import('http').ServerResponse} res
 * @param {string} rawBody
 * @param {(arg: any) => void} command
 */
function runCommand(res, rawBody, command) {
	let arg;
	try {
		arg = rawBody.trim() === '' ? {} : JSON.parse(rawBody);
	} catch {
		return sendJson(res, 400, { message: 'Malformed JSON body' });
	}
	try {
		command(arg);
	} catch (error) {
		return sendJson(res, 400, { message: error.message });
	}
	return sendJson(res, 200, { ok: true });
}

/**
 * @param {import('http').IncomingMessage} req
 * @param {import('http').ServerResponse} res
 * @param {URL} url
 * @param {import('./index').Simulator} sim
 */
async function handleControl(req, res, url, sim) {
	const rawBody = await readBody(req);
	switch (`${req.method} ${url.pathname.slice(CONTROL_PREFIX.length)}`) {
		case 'GET /requests':
			return sendJson(res, 200, sim.requests);
		case 'GET /ledger':
			return sendJson(res, 200, {
				applied: sim.ledger.applied,
				countsByKey: Object.fromEntries(sim.ledger.countsByKey),
			});
		case 'GET /stats':
			return sendJson(res, 200, sim.stats);
		case 'GET /summary':
			return sendJson(res, 200, summarize(sim));
		case 'GET /data':
			return sendJson(res, 200, sim.data);
		case 'POST /reset':
			sim.reset();
			return sendJson(res, 200, { ok: true });
		case 'POST /fail-next':
			return runCommand(res, rawBody, (arg) => sim.failNext(arg));
		case 'POST /options':
			return runCommand(res, rawBody, (arg) => sim.setOptions(arg));
		default:
			return sendJson(res, 404, { message: 'Not found' });
	}
}

/** Percentile of sorted numbers (nearest rank). @param {number[]} sorted @param {number} p */
function percentile(sorted, p) {
	return sorted.length
		? sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)]
		: 0;
}

/**
 * Figures for benchmarks, small however many requests were recorded: counts by status,
 * server-side latency percentiles, the most requests received in any 1,000 ms and in a second of
 * the clock, and how often each
 * change was applied.
 * @param {import('./index').Simulator} sim
 */
function summarize(sim) {
	/** @type {Record<number, number>} */
	const byStatus = {};
	/** @type {number[]} */
	const latencies = [];
	let firstAt = Infinity;
	let lastAt = 0;
	for (const request of sim.requests) {
		byStatus[request.status] = (byStatus[request.status] ?? 0) + 1;
		firstAt = Math.min(firstAt, request.receivedAt);
		if (request.answeredAt !== undefined) {
			latencies.push(request.answeredAt - request.receivedAt);
			lastAt = Math.max(lastAt, request.answeredAt);
		}
	}
	latencies.sort((a, b) => a - b);
	const counts = [...sim.ledger.countsByKey.values()];
	// The most requests received within any 1,000 ms (requests are recorded in arrival order), and
	// within one second of the clock.
	let mostInAnySecond = 0;
	/** @type {Map<number, number>} */
	const byClockSecond = new Map();
	for (let last = 0, first = 0; last < sim.requests.length; last++) {
		const { receivedAt } = sim.requests[last];
		while (sim.requests[first].receivedAt <= receivedAt - 1000) first++;
		mostInAnySecond = Math.max(mostInAnySecond, last - first + 1);
		const second = Math.floor(receivedAt / 1000);
		byClockSecond.set(second, (byClockSecond.get(second) ?? 0) + 1);
	}
	return {
		total: sim.requests.length,
		maxInFlight: sim.stats.maxInFlight,
		byStatus,
		p50Ms: percentile(latencies, 50),
		p99Ms: percentile(latencies, 99),
		firstAt: Number.isFinite(firstAt) ? firstAt : undefined,
		lastAt: lastAt || undefined,
		mostInAnySecond,
		mostInAClockSecond: Math.max(0, ...byClockSecond.values()),
		appliedChanges: sim.ledger.applied.length,
		distinctChanges: counts.length,
		duplicatedChanges: counts.filter((count) => count > 1).length,
	};
}

module.exports = { CONTROL_PREFIX, isControlPath, handleControl, summarize };
