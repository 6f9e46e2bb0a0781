'use strict';

/**
 * n8n's REST API as its editor uses it, signed in as the owner: the one client of the e2e and
 * queue suites, the editor check and the demo. Answers are parsed JSON (or text); `call`
 * unwraps n8n's `{ data }` and fails on an error status. Paths are n8n's own, from the root:
 * '/rest/workflows', '/types/nodes.json'.
 */

const { poll } = require('../processes');

/** The owner account of every n8n the harness starts: the demo prints it, the editor check logs in with it. */
const OWNER = {
	email: 'demo@example.com',
	password: 'Demo-password-1',
	firstName: 'Demo',
	lastName: 'User',
};

/**
 * @typedef {{ status: number, contentType: string, body: any }} Answer
 * @typedef {{ id: string, mode: string, status: string, workflowId: string, startedAt?: string, stoppedAt?: string }} ExecutionSummary
 * @typedef {{ json: Record<string, any>, pairedItem?: { item: number, input?: number } | Array<{ item: number }>, error?: Record<string, any> }} N8nItem
 * @typedef {{ executionStatus?: string, executionTime?: number, error?: Record<string, any>, data?: { main: N8nItem[][] } }} TaskData
 * @typedef {{ runData: Record<string, TaskData[]>, error?: Record<string, any> & { message: string }, lastNodeExecuted?: string }} ResultData
 * @typedef {{ data: { resultData: ResultData } }} N8nRun
 *   What n8n keeps of a run (the parts the tests read), as `n8n execute --rawOutput` prints it
 *   and as an execution's `data` holds it.
 * @typedef {ExecutionSummary & N8nRun} Execution an execution with its run data
 */

/** Executions in these states are over. */
const FINISHED = ['success', 'error', 'crashed', 'canceled'];

/**
 * One request; the body is parsed when it is JSON.
 * @param {string} url n8n's address, e.g. http://127.0.0.1:5678
 * @param {string} method
 * @param {string} pathname
 * @param {{ cookie?: string, body?: unknown }} [options]
 * @returns {Promise<Answer & { cookie?: string }>} `cookie`: the auth cookie n8n set, if any
 */
async function request(url, method, pathname, { cookie, body } = {}) {
	/** @type {Record<string, string>} */
	const headers = {};
	if (cookie) headers.cookie = cookie;
	if (body !== undefined) headers['content-type'] = 'application/json';
	const response = await fetch(`${url}${pathname}`, {
		method,
		headers,
		body: body === undefined ? undefined : JSON.stringify(body),
	});
	const text = await response.text();
	let parsed = text;
	try {
		parsed = JSON.parse(text);
	} catch {}
	const auth = response.headers.getSetCookie().find((entry) => entry.startsWith('n8n-auth='));
	return {
		status: response.status,
		contentType: response.headers.get('content-type') ?? '',
		body: parsed,
		cookie: auth?.split(';')[0],
	};
}

/**
 * n8n's `flatted` format, in which it stores and sends run data: a JSON array whose first entry
 * is the root, in which every string inside an object or array is the index of the entry
 * holding the value.
 * @param {string} text
 * @returns {any}
 */
function unflatten(text) {
	const entries = JSON.parse(text);
	/** @type {Map<number, unknown>} */
	const revived = new Map();
	/** @param {number} index @returns {unknown} */
	const revive = (index) => {
		if (revived.has(index)) return revived.get(index);
		const value = entries[index];
		if (typeof value !== 'object' || value === null) return value;
		/** @type {Record<string, unknown>} */
		const copy = Array.isArray(value) ? /** @type {any} */ ([]) : {};
		revived.set(index, copy);
		for (const [key, entry] of Object.entries(value))
			copy[key] = typeof entry === 'string' ? revive(Number(entry)) : entry;
		return copy;
	};
	return revive(0);
}

/**
 * The owner's session: a fresh n8n gets its owner (POST /rest/owner/setup), one that has it is
 * logged in to (POST /rest/login).
 * @param {string} url
 * @param {typeof OWNER} [owner]
 */
async function signIn(url, owner = OWNER) {
	const login = await request(url, 'POST', '/rest/login', {
		body: { emailOrLdapLoginId: owner.email, password: owner.password },
	});
	const answer = login.cookie
		? login
		: await request(url, 'POST', '/rest/owner/setup', { body: owner });
	if (!answer.cookie) {
		throw new Error(
			`Neither login (${login.status}) nor owner setup (${answer.status}) signed in to ${url}: ${JSON.stringify(answer.body).slice(0, 500)}`,
		);
	}
	return editorApi(url, answer.cookie);
}

/**
 * The REST calls the editor makes, with the owner's cookie.
 * @param {string} url
 * @param {string} cookie `n8n-auth=…`
 */
function editorApi(url, cookie) {
	/**
	 * A request with the owner's cookie, whatever its answer.
	 * @param {string} method
	 * @param {string} pathname
	 * @param {unknown} [body]
	 * @returns {Promise<Answer>}
	 */
	const send = (method, pathname, body) => request(url, method, pathname, { cookie, body });

	/**
	 * A request that must succeed; what n8n wraps in `data` (or the whole body).
	 * @param {string} method
	 * @param {string} pathname
	 * @param {unknown} [body]
	 * @returns {Promise<any>}
	 */
	async function call(method, pathname, body) {
		const answer = await send(method, pathname, body);
		if (answer.status < 200 || answer.status > 299) {
			throw new Error(
				`${method} ${pathname} answered ${answer.status}: ${JSON.stringify(answer.body).slice(0, 2000)}`,
			);
		}
		return answer.body?.data ?? answer.body;
	}

	/**
	 * One execution with its run data, or undefined while n8n has not stored it.
	 * @param {string} id
	 * @returns {Promise<Execution | undefined>}
	 */
	async function execution(id) {
		const found = await call('GET', `/rest/executions/${id}`).catch(() => undefined);
		if (!found) return undefined;
		const data = typeof found.data === 'string' ? unflatten(found.data) : found.data;
		return { ...found, id: String(found.id), data };
	}

	/**
	 * An execution once it is over and its run data can be read (n8n 1.x may report the status a
	 * moment before).
	 * @param {string} id
	 * @param {number} [timeoutMs]
	 * @returns {Promise<Execution>}
	 */
	const finished = (id, timeoutMs = 240_000) =>
		poll(
			`execution ${id}`,
			async () => {
				const found = await execution(id);
				return found && FINISHED.includes(found.status) && found.data?.resultData
					? found
					: undefined;
			},
			{ timeoutMs, everyMs: 100 },
		);

	/**
	 * Starts a workflow as the editor's "Execute workflow" button does (manual mode: pinned data is
	 * used), from the given trigger; returns the execution's id.
	 * @param {string} workflowId
	 * @param {string} triggerName
	 * @returns {Promise<string>}
	 */
	async function startManually(workflowId, triggerName) {
		// n8n 1.x and 2.8 run the workflow given in the body, 2.41 the saved one: send both.
		const workflowData = await call('GET', `/rest/workflows/${workflowId}`);
		const started = await call('POST', `/rest/workflows/${workflowId}/run`, {
			workflowData,
			triggerToStartFrom: { name: triggerName },
		});
		if (!started?.executionId)
			throw new Error(
				`the manual run of ${workflowId} did not start: ${JSON.stringify(started).slice(0, 1000)}`,
			);
		return String(started.executionId);
	}

	return {
		url,
		cookie,
		send,
		call,
		/**
		 * Activates (publishes) a workflow, as the editor's toggle does.
		 * @param {string} workflowId
		 */
		async activate(workflowId) {
			const { versionId } = await call('GET', `/rest/workflows/${workflowId}`);
			const activated = await call('POST', `/rest/workflows/${workflowId}/activate`, { versionId });
			if (!activated.active)
				throw new Error(
					`workflow ${workflowId} is not active after activation: ${JSON.stringify(activated).slice(0, 1000)}`,
				);
		},
		/** @param {string} workflowId */
		async deactivate(workflowId) {
			const deactivated = await call('POST', `/rest/workflows/${workflowId}/deactivate`, {});
			if (deactivated.active)
				throw new Error(`workflow ${workflowId} is still active after deactivation`);
		},
		/**
		 * The saved executions of a workflow, oldest first.
		 * @param {string} workflowId
		 * @returns {Promise<ExecutionSummary[]>}
		 */
		async executions(workflowId) {
			const filter = encodeURIComponent(JSON.stringify({ workflowId }));
			const data = await call('GET', `/rest/executions?filter=${filter}&limit=100`);
			/** @type {ExecutionSummary[]} */
			const rows = data.results ?? data;
			return rows
				.map((row) => ({ ...row, id: String(row.id) }))
				.sort((a, b) => Number(a.id) - Number(b.id));
		},
		execution,
		finished,
		startManually,
		/**
		 * Runs a workflow as the editor's "Execute workflow" button does, from the given trigger,
		 * and waits until it is over.
		 * @param {string} workflowId
		 * @param {string} triggerName
		 * @param {number} [timeoutMs]
		 */
		runManually: async (workflowId, triggerName, timeoutMs) =>
			finished(await startManually(workflowId, triggerName), timeoutMs),
	};
}

/** @typedef {ReturnType<typeof editorApi>} EditorApi */

module.exports = { FINISHED, OWNER, editorApi, request, signIn, unflatten };
