/**
 * Building blocks of the e2e suite: the simulator as a process, a describe block's workflows
 * saved in the version's n8n (session.ts), the run data n8n keeps, and a check of every request
 * against the API spec as the simulator reads it (not the node's schemas).
 *
 * A new case that runs a workflow on every version and reads what the simulator received:
 *
 *   const sim = useSimulatorProcess();
 *   describe.each(requestedVersions())('n8n %s', (version) => {
 *     const { execute, requests } = useImportedN8n(sim, version, () => ({
 *       credentials: [simulatorCredential(sim().url)],
 *       workflows: [workflow('vaMyCase', 'e2e: my case', [manualTrigger(), voiceAssistant('Call', {...})])],
 *     }));
 *     test('…', async () => {
 *       const { run } = expectSuccess(await execute('vaMyCase'));
 *       expect(outputOf(run, 'Call')).toHaveLength(1);
 *       expect(await requests()).toHaveLength(1);
 *     });
 *   });
 */
import { apiKeyProblem, requestProblem, type RecordedRequest } from '../simulator';
import type { N8nItem, N8nRun } from '../../tools/n8n';
import { CREDENTIAL_TYPE } from '../../tools/package-names';
import { startSimulatorProcess, type SimulatorProcess } from '../../tools/simulator-process';
import {
	SIMULATOR_CREDENTIAL,
	itemsNode,
	mainTo,
	manualTrigger,
	type Workflow,
	type WorkflowNode,
} from '../../tools/workflows';
import { useN8n, type CredentialSpec, type N8nSession, type RunResult } from './session';

export { requestedVersions } from '../../tools/n8n';
export { CREDENTIAL_TYPE, NODE_TYPE, TOOL_NODE_TYPE } from '../../tools/package-names';
export { EXAMPLES_DIR, readExample, readExamples } from '../../tools/repo';
export {
	SIMULATOR_CREDENTIAL as CREDENTIAL,
	codeNode,
	itemsNode,
	manualTrigger,
	voiceAssistant,
	workflow,
} from '../../tools/workflows';
export type { NodeSpec, Workflow, WorkflowNode } from '../../tools/workflows';

export const API_KEY = 'e2e-api-key-5f2c1d';

/** Set by prepare.js: the run's working folder and the packed tarball. */
const WORK_DIR = process.env.VA_E2E_WORKDIR as string;
export const TARBALL = process.env.VA_E2E_TARBALL as string;

/**
 * The API simulator as a separate process for the test file (unless `enabled` is false), as
 * n8n's processes reach it; returns a getter. useImportedN8n resets it before each test. (The
 * unit tests run it in process: useSimulator in test/helpers/simulator.ts.)
 */
export function useSimulatorProcess(enabled = true): () => SimulatorProcess {
	let sim: SimulatorProcess | undefined;
	beforeAll(async () => {
		if (!enabled) return;
		if (!WORK_DIR || !TARBALL)
			throw new Error('Run the e2e suite with `npm run test:e2e` (jest.e2e.config.js sets it up).');
		sim = await startSimulatorProcess({ apiKey: API_KEY, logDir: WORK_DIR });
	});
	afterAll(async () => {
		await sim?.stop();
	});
	return () => sim as SimulatorProcess;
}

/** The seeded assistant Maya (outbound, English) and the path of contact updates. */
export const MAYA = '6650b7c1e4a2f9d3b8c10a01';
export const CONTACT_PATH = '/api/v1/segment/contact/update';

/** The credential pointing at the simulator. */
export const simulatorCredential = (baseUrl: string): CredentialSpec => ({
	...SIMULATOR_CREDENTIAL,
	type: CREDENTIAL_TYPE,
	data: { apiKey: API_KEY, baseUrl },
});

/**
 * For one describe block: a session in the version's n8n with the credentials and workflows
 * saved; the simulator reset before each test, and every request a test caused checked against
 * the spec after it, whatever the test itself checks. `execute(id)` runs a saved workflow from
 * its Manual Trigger as the editor does; `requests()` reads the simulator's requests (and keeps
 * them for that check). `acceptThrottled`: the tests run behind the simulator's rate limit, so
 * its 429 answers are expected (the requests answered 429 are still checked against the spec).
 */
export function useImportedN8n(
	sim: () => SimulatorProcess,
	version: string,
	imports: () => { credentials: CredentialSpec[]; workflows: Workflow[] },
	{ acceptThrottled = false }: { acceptThrottled?: boolean } = {},
): {
	n8n: () => N8nSession;
	execute: (workflowId: string) => Promise<RunResult>;
	requests: () => Promise<RecordedRequest[]>;
} {
	const n8n = useN8n(version);
	let recorded: RecordedRequest[] | undefined;
	beforeAll(async () => {
		const { credentials, workflows } = imports();
		await n8n().saveCredentials(credentials);
		for (const saved of workflows) await n8n().saveWorkflow(saved);
	});
	beforeEach(async () => {
		recorded = undefined;
		await sim().reset();
	});
	afterEach(async () => {
		const all = recorded ?? (await sim().requests());
		expect(all.flatMap((request) => problemsOf(request, acceptThrottled))).toEqual([]);
	});
	return {
		n8n,
		execute: (workflowId) => n8n().execute(workflowId),
		requests: async () => (recorded = await sim().requests()),
	};
}

/**
 * A copy of a workflow that starts from a Manual Trigger: its Schedule or Form Trigger becomes a
 * Code node of the same name that returns what the trigger would emit (expressions like
 * $('Trigger name') keep working).
 */
export function startedManually(
	original: Workflow,
	id: string,
	triggerName: string,
	items: object[],
): Workflow {
	const copy: Workflow = JSON.parse(JSON.stringify(original));
	copy.id = id;
	copy.name = `${original.name} (e2e copy)`;
	const trigger = copy.nodes.find((node) => node.name === triggerName);
	if (!trigger) throw new Error(`${original.name} has no node "${triggerName}"`);
	const { id: nodeId, name, position } = trigger;
	const replacement = itemsNode(name, items);
	copy.nodes[copy.nodes.indexOf(trigger)] = {
		...replacement,
		id: nodeId,
		position,
		typeVersion: 2,
	} as WorkflowNode;
	const start = 'Manual start (e2e)';
	copy.nodes.push({
		...manualTrigger(start),
		id: '00000000-0000-4000-8000-0000000000ff',
		typeVersion: 1,
		position: [position[0] - 220, position[1]],
	} as WorkflowNode);
	copy.connections[start] = mainTo([triggerName]);
	return copy;
}

/** Expects a run that succeeded (no error, status success); returns it. */
export function expectSuccess(result: RunResult): RunResult {
	expect(result.run.data.resultData.error).toBeUndefined();
	expect(result.status).toBe('success');
	return result;
}

/** The items a node emitted on its main output in its first run. */
export function outputOf(run: N8nRun, nodeName: string): N8nItem[] {
	const runs = run.data.resultData.runData[nodeName];
	if (!runs)
		throw new Error(
			`node "${nodeName}" did not run; ran: ${Object.keys(run.data.resultData.runData).join(', ')}`,
		);
	return runs[0].data?.main[0] ?? [];
}

export function pairedIndex(item: N8nItem): number | undefined {
	const paired = Array.isArray(item.pairedItem) ? item.pairedItem[0] : item.pairedItem;
	return paired?.item;
}

/**
 * Everything about a recorded request that differs from the spec, as the simulator reads it
 * (test/simulator/rules.js, independent of the node's schemas): endpoint and method, x-api-key,
 * Content-Type and JSON body, the id query parameter and no other. Every request is checked,
 * canned answers included (the simulator gives those without checking). Also flags requests
 * the simulator did not accept, unless their answer was canned.
 */
export function specProblems(request: RecordedRequest): string[] {
	return problemsOf(request, false);
}

/** specProblems, where `acceptThrottled` also accepts the 429 answers of the simulator's rate limit. */
function problemsOf(request: RecordedRequest, acceptThrottled: boolean): string[] {
	const where = `${request.method} ${request.path}${request.query.id ? `?id=${request.query.id}` : ''}`;
	const problems = [apiKeyProblem(request.headers, API_KEY), requestProblem(request)?.message];
	const expected =
		request.outcome === 'applied' || (acceptThrottled && request.outcome === 'throttled');
	if (!request.canned && !expected)
		problems.push(`the simulator answered ${request.status} (${request.outcome})`);
	return problems
		.filter((problem): problem is string => !!problem)
		.map((problem) => `${where}: ${problem}`);
}

export const byKey =
	<T>(key: (value: T) => string) =>
	(a: T, b: T) =>
		key(a).localeCompare(key(b));
