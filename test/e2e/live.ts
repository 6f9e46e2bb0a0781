/**
 * A running n8n (`n8n start`) for the recipes that n8n itself starts: a Schedule Trigger firing
 * on its own, production webhooks. The owner account, the REST calls the editor makes
 * (activate and deactivate a workflow, list executions, read one), and polling.
 */
import type { RunningN8n } from '../../tools/n8n';
import { setupOwner, startN8n } from '../../tools/n8n';
import { sleep } from '../../tools/processes';

const OWNER = { email: 'recipes@example.com', firstName: 'Recipe', lastName: 'Runner', password: 'E2e-password-1' };

export interface ExecutionSummary {
	id: string;
	mode: string;
	status: string;
	workflowId: string;
	startedAt?: string;
	stoppedAt?: string;
}

export interface LiveN8n {
	n8n: RunningN8n;
	url: string;
	/** The owner's auth cookie (`n8n-auth=…`). */
	cookie: string;
	/** A REST call with the owner's cookie; the parsed JSON body (n8n wraps most in `data`). */
	rest(method: string, pathname: string, body?: unknown): Promise<{ status: number; body: any }>;
	/** Activates (publishes) a workflow, as the editor's toggle does. */
	activate(workflowId: string): Promise<void>;
	deactivate(workflowId: string): Promise<void>;
	/** The saved executions of a workflow, oldest first. */
	executions(workflowId: string): Promise<ExecutionSummary[]>;
	/** One execution with its run data (`data.resultData.runData`), or undefined. */
	execution(id: string): Promise<any>;
	/**
	 * Runs a workflow as the editor's "Execute workflow" button does (manual mode: pinned data
	 * is used), from the given trigger, and waits until it has finished; returns the execution.
	 */
	runManually(workflowId: string, triggerName: string, timeoutMs?: number): Promise<any>;
	/** Everything n8n printed so far (its log goes to stdout). */
	log(): string;
	stop(): Promise<void>;
}

/** `n8n start` on a user folder, with its owner set up and logged in. */
export async function startLiveN8n(
	bin: string,
	userFolder: string,
	options: { extra?: Record<string, string> } = {},
): Promise<LiveN8n> {
	const n8n = await startN8n(bin, userFolder, { logDir: userFolder, extra: options.extra });
	let cookie: string;
	try {
		cookie = (await setupOwner(n8n.url, OWNER)) as string;
	} catch (error) {
		await n8n.stop();
		throw new Error(`${(error as Error).message}\n--- n8n start output:\n${n8n.proc.readStdout().slice(-4000)}`);
	}

	async function rest(method: string, pathname: string, body?: unknown) {
		const response = await fetch(`${n8n.url}/rest${pathname}`, {
			method,
			headers: { cookie, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
			body: body === undefined ? undefined : JSON.stringify(body),
		});
		const text = await response.text();
		let parsed: any;
		try {
			parsed = JSON.parse(text);
		} catch {
			parsed = text; // not JSON: the text itself
		}
		return { status: response.status, body: parsed };
	}

	async function ok(method: string, pathname: string, body?: unknown) {
		const answer = await rest(method, pathname, body);
		if (answer.status !== 200) throw new Error(`${method} /rest${pathname} answered ${answer.status}: ${JSON.stringify(answer.body).slice(0, 2000)}`);
		return answer.body.data ?? answer.body;
	}

	return {
		n8n,
		url: n8n.url,
		cookie,
		rest,
		async activate(workflowId) {
			const { versionId } = await ok('GET', `/workflows/${workflowId}`);
			const activated = await ok('POST', `/workflows/${workflowId}/activate`, { versionId });
			if (!activated.active) throw new Error(`workflow ${workflowId} is not active after activation: ${JSON.stringify(activated).slice(0, 1000)}`);
		},
		async deactivate(workflowId) {
			const deactivated = await ok('POST', `/workflows/${workflowId}/deactivate`, {});
			if (deactivated.active) throw new Error(`workflow ${workflowId} is still active after deactivation`);
		},
		async executions(workflowId) {
			const filter = encodeURIComponent(JSON.stringify({ workflowId }));
			const data = await ok('GET', `/executions?filter=${filter}&limit=100`);
			const results = (data.results ?? data) as ExecutionSummary[];
			return results.map((row) => ({ ...row, id: String(row.id) })).sort((a, b) => Number(a.id) - Number(b.id));
		},
		async execution(id) {
			const data = await ok('GET', `/executions/${id}`);
			if (!data) return undefined;
			// The run data is stored and sent in the `flatted` format.
			return { ...data, data: typeof data.data === 'string' ? unflatten(data.data) : data.data };
		},
		async runManually(workflowId, triggerName, timeoutMs = 180_000) {
			// n8n 1.x and 2.8 run the workflow given in the body, 2.41 the saved one: send both.
			const workflowData = await ok('GET', `/workflows/${workflowId}`);
			const started = await ok('POST', `/workflows/${workflowId}/run`, { workflowData, triggerToStartFrom: { name: triggerName } });
			if (!started?.executionId) throw new Error(`the manual run of ${workflowId} did not start: ${JSON.stringify(started).slice(0, 1000)}`);
			const id = String(started.executionId);
			return waitFor(`manual execution ${id} of ${workflowId}`, async () => {
				const execution = await ok('GET', `/executions/${id}`).catch(() => undefined);
				if (!execution || !['success', 'error', 'crashed', 'canceled'].includes(execution.status)) return undefined;
				// n8n 1.x may report the status a moment before the run data is readable (no data, or
				// data without its resultData yet).
				const data = typeof execution.data === 'string' ? unflatten(execution.data) : execution.data;
				if (!data?.resultData) return undefined;
				return { ...execution, data };
			}, timeoutMs);
		},
		log: () => `${n8n.proc.readStdout()}\n${n8n.proc.readStderr()}`,
		stop: () => n8n.stop(),
	};
}

/**
 * n8n's `flatted` format: a JSON array whose first entry is the root, in which every string
 * inside an object or array is the index of the entry holding the value.
 */
export function unflatten(text: string): any {
	const entries = JSON.parse(text) as unknown[];
	const revived = new Map<number, unknown>();
	const revive = (index: number): unknown => {
		if (revived.has(index)) return revived.get(index);
		const value = entries[index];
		if (typeof value !== 'object' || value === null) return value;
		const copy: Record<string, unknown> | unknown[] = Array.isArray(value) ? [] : {};
		revived.set(index, copy);
		for (const [key, entry] of Object.entries(value)) (copy as Record<string, unknown>)[key] = typeof entry === 'string' ? revive(Number(entry)) : entry;
		return copy;
	};
	return revive(0);
}

/** Polls `check` until it returns something other than undefined; fails with `what` after the time is up. */
export async function waitFor<T>(what: string, check: () => Promise<T | undefined>, timeoutMs = 120_000, everyMs = 500): Promise<T> {
	const deadline = Date.now() + timeoutMs;
	for (;;) {
		const value = await check();
		if (value !== undefined) return value;
		if (Date.now() > deadline) throw new Error(`${what}: not within ${timeoutMs / 1000} s`);
		await sleep(everyMs);
	}
}
