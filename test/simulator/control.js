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

module.exports = { CONTROL_PREFIX, isControlPath, handleControl };
