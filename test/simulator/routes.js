'use strict';

/**
 * The five operations of the spec: a request that passes the checks of
 * rules.js (requestProblem) and its effect on the data.
 */

const crypto = require('crypto');
const rules = require('./rules');

/**
 * @typedef {import('./store').Data} Data
 * @typedef {{ op: string, id: string | undefined, body: unknown, createdId?: string }} Applied
 * @typedef {{ status: number, body: unknown, headers?: Record<string, string>, applied?: Applied }} Result
 * @typedef {{ query: Record<string, string>, body: any, data: Data }} Context
 * @typedef {(ctx: Context) => Result} Handler
 */

/** @param {import('./store').KnowledgeBase} body a validated knowledge base body */
const knowledgeBaseOf = ({ title, language, data }) => ({ title, language, data });

/** A 24-hex id like the MongoDB ids the service appears to use. */
const newId = () => crypto.randomBytes(12).toString('hex');

/** What each endpoint of rules.ENDPOINTS does, by path. @type {Record<string, Handler>} */
const HANDLERS = {
	'/api/v1/user/listAssistant': ({ data }) => ({ status: 200, body: data.assistants }),

	'/api/v1/playground/call': ({ body, data }) => {
		data.calls.push({ ...body, requestedAt: new Date().toISOString() });
		return {
			status: 200,
			body,
			applied: { op: 'playground.call', id: undefined, body },
		};
	},

	'/api/v1/knowledgeBase/create': ({ body, data }) => {
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

	'/api/v1/knowledgeBase/update': ({ query, body, data }) => {
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

	'/api/v1/segment/contact/update': ({ query, body, data }) => {
		// Upsert: any non-empty id is accepted, because bulk runs send contact
		// ids taken from a CRM that this simulator has never seen.
		data.contacts[query.id] = { ...body };
		return {
			status: 200,
			body: { message: 'Contact updated successfully.' },
			applied: { op: 'segment.contact.update', id: query.id, body },
		};
	},
};

/**
 * Checks one API request against the spec (rules.requestProblem) and applies it to the data.
 * @param {{ method: string, path: string, query: Record<string, string>, headers: import('http').IncomingHttpHeaders, rawBody: string }} request
 * @param {Data} data
 * @returns {Result}
 */
function dispatch(request, data) {
	const problem = rules.requestProblem(request);
	if (problem)
		return { status: problem.status, body: { message: problem.message }, headers: problem.headers };
	const body = rules.ENDPOINTS[request.path].body ? JSON.parse(request.rawBody) : undefined;
	return HANDLERS[request.path]({ query: request.query, body, data });
}

module.exports = { HANDLERS, dispatch };
