/**
 * Building blocks of the e2e suite: workflow JSON for `n8n import:workflow`, reading the run
 * data `n8n execute` prints, and a check of every request against the API spec as the simulator
 * reads it (not the node's schemas).
 */
import fs from 'fs';
import path from 'path';
import { apiKeyProblem, requestProblem, type RecordedRequest } from '../simulator';
import { importIntoN8n, installPackage, type N8nItem, type N8nRun } from '../../tools/n8n';
import { CREDENTIAL_TYPE, NODE_TYPE } from '../../tools/package-names';
import { startSimulatorProcess, type SimulatorProcess } from '../../tools/simulator-process';

export const API_KEY = 'e2e-api-key-5f2c1d';

/** Set by globalSetup: the run's working folder and the packed tarball. */
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
		if (!WORK_DIR || !TARBALL) throw new Error('Run the e2e suite with `npm run test:e2e` (jest.e2e.config.js sets it up).');
		sim = await startSimulatorProcess({ apiKey: API_KEY, logDir: WORK_DIR });
	});
	afterAll(async () => {
		await sim?.stop();
	});
	return () => sim as SimulatorProcess;
}

/** Removes a user folder after its tests, unless VA_E2E_KEEP asks to keep it for a look. */
export function removeUserFolder(userFolder: string | undefined): void {
	if (userFolder && !process.env.VA_E2E_KEEP) fs.rmSync(userFolder, { recursive: true, force: true });
}

/** A fresh n8n user folder with the packed package installed the way the Community Nodes screen does. */
export async function userFolderWithPackage(name: string): Promise<string> {
	const userFolder = fs.mkdtempSync(path.join(WORK_DIR, `${name}-`));
	await installPackage(userFolder, TARBALL);
	return userFolder;
}
/** The seeded assistant Maya (outbound, English) and the path of contact updates. */
export const MAYA = '6650b7c1e4a2f9d3b8c10a01';
export const CONTACT_PATH = '/api/v1/segment/contact/update';

export const CREDENTIAL = { id: 'vaSimulatorCred1', name: 'Voice Assistant (simulator)' };

/** The credential pointing at the simulator, as `n8n import:credentials` reads it. */
export const simulatorCredential = (baseUrl: string) => ({
	...CREDENTIAL,
	type: CREDENTIAL_TYPE,
	data: { apiKey: API_KEY, baseUrl },
});

/**
 * For one describe block: a user folder with the package, the credentials and the workflows
 * imported; the simulator reset before each test, and every request a test caused checked
 * against the spec after it, whatever the test itself checks. `requests()` reads the
 * simulator's requests (and keeps them for that check). `acceptThrottled`: the tests run
 * behind the simulator's rate limit, so its 429 answers are expected (the requests answered
 * 429 are still checked against the spec).
 */
export function useImportedN8n(
	sim: () => SimulatorProcess,
	name: string,
	bin: string,
	imports: () => { credentials: object[]; workflows: Workflow[] },
	{ acceptThrottled = false }: { acceptThrottled?: boolean } = {},
): { userFolder: () => string; requests: () => Promise<RecordedRequest[]> } {
	let userFolder: string;
	let recorded: RecordedRequest[] | undefined;
	beforeAll(async () => {
		userFolder = await userFolderWithPackage(name);
		const { credentials, workflows } = imports();
		await importIntoN8n(bin, userFolder, { credentials, workflows });
	});
	afterAll(() => {
		removeUserFolder(userFolder);
	});
	beforeEach(async () => {
		recorded = undefined;
		await sim().reset();
	});
	afterEach(async () => {
		const all = recorded ?? (await sim().requests());
		expect(all.flatMap((request) => problemsOf(request, acceptThrottled))).toEqual([]);
	});
	return { userFolder: () => userFolder, requests: async () => (recorded = await sim().requests()) };
}
export { NODE_TYPE, TOOL_NODE_TYPE } from '../../tools/package-names';
export const EXAMPLES_DIR = path.resolve(__dirname, '..', '..', 'examples');

export interface WorkflowNode {
	id: string;
	name: string;
	type: string;
	typeVersion: number;
	position: [number, number];
	parameters: Record<string, unknown>;
	credentials?: Record<string, { id: string; name: string }>;
	onError?: string;
	/** n8n's node settings Retry On Fail, Max Tries, Wait Between Tries (ms). */
	retryOnFail?: boolean;
	maxTries?: number;
	waitBetweenTries?: number;
	/** n8n's node setting Execute Once: the node runs on the first input item only. */
	executeOnce?: boolean;
	webhookId?: string;
	notes?: string;
	notesInFlow?: boolean;
}

export interface Workflow {
	id: string;
	name: string;
	active?: boolean;
	nodes: WorkflowNode[];
	connections: Record<string, Record<string, Array<Array<{ node: string; type: string; index: number }>>>>;
	settings?: Record<string, unknown>;
	pinData?: Record<string, unknown>;
}

export type NodeSpec = Omit<WorkflowNode, 'id' | 'position' | 'typeVersion'> & { typeVersion?: number };

export const manualTrigger = (name = 'Start'): NodeSpec => ({
	name,
	type: 'n8n-nodes-base.manualTrigger',
	parameters: {},
});

/** A Code node returning `code`'s items: a stand-in for any source of data. */
export const codeNode = (name: string, jsCode: string): NodeSpec => ({
	name,
	type: 'n8n-nodes-base.code',
	typeVersion: 2,
	parameters: { jsCode },
});

/** A Code node returning fixed items. */
export const itemsNode = (name: string, items: object[]): NodeSpec =>
	codeNode(name, `return ${JSON.stringify(items)}.map((json) => ({ json }));`);

export const voiceAssistant = (
	name: string,
	parameters: Record<string, unknown>,
	extra: Partial<WorkflowNode> = {},
): NodeSpec => ({
	name,
	type: NODE_TYPE,
	parameters,
	credentials: { [CREDENTIAL_TYPE]: CREDENTIAL },
	...extra,
});

const mainTo = (names: string[]) => ({ main: [names.map((node) => ({ node, type: 'main', index: 0 }))] });

/**
 * A workflow whose nodes run one after the other; `branches` connects the first node to
 * several nodes instead (each gets the first node's items).
 * Ids must be at most 16 characters: n8n 1.x drops longer ones (isWorkflowIdValid).
 */
export function workflow(id: string, name: string, nodes: NodeSpec[], branches?: string[]): Workflow {
	if (id.length > 16) throw new Error(`workflow id ${id} is longer than 16 characters`);
	const connections: Workflow['connections'] = {};
	if (branches) connections[nodes[0].name] = mainTo(branches);
	else nodes.slice(0, -1).forEach((node, i) => (connections[node.name] = mainTo([nodes[i + 1].name])));
	return {
		id,
		name,
		active: false,
		settings: { executionOrder: 'v1' },
		connections,
		nodes: nodes.map((node, i) => ({
			typeVersion: 1,
			...node,
			id: `00000000-0000-4000-8000-${String(i + 1).padStart(12, '0')}`,
			position: [i * 220, 0] as [number, number],
		})),
	};
}

export function readExamples(): Workflow[] {
	return fs
		.readdirSync(EXAMPLES_DIR)
		.filter((file) => file.endsWith('.json'))
		.sort()
		.map((file) => JSON.parse(fs.readFileSync(path.join(EXAMPLES_DIR, file), 'utf8')) as Workflow);
}

/**
 * `n8n execute` starts only from a Manual Trigger (or Execute Workflow Trigger) and ignores
 * pinned data there. So the suite's copy of a workflow with a Schedule or Form Trigger swaps
 * the trigger for a Code node of the same name that returns what the trigger would emit
 * (expressions like $('Trigger name') keep working) and starts it from a Manual Trigger.
 */
export function startedManually(original: Workflow, id: string, triggerName: string, items: object[]): Workflow {
	const copy: Workflow = JSON.parse(JSON.stringify(original));
	copy.id = id;
	copy.name = `${original.name} (e2e copy)`;
	const trigger = copy.nodes.find((node) => node.name === triggerName);
	if (!trigger) throw new Error(`${original.name} has no node "${triggerName}"`);
	const { id: nodeId, name, position } = trigger;
	const replacement = itemsNode(name, items);
	copy.nodes[copy.nodes.indexOf(trigger)] = { ...replacement, id: nodeId, position, typeVersion: 2 } as WorkflowNode;
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

/** The items a node emitted on its main output in its first run. */
export function outputOf(run: N8nRun, nodeName: string): N8nItem[] {
	const runs = run.data.resultData.runData[nodeName];
	if (!runs) throw new Error(`node "${nodeName}" did not run; ran: ${Object.keys(run.data.resultData.runData).join(', ')}`);
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
	const expected = request.outcome === 'applied' || (acceptThrottled && request.outcome === 'throttled');
	if (!request.canned && !expected) problems.push(`the simulator answered ${request.status} (${request.outcome})`);
	return problems.filter((problem): problem is string => !!problem).map((problem) => `${where}: ${problem}`);
}

export const byKey = <T>(key: (value: T) => string) => (a: T, b: T) => key(a).localeCompare(key(b));
