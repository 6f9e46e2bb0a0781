'use strict';

/** Small helpers shared by the API and control handlers. */

/** @param {import('http').IncomingMessage} req @returns {Promise<string>} */
function readBody(req) {
	return new Promise((resolve, reject) => {
		/** @type {Buffer[]} */
		const chunks = [];
		req.on('data', (chunk) => chunks.push(chunk));
		req.on('end', () => resolve(Buffer.concat(chunks).toString('utf8')));
		req.on('error', reject);
		// A socket destroyed mid-upload may only emit 'close'.
		req.on('close', () => {
			if (!req.complete) reject(new Error('request aborted'));
		});
	});
}

/**
 * @param {import('http').ServerResponse} res
 * @param {number} status
 * @param {unknown} body JSON value; undefined sends no body
 * @param {Record<string, string>} [headers]
 */
function sendJson(res, status, body, headers = {}) {
	const text = body === undefined ? '' : JSON.stringify(body);
	/** @type {Record<string, string>} */
	const contentType = text ? { 'content-type': 'application/json; charset=utf-8' } : {};
	sendRaw(res, status, text, { ...contentType, ...headers });
}

/**
 * @param {import('http').ServerResponse} res
 * @param {number} status
 * @param {string} text
 * @param {Record<string, string>} headers
 */
function sendRaw(res, status, text, headers) {
	if (res.destroyed || res.writableEnded) return;
	const bodyless = status === 204 || status === 304;
	res.writeHead(
		status,
		bodyless ? headers : { ...headers, 'content-length': String(Buffer.byteLength(text)) },
	);
	res.end(bodyless ? undefined : text);
}

module.exports = { readBody, sendJson, sendRaw };
