'use strict';

/**
 * A scripted stand-in for OpenAI's API on 127.0.0.1, so that an n8n AI Agent runs offline.
 * n8n's OpenAI Chat Model node reaches it through an OpenAI credential whose Base URL is
 * `${url}/v1`. Each model request takes the next reply of the script: tool calls, or a final
 * assistant message. Every request is recorded, so a test can read what the model was given
 * (the tool results above all).
 *
 * Both APIs the model node uses are answered: Chat Completions (`POST /v1/chat/completions`,
 * model node 1.2) and Responses (`POST /v1/responses`, model node 1.3 with "Use Responses API",
 * its default). n8n asks with `stream: false`
 * when a workflow runs without a streaming chat (measured on 1.123.50 and 2.8.4, Agent 2.2, 3
 * and 3.1); a streaming request is refused with a 400 that says so, rather than answered in a
 * form no test has checked against n8n.
 */

const http = require('http');

/**
 * @typedef {{ method: string, path: string, headers: http.IncomingHttpHeaders, body: any }} ModelRequest
 * @typedef {{ toolCalls: Array<{ name: string, arguments: object }> } | { content: string }} Answer
 *   One answer of the fake model: tool calls (name and arguments), or a final assistant message.
 * @typedef {Answer | ((request: ModelRequest) => Answer)} Reply
 *   A reply of the script: an answer, or a function of the request it answers that returns one.
 * @typedef {Awaited<ReturnType<typeof startFakeOpenAi>>} FakeOpenAi
 */

/** @param {http.IncomingMessage} req @returns {Promise<any>} */
const readJson = (req) =>
	new Promise((resolve, reject) => {
		/** @type {Buffer[]} */
		const chunks = [];
		req.on('data', (chunk) => chunks.push(chunk));
		req.on('end', () => {
			const text = Buffer.concat(chunks).toString('utf8');
			try {
				resolve(text ? JSON.parse(text) : undefined);
			} catch (error) {
				reject(error);
			}
		});
		req.on('error', reject);
	});

/**
 * A Chat Completions answer.
 * @param {Answer} reply
 * @param {string} model
 * @param {number} n
 */
function chatCompletion(reply, model, n) {
	const toolCalls =
		'toolCalls' in reply
			? reply.toolCalls.map((call, i) => ({
					id: `call_${n}_${i}`,
					type: 'function',
					function: { name: call.name, arguments: JSON.stringify(call.arguments) },
				}))
			: undefined;
	const message =
		'toolCalls' in reply
			? { role: 'assistant', content: null, tool_calls: toolCalls }
			: { role: 'assistant', content: reply.content };
	return {
		id: `chatcmpl-${n}`,
		object: 'chat.completion',
		created: 1_700_000_000,
		model,
		choices: [{ index: 0, message, finish_reason: toolCalls ? 'tool_calls' : 'stop' }],
		usage: { prompt_tokens: 10, completion_tokens: 5, total_tokens: 15 },
	};
}

/**
 * A Responses API answer.
 * @param {Answer} reply
 * @param {string} model
 * @param {number} n
 */
function responsesAnswer(reply, model, n) {
	const output =
		'toolCalls' in reply
			? reply.toolCalls.map((call, i) => ({
					type: 'function_call',
					id: `fc_${n}_${i}`,
					call_id: `call_${n}_${i}`,
					name: call.name,
					arguments: JSON.stringify(call.arguments),
					status: 'completed',
				}))
			: [
					{
						type: 'message',
						id: `msg_${n}`,
						role: 'assistant',
						status: 'completed',
						content: [{ type: 'output_text', text: reply.content, annotations: [] }],
					},
				];
	return {
		id: `resp_${n}`,
		object: 'response',
		created_at: 1_700_000_000,
		status: 'completed',
		model,
		output,
		usage: { input_tokens: 10, output_tokens: 5, total_tokens: 15 },
	};
}

/**
 * @param {http.ServerResponse} res
 * @param {number} status
 * @param {unknown} body
 */
function send(res, status, body) {
	const text = JSON.stringify(body);
	res.writeHead(status, {
		'content-type': 'application/json',
		'content-length': String(Buffer.byteLength(text)),
	});
	res.end(text);
}

/**
 * Starts the fake model on 127.0.0.1 (a free port). `script(replies)` sets what the next model
 * requests are answered with, in order; a request beyond the script gets a 500 naming it. A
 * reply may be a function of the request it answers, for agents that work on several items at
 * once and so ask in no fixed order.
 */
async function startFakeOpenAi() {
	/** @type {Reply[]} */
	let replies = [];
	/** @type {ModelRequest[]} */
	const requests = [];
	let answered = 0;

	const server = http.createServer(async (req, res) => {
		const path = new URL(req.url ?? '/', 'http://127.0.0.1').pathname;
		let body;
		try {
			body = await readJson(req);
		} catch {
			return send(res, 400, {
				error: { message: 'The body is not JSON', type: 'invalid_request_error' },
			});
		}
		const request = { method: req.method ?? '', path, headers: req.headers, body };
		requests.push(request);
		const route = `${req.method} ${path}`;
		/** @type {Record<string, typeof chatCompletion | typeof responsesAnswer>} */
		const answers = {
			'POST /v1/chat/completions': chatCompletion,
			'POST /v1/responses': responsesAnswer,
		};
		const answer = answers[route];
		if (!answer)
			return send(res, 404, {
				error: { message: `Unknown route ${route}`, type: 'invalid_request_error' },
			});
		if (body?.stream) {
			return send(res, 400, {
				error: { message: 'The fake model does not stream', type: 'invalid_request_error' },
			});
		}
		const reply = replies.shift();
		if (!reply) {
			return send(res, 500, {
				error: {
					message: `The fake model has no reply left for request ${requests.length}`,
					type: 'server_error',
				},
			});
		}
		answered += 1;
		send(
			res,
			200,
			answer(
				typeof reply === 'function' ? reply(request) : reply,
				body?.model ?? 'gpt-4o-mini',
				answered,
			),
		);
	});
	await new Promise((resolve, reject) => {
		server.once('error', reject);
		server.listen(0, '127.0.0.1', () => resolve(undefined));
	});
	const { port } = /** @type {import('net').AddressInfo} */ (server.address());

	return {
		/** The Base URL for an OpenAI credential. */
		baseUrl: `http://127.0.0.1:${port}/v1`,
		/** Replaces the script and forgets earlier requests. @param {Reply[]} next */
		script(next) {
			replies = [...next];
			requests.length = 0;
		},
		/** Replies of the script not used yet. */
		remaining: () => replies.length,
		requests: () => requests.slice(),
		stop: () =>
			new Promise((resolve) => {
				server.closeAllConnections();
				server.close(() => resolve(undefined));
			}),
	};
}

/**
 * The tool results the model was given in one request, in order: Chat Completions' `tool`
 * messages or the Responses API's `function_call_output` items, as { callId, content }.
 * @param {ModelRequest} request
 * @returns {Array<{ callId: string, content: unknown }>}
 */
function toolResults(request) {
	const body = request.body ?? {};
	if (Array.isArray(body.messages)) {
		return body.messages
			.filter((/** @type {any} */ message) => message.role === 'tool')
			.map((/** @type {any} */ message) => ({
				callId: message.tool_call_id,
				content: message.content,
			}));
	}
	const input = Array.isArray(body.input) ? body.input : [];
	return input
		.filter((/** @type {any} */ item) => item.type === 'function_call_output')
		.map((/** @type {any} */ item) => ({ callId: item.call_id, content: item.output }));
}

module.exports = { startFakeOpenAi, toolResults };
