'use strict';

/** n8n's REST API as the editor uses it: the owner account, logging in, reading with the auth cookie. */

function authCookie(response) {
	const cookies = typeof response.headers.getSetCookie === 'function' ? response.headers.getSetCookie() : [];
	const auth = cookies.find((cookie) => cookie.startsWith('n8n-auth='));
	return auth ? auth.split(';')[0] : undefined;
}

/** POST /rest/owner/setup: the first user of a fresh n8n. Returns the auth cookie. */
async function setupOwner(url, owner) {
	const response = await fetch(`${url}/rest/owner/setup`, {
		method: 'POST',
		headers: { 'content-type': 'application/json' },
		body: JSON.stringify(owner),
	});
	if (!response.ok) throw new Error(`POST /rest/owner/setup answered ${response.status}: ${await response.text()}`);
	return authCookie(response);
}

/** POST /rest/login. Returns the auth cookie. */
async function login(url, { email, password }) {
	const response = await fetch(`${url}/rest/login`, {
		method: 'POST',
		headers: { 'content-type': 'application/json' },
		body: JSON.stringify({ emailOrLdapLoginId: email, password }),
	});
	if (!response.ok) throw new Error(`POST /rest/login answered ${response.status}: ${await response.text()}`);
	return authCookie(response);
}

/** GET with the auth cookie; returns status and the parsed JSON (or text). */
async function getWithCookie(url, pathname, cookie) {
	const response = await fetch(`${url}${pathname}`, { headers: { cookie } });
	const text = await response.text();
	let body = text;
	try {
		body = JSON.parse(text);
	} catch {}
	return { status: response.status, contentType: response.headers.get('content-type') ?? '', body };
}

/** A REST call with the auth cookie and a JSON body; returns status and the parsed JSON (or text). */
async function requestWithCookie(url, method, pathname, cookie, body) {
	const response = await fetch(`${url}${pathname}`, {
		method,
		headers: { cookie, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
		body: body === undefined ? undefined : JSON.stringify(body),
	});
	const text = await response.text();
	let parsed = text;
	try {
		parsed = JSON.parse(text);
	} catch {}
	return { status: response.status, body: parsed };
}

module.exports = { getWithCookie, login, requestWithCookie, setupOwner };
