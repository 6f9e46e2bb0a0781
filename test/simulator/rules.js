'use strict';

/**
 * Request validation, read directly from the API (docs/api.md; deliberately
 * independent of the node's own field tables). Each body check returns null when
 * valid, or a message "<field>: <rule>" naming the first failing field. Fields
 * are checked in the order of the lists below, then unknown keys.
 *
 * requestProblem() checks a whole request (endpoint, method, Content-Type, JSON
 * body, query) and apiKeyProblem() its key: the simulator answers with them,
 * and the e2e suite checks every request n8n sent with them (test/e2e/helpers.ts).
 */

const PLAYGROUND_CALL_FIELDS = [
	'first_name',
	'last_name',
	'email',
	'phone_number',
	'assistant_id',
	'dialer_id',
];
const KNOWLEDGE_BASE_FIELDS = ['title', 'language', 'data'];
const KNOWLEDGE_BASE_ENTRY_FIELDS = ['question', 'answer'];
const CONTACT_REQUIRED_FIELDS = ['first_name', 'last_name', 'phone'];
const CONTACT_OPTIONAL_FIELDS = [
	'email',
	'description',
	'job_title',
	'lifecycle_stage',
	'lead_status',
];

/** @param {unknown} value @returns {value is Record<string, unknown>} */
function isObject(value) {
	return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** @param {unknown} value */
function isNonEmptyString(value) {
	return typeof value === 'string' && value.trim() !== '';
}

/** @param {Record<string, unknown>} obj @param {string} key */
function has(obj, key) {
	return Object.prototype.hasOwnProperty.call(obj, key);
}

/** @param {unknown} body @returns {string | null} */
function jsonObject(body) {
	return isObject(body) ? null : 'body: must be a JSON object';
}

/** @param {Record<string, unknown>} obj @param {string} field @param {string} [label] */
function requiredString(obj, field, label = field) {
	if (!has(obj, field)) return `${label}: is required`;
	return isNonEmptyString(obj[field]) ? null : `${label}: must be a non-empty string`;
}

/** @param {Record<string, unknown>} obj @param {string} field */
function optionalString(obj, field) {
	if (!has(obj, field)) return null;
	return typeof obj[field] === 'string' ? null : `${field}: must be a string`;
}

/**
 * The spec gives no e-mail format, so anything with an '@' passes.
 * @param {Record<string, unknown>} obj @param {boolean} required
 */
function email(obj, required) {
	if (!has(obj, 'email')) return required ? 'email: is required' : null;
	const value = obj.email;
	return typeof value === 'string' && value.includes('@')
		? null
		: 'email: must be a string containing @';
}

/** @param {Record<string, unknown>} obj @param {string[]} allowed @param {string} [prefix] */
function onlyKnownKeys(obj, allowed, prefix = '') {
	const unknown = Object.keys(obj).find((key) => !allowed.includes(key));
	return unknown === undefined ? null : `${prefix}${unknown}: is not an allowed field`;
}

/** @param {Record<string, unknown>} body */
function phoneNumbers(body) {
	if (!has(body, 'phone_number')) return 'phone_number: is required';
	const value = body.phone_number;
	if (!Array.isArray(value) || value.length === 0) {
		return 'phone_number: must be a non-empty array of strings';
	}
	const bad = value.findIndex((item) => !isNonEmptyString(item));
	return bad === -1 ? null : `phone_number[${bad}]: must be a non-empty string`;
}

/** @param {Record<string, unknown>} body */
function knowledgeBaseData(body) {
	if (!has(body, 'data')) return 'data: is required';
	const entries = body.data;
	// The spec sets no minimum length, so an empty list is accepted.
	if (!Array.isArray(entries)) return 'data: must be an array of {question, answer} objects';
	for (let i = 0; i < entries.length; i++) {
		const entry = entries[i];
		const at = `data[${i}]`;
		if (!isObject(entry)) return `${at}: must be an object with question and answer`;
		const error =
			requiredString(entry, 'question', `${at}.question`) ||
			requiredString(entry, 'answer', `${at}.answer`) ||
			onlyKnownKeys(entry, KNOWLEDGE_BASE_ENTRY_FIELDS, `${at}.`);
		if (error) return error;
	}
	return null;
}

/** Query parameter id of the update operations. @param {Record<string, string>} query */
function requiredId(query) {
	return isNonEmptyString(query.id) ? null : 'id: is required';
}

/** Operation 2: all six fields required. @param {unknown} body */
function playgroundCall(body) {
	if (!isObject(body)) return jsonObject(body);
	return (
		requiredString(body, 'first_name') ||
		requiredString(body, 'last_name') ||
		email(body, true) ||
		phoneNumbers(body) ||
		requiredString(body, 'assistant_id') ||
		requiredString(body, 'dialer_id') ||
		onlyKnownKeys(body, PLAYGROUND_CALL_FIELDS)
	);
}

/** Operations 3 and 4: title, language (only 'en') and data. @param {unknown} body */
function knowledgeBase(body) {
	if (!isObject(body)) return jsonObject(body);
	return (
		requiredString(body, 'title') ||
		(has(body, 'language') ? null : 'language: is required') ||
		(body.language === 'en' ? null : 'language: must be en') ||
		knowledgeBaseData(body) ||
		onlyKnownKeys(body, KNOWLEDGE_BASE_FIELDS)
	);
}

/** Operation 5: first_name, last_name, phone required; the rest optional strings. @param {unknown} body */
function segmentContact(body) {
	if (!isObject(body)) return jsonObject(body);
	for (const field of CONTACT_REQUIRED_FIELDS) {
		const error = requiredString(body, field);
		if (error) return error;
	}
	for (const field of CONTACT_OPTIONAL_FIELDS) {
		const error = field === 'email' ? email(body, false) : optionalString(body, field);
		if (error) return error;
	}
	return onlyKnownKeys(body, [...CONTACT_REQUIRED_FIELDS, ...CONTACT_OPTIONAL_FIELDS]);
}

/**
 * The endpoints of the spec by path: the method, the rule of the JSON body (none: the
 * endpoint takes no body) and whether the `id` query parameter is required. No endpoint
 * takes any other query parameter.
 * @type {Record<string, { method: string, body?: (body: unknown) => string | null, needsId: boolean }>}
 */
const ENDPOINTS = {
	'/api/v1/user/listAssistant': { method: 'GET', needsId: false },
	'/api/v1/playground/call': { method: 'POST', body: playgroundCall, needsId: false },
	'/api/v1/knowledgeBase/create': { method: 'POST', body: knowledgeBase, needsId: false },
	'/api/v1/knowledgeBase/update': { method: 'PUT', body: knowledgeBase, needsId: true },
	'/api/v1/segment/contact/update': { method: 'PUT', body: segmentContact, needsId: true },
};

/** @param {string | string[] | undefined} contentType */
function isJson(contentType) {
	return (
		String(contentType ?? '')
			.split(';')[0]
			.trim()
			.toLowerCase() === 'application/json'
	);
}

/** Query parameters other than the endpoint's. @param {Record<string, string>} query @param {string[]} allowed */
function onlyKnownQuery(query, allowed) {
	const unknown = Object.keys(query).find((key) => !allowed.includes(key));
	return unknown === undefined ? null : `${unknown}: is not a query parameter of this endpoint`;
}

/**
 * The API key the credential sends in x-api-key.
 * @param {import('http').IncomingHttpHeaders} headers @param {string} expected
 */
function apiKeyProblem(headers, expected) {
	return headers['x-api-key'] === expected ? null : 'x-api-key: is missing or wrong';
}

/**
 * What is wrong with a request by the spec, but its API key, as the answer the simulator
 * gives: an unknown path (404), another method (405), a body not declared JSON (415), then
 * 400 for an empty or malformed body, a body sent to an endpoint without one, a missing id,
 * another query parameter, or the body's first failing field. Null when nothing is wrong.
 * @param {{ method: string, path: string, query: Record<string, string>, headers: import('http').IncomingHttpHeaders, rawBody: string }} request
 * @returns {{ status: number, message: string, headers?: Record<string, string> } | null}
 */
function requestProblem({ method, path, query, headers, rawBody }) {
	const endpoint = has(ENDPOINTS, path) ? ENDPOINTS[path] : undefined;
	if (!endpoint) return { status: 404, message: 'Not found' };
	if (endpoint.method !== method) {
		return { status: 405, message: 'Method not allowed', headers: { allow: endpoint.method } };
	}
	/** @param {string} message */
	const badRequest = (message) => ({ status: 400, message });
	let body;
	if (endpoint.body) {
		if (!isJson(headers['content-type'])) {
			return { status: 415, message: 'Content-Type must be application/json' };
		}
		if (rawBody.trim() === '') return badRequest('body: must be a JSON object');
		try {
			body = JSON.parse(rawBody);
		} catch {
			return badRequest('Malformed JSON body');
		}
	} else if (rawBody !== '') {
		return badRequest('body: this endpoint takes none');
	}
	const error =
		(endpoint.needsId ? requiredId(query) : null) ||
		onlyKnownQuery(query, endpoint.needsId ? ['id'] : []) ||
		(endpoint.body ? endpoint.body(body) : null);
	return error ? badRequest(error) : null;
}

module.exports = {
	ENDPOINTS,
	apiKeyProblem,
	requestProblem,
	PLAYGROUND_CALL_FIELDS,
	KNOWLEDGE_BASE_FIELDS,
	CONTACT_REQUIRED_FIELDS,
	CONTACT_OPTIONAL_FIELDS,
	requiredId,
	playgroundCall,
	knowledgeBase,
	segmentContact,
};
