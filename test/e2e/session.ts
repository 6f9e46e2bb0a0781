/**
 * A test file's session in the `n8n start` of one version, which globalSetup started for the
 * whole run (one per version, the packed package installed in its user folder). Everything
 * goes through n8n's REST API, as in the editor: credentials and workflows are saved, workflows
 * run as the "Execute workflow" button runs them, executions read back. What a file saved is
 * deleted after it, so the next file finds the instance as it was.
 */
import fs from 'fs';
import { signIn, type EditorApi, type Execution } from '../../tools/n8n';
import type { Workflow } from '../../tools/workflows';

/** What globalSetup.js passes on about each instance (VA_E2E_N8N). */
export interface Instance {
	version: string;
	url: string;
	bin: string;
	userFolder: string;
	/** The folder n8n's file nodes may read and write (N8N_RESTRICT_FILE_ACCESS_TO). */
	filesDir: string;
	stdoutFile: string;
	stderrFile: string;
	/** The lines n8n's /etc/hosts has besides the machine's (none where the machine does not allow it). */
	hosts: string[];
}

/** A credential with its data; `id` is the suite's own, which the workflows refer to. */
export interface CredentialSpec {
	id: string;
	name: string;
	type: string;
	data: Record<string, unknown>;
}

/** A finished manual run: the execution's status, its run data, and what n8n logged meanwhile. */
export interface RunResult {
	status: string;
	run: Execution;
	log: string;
}

export function instanceOf(version: string): Instance {
	const instances = JSON.parse(process.env.VA_E2E_N8N ?? '{}') as Record<string, Instance>;
	if (!instances[version])
		throw new Error(
			`No n8n ${version} was started: run the e2e suite with \`npm run test:e2e\` (jest.e2e.config.js starts it).`,
		);
	return instances[version];
}

const sizeOf = (file: string) => fs.statSync(file).size;
const readFrom = (file: string, offset: number) => {
	const text = fs.readFileSync(file);
	return text.subarray(Math.min(offset, text.length)).toString('utf8');
};

export class N8nSession {
	/** The suite's ids of saved credentials and workflows → n8n's ids. */
	private readonly credentialIds = new Map<string, string>();
	private readonly workflowIds = new Map<string, string>();
	/** What was saved, by n8n's id. */
	private readonly saved = new Map<string, Workflow>();
	private readonly logStart: [number, number];

	constructor(
		readonly instance: Instance,
		readonly api: EditorApi,
	) {
		this.logStart = [sizeOf(instance.stdoutFile), sizeOf(instance.stderrFile)];
	}

	get url(): string {
		return this.instance.url;
	}

	/** Creates credentials, under ids of n8n's choosing (each once per session). */
	async saveCredentials(credentials: CredentialSpec[]): Promise<void> {
		for (const { id, ...credential } of credentials) {
			if (this.credentialIds.has(id)) throw new Error(`credential ${id} is saved already`);
			const saved = await this.api.call('POST', '/rest/credentials', credential);
			this.credentialIds.set(id, String(saved.id));
		}
	}

	/**
	 * Saves a workflow (created the first time, updated after); its nodes' credentials point at
	 * the saved ones. Returns n8n's id (n8n 1.x picks its own).
	 */
	async saveWorkflow(workflow: Workflow): Promise<string> {
		const { id, ...definition } = JSON.parse(JSON.stringify(workflow)) as Workflow;
		for (const node of definition.nodes) {
			for (const [type, credential] of Object.entries(node.credentials ?? {}))
				node.credentials![type] = this.credentialRef(credential);
		}
		const known = this.workflowIds.get(id);
		let saved;
		if (known) {
			const { versionId } = await this.api.call('GET', `/rest/workflows/${known}`);
			saved = await this.api.call('PATCH', `/rest/workflows/${known}`, {
				...definition,
				versionId,
			});
		} else saved = await this.api.call('POST', '/rest/workflows', { ...definition, active: false });
		this.workflowIds.set(id, String(saved.id));
		this.saved.set(String(saved.id), workflow);
		return String(saved.id);
	}

	/** A saved credential as a node refers to it, by the suite's id. */
	credentialRef({ id, name }: { id: string; name: string }): { id: string; name: string } {
		return { id: this.credentialIds.get(id) ?? id, name };
	}

	/** n8n's id of a workflow saved under the suite's id (or the id itself). */
	idOf(workflowId: string): string {
		return this.workflowIds.get(workflowId) ?? workflowId;
	}

	/**
	 * Runs a saved workflow as the editor's "Execute workflow" button does, from its Manual
	 * Trigger (or `trigger`), and waits until it is over.
	 */
	async execute(
		workflowId: string,
		{ trigger, timeoutMs = 240_000 }: { trigger?: string; timeoutMs?: number } = {},
	): Promise<RunResult> {
		const start =
			trigger ??
			this.saved
				.get(this.idOf(workflowId))
				?.nodes.find((node) => node.type === 'n8n-nodes-base.manualTrigger')?.name;
		if (!start) throw new Error(`${workflowId} has no Manual Trigger to start from`);
		const logAt = [sizeOf(this.instance.stdoutFile), sizeOf(this.instance.stderrFile)] as const;
		const run = await this.api.runManually(this.idOf(workflowId), start, timeoutMs);
		return { status: run.status, run, log: this.logSince(logAt) };
	}

	/** Everything n8n logged since this session began. */
	log(): string {
		return this.logSince(this.logStart);
	}

	private logSince([stdoutAt, stderrAt]: readonly [number, number]): string {
		return `${readFrom(this.instance.stdoutFile, stdoutAt)}\n${readFrom(this.instance.stderrFile, stderrAt)}`;
	}

	/** Deletes what this session saved: its workflows (switched off first) and credentials. */
	async forgetAll(): Promise<void> {
		for (const id of this.workflowIds.values()) {
			await this.api.send('POST', `/rest/workflows/${id}/deactivate`, {});
			// n8n 2.x deletes only archived workflows; 1.x has no archive.
			await this.api.send('POST', `/rest/workflows/${id}/archive`);
			await this.api.send('DELETE', `/rest/workflows/${id}`);
		}
		for (const id of this.credentialIds.values())
			await this.api.send('DELETE', `/rest/credentials/${id}`);
		this.workflowIds.clear();
		this.credentialIds.clear();
	}
}

/**
 * For one describe block: a session in the version's `n8n start`, signed in as the owner before
 * its tests; what it saved is deleted after them. Returns a getter.
 */
export function useN8n(version: string): () => N8nSession {
	let session: N8nSession | undefined;
	beforeAll(async () => {
		const instance = instanceOf(version);
		session = new N8nSession(instance, await signIn(instance.url));
	});
	afterAll(async () => {
		await session?.forgetAll();
	});
	return () => session as N8nSession;
}
