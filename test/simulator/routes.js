'use strict';

/**
 * The five operations of the spec: request checks (content type, JSON, query,
 * body rules) and their effect on the data.
 */

const crypto = require('crypto');
const rules = require('./rules');

/**
 * @typedef {import('./store').Data} Data
 * @typedef {{ op: string, id: string | undefined, body: unknown, createdId?: string }} Applied
 * @typedef {{ status: number, body: unknown, headers?: Record<string, string>, applied?: Applied }} Result
 * @typedef {{ query: Record<string, string>, body: any, data: Data }} Context
 * @typedef {{ method: string, hasBody: boolean, needsId: boolean, validate?: (body: unknown) => string | null, handle: (ctx: Context) => Result }} Route
 */

/** @param {string} message @returns {Result} */
const badRequest = (message) => ({ status: 400, body: { message } });

/** @param {import('./store').KnowledgeBase} body a validated knowledge base body */
const knowledgeBaseOf = ({ title, language, data }) => ({ title, language, data });

/** A 24-hex id like the MongoDB ids the service appears to use. */
const newId = () => crypto.randomBytes(12).toString('hex');

/** @type {Record<string, Route>} */
const ROUTES = {
	'/api/v1/user/listAssistant': {
		method: 'GET',
		hasBody: false,
		needsId: false,
		handle: ({ data }) => ({ status: 200, body: data.assistants }),
	},

	'/api/v1/playground/call': {
		method: 'POST',
		hasBody: true,
		needsId: false,
		validate: rules.playgroundCall,
		handle: ({ body, data }) => {
			data.calls.push({ ...body, requestedAt: new Date().toISOString() });
			return {
				status: 200,
				body,
				applied: { op: 'playground.call', id: undefined, body },
			};
		},
	},

	'/api/v1/knowledgeBase/create': {
		method: 'POST',
		hasBody: true,
		needsId: false,
		validate: rules.knowledgeBase,
		handle: ({ body, data }) => {
			// Stored under an id so it can be updated and shown, but the spec's
			// create response carries no identifier, so none is returned.
			const createdId = newId();
			data.knowledgeBases[createdId] = knowledgeBaseOf(body);
			return {
				status: 200,
				body: knowledgeBaseOf(body),
				applied: { op: 'knowledgeBase.create', id: undefined, body, createdId },
			};
		},
	},

	'/api/v1/knowledgeBase/update': {
		method: 'PUT',
		hasBody: true,
		needsId: true,
		validate: rules.knowledgeBase,
		handle: ({ query, body, data }) => {
			if (!Object.prototype.hasOwnProperty.call(data.knowledgeBases, query.id)) {
				return { status: 404, body: { message: 'Knowledge base not found' } };
			}
			data.knowledgeBases[query.id] = knowledgeBaseOf(body);
			return {
				status: 200,
				body: knowledgeBaseOf(body),
				applied: { op: 'knowledgeBase.update', id: query.id, body },
			};
		},
	},

	'/api/v1/segment/contact/update': {
		method: 'PUT',
		hasBody: true,
		needsId: true,
		validate: rules.segmentContact,
		handle: ({ query, body, data }) => {
			// Upsert: any non-empty id is accepted, because bulk runs send contact
			// ids taken from a CRM that this simulator has never seen.
			data.contacts[query.id] = { ...body };
			return {
				status: 200,
				body: { message: 'Contact updated successfully.' },
				applied: { op: 'segment.contact.update', id: query.id, body },
			};
		},
	},
};

/** @param {string | undefined} contentType */
function isJson(contentType) {
	return (contentType ?? '').split(';')[0].trim().toLowerCase() === 'application/json';
}

/**
 * Checks one API request against the spec and applies it to the data.
 * @param {{ method: string, path: string, query: Record<string, string>, headers: import('http').IncomingHttpHeaders, rawBody: string }} request
 * @param {Data} data
 * @returns {Result}
 */
function dispatch(request, data) {
	const route = Object.prototype.hasOwnProperty.call(ROUTES, request.path)
		? ROUTES[request.path]
		: undefined;
	if (!route) return { status: 404, body: { message: 'Not found' } };
	if (route.method !== request.method) {
		return { status: 405, body: { message: 'Method not allowed' }, headers: { allow: route.method } };
	}

	let body;
	if (route.hasBody) {
		if (!isJson(request.headers['content-type'])) {
			return { status: 415, body: { message: 'Content-Type must be application/json' } };
		}
		if (request.rawBody.trim() === '') return badRequest('body: must be a JSON object');
		try {
			body = JSON.parse(request.rawBody);
		} catch {
			return badRequest('Malformed JSON body');
		}
	}

	const error =
		(route.needsId ? rules.requiredId(request.query) : null) ||
		(route.validate ? route.validate(body) : null);
	if (error) return badRequest(error);

	return route.handle({ query: request.query, body, data });
}

module.exports = { ROUTES, dispatch };
