/**
 * Workflows saved by a release keep running: the example workflows as the release shipped them
 * (test/contract/workflows/<release>/, copies of examples/ frozen then, not the current
 * examples) are imported into each version's n8n and run as the editor runs them, all at once,
 * against the simulator: each must succeed, every Voice Assistant node must yield the output
 * fields recorded when the release was frozen, and the service must receive exactly the recorded
 * requests (method, target, body byte for byte), each checked against the spec (helpers.ts).
 * The record (<release>.runs.json) is written by this file in record mode (VA_RECORD_FROZEN=1,
 * scripts/freeze-examples.js), which runs them one after the other on the first n8n version to
 * tell whose request is whose.
 *
 * How each runs is what the suite's other files already do: from its Manual Trigger, or from a
 * Code node standing in for its Schedule or Form Trigger (startedManually), the Webhook example
 * active and called over HTTP (webhook.e2e); a Data Table as `npm run example` makes it
 * (demo/dataTable.js) under a name of this file's own, the CSV export written where n8n may read
 * it (recipes.e2e). Those needing a service the suite starts only for their own file (a chat
 * model, an MCP client, PostgreSQL) are checked structurally: each Voice Assistant node's version
 * has a recorded contract, test/contract/voiceAssistant-v<version>.json, and every parameter it
 * sets is one that contract has (STRUCTURAL says why each is not run).
 */
import fs from 'fs';
import { isDeepStrictEqual as isEqual } from 'util';
import path from 'path';
import { TABLES, tableNameOf, unpickedNodes } from '../../demo/dataTable';
import { CONTRACT_DIR } from '../../tools/contract';
import { fieldPaths, unknownParameters, type JsonObject } from '../helpers/contract';
import { contractFile, readRecorded } from '../helpers/contractDiff';
import type { RecordedRequest } from '../simulator';
import { NODE_NAME } from '../../tools/package-names';
import {
	CREDENTIAL,
	CREDENTIAL_TYPE,
	NODE_TYPE,
	TOOL_NODE_TYPE,
	requestedVersions,
	simulatorCredential,
	specProblems,
	startedManually,
	useSimulatorProcess,
	type Workflow,
	type WorkflowNode,
} from './helpers';
import { useN8n } from './session';
import type { Execution } from '../../tools/n8n';
import { poll } from '../../tools/processes';

const FROZEN_DIR = path.join(CONTRACT_DIR, 'workflows');
const RECORD = process.env.VA_RECORD_FROZEN === '1';

/**
 * How a frozen example starts: from its trigger (after `prepare` made what it reads on the n8n
 * host), from a Code node standing in for its trigger with these items, or (`webhook`) active,
 * with this body posted to its production webhook as a caller would (webhook.e2e).
 */
type Start =
	| { trigger: string; prepare?: (workflow: Workflow, filesDir: string) => void }
	| { standIn: string; items: object[] }
	| { webhook: object };

const at = (timestamp: string) => [{ timestamp }];
/** The Manual Trigger startedManually puts before the stand-in. */
const STAND_IN_START = 'Manual start (e2e)';
const WEBHOOK = 'n8n-nodes-base.webhook';
const HEADER = 'X-Webhook-Token';
const TOKEN = 'frozen-caller-token';

/** The CRM export the workflow reads, written where n8n may read it: a header row of the columns its Input Columns name, and two contacts. */
function writeCrmExport(workflow: Workflow, filesDir: string): void {
	const mapping = workflow.nodes.find((node) => isOurs(node.type))?.parameters
		.inputColumns as Record<string, string>;
	const fields = Object.keys(mapping);
	const value = (field: string, i: number) =>
		({ phone: `+141555501${i}0`, email: `contact-${i}@example.com` })[field] ?? `${field}-${i}`;
	const row = (i: number) => fields.map((field) => value(field, i));
	const file = path.join(filesDir, 'crm-export-frozen.csv');
	fs.writeFileSync(
		file,
		[Object.values(mapping), row(1), row(2)].map((line) => line.join(',')).join('\r\n'),
	);
	const reader = workflow.nodes.find((node) => node.type === 'n8n-nodes-base.readWriteFile');
	(reader as WorkflowNode).parameters.fileSelector = file;
}

/** The frozen examples this file runs, by file name. */
const RUNS: Record<string, Start> = {
	'call-each-contact-once.json': { standIn: 'Every day at 9', items: at('2026-01-05T09:00:00Z') },
	'crm-check-dry-run.json': { trigger: 'Check now' },
	'crm-export-csv.json': { trigger: "When clicking 'Execute workflow'", prepare: writeCrmExport },
	'crm-nodes-contacts.json': { trigger: "When clicking 'Execute workflow'" },
	'datatable-contacts-sync.json': {
		standIn: 'Every 15 minutes',
		items: at('2026-01-05T09:15:00Z'),
	},
	'faq-to-knowledge-base.json': { trigger: 'Run it' },
	'form-to-playground-call.json': {
		standIn: 'Call request form',
		items: [
			{
				'First Name': 'Mary',
				'Last Name': 'Jackson',
				Email: 'mary@example.com',
				Phone: '+14155550106',
				submittedAt: '2026-01-05T09:45:00.000+00:00',
				formMode: 'production',
			},
		],
	},
	'pick-assistant-and-call.json': { trigger: 'Run it' },
	'scheduled-contact-update.json': {
		standIn: 'Every morning at 7',
		items: at('2026-01-05T07:00:00Z'),
	},
	'sync-changed-contacts.json': { standIn: 'Every night at 2', items: at('2026-01-05T02:00:00Z') },
	'webhook-playground-call.json': {
		webhook: {
			first_name: 'Dorothy',
			last_name: 'Vaughan',
			email: 'dorothy@example.com',
			phone: '+14155550155',
		},
	},
};

/** The frozen examples checked structurally only, and why they are not run here. */
const STRUCTURAL: Record<string, string> = {
	'ai-agent-voice-assistant-tool.json':
		"needs a chat model, whose tool calls decide the requests (agent.e2e runs the node as an AI Agent's tool with a scripted model)",
	'mcp-server-tools.json':
		"needs an MCP client calling the tools, whose arguments decide the requests (mcp.e2e runs them with the MCP SDK's client)",
	'postgres-contacts-sync.json':
		'needs a PostgreSQL server with its tables (recipes.e2e starts one, where the machine has PostgreSQL)',
	'postgres-contacts-sync-paged.json':
		'needs a PostgreSQL server with its tables (recipes.e2e starts one, where the machine has PostgreSQL)',
};

/** What a frozen example did: the requests the service received and each Voice Assistant node's output fields. */
interface Ran {
	requests: Array<{ method: string; target: string; body: string }>;
	/** By node: per output, the distinct field lists of its items. */
	output: Record<string, string[][][]>;
}

const releases = fs
	.readdirSync(FROZEN_DIR, { withFileTypes: true })
	.filter((entry) => entry.isDirectory())
	.map((entry) => entry.name)
	.sort();
const contracts = readRecorded(CONTRACT_DIR, NODE_NAME);
const sim = useSimulatorProcess();

const isOurs = (type: string) => type === NODE_TYPE || type === TOOL_NODE_TYPE;
const recordFile = (release: string) => path.join(FROZEN_DIR, `${release}.runs.json`);

/** The requests in a stable order (the node sends concurrently). */
const requestsOf = (received: RecordedRequest[]): Ran['requests'] =>
	received
		.map(({ method, target, rawBody }) => ({ method, target, body: rawBody }))
		.sort((a, b) => JSON.stringify(a).localeCompare(JSON.stringify(b)));

/** Each Voice Assistant node's output fields in a run's data. */
function outputOf(workflow: Workflow, runData: Record<string, any[]>): Ran['output'] {
	const output: Ran['output'] = {};
	for (const node of workflow.nodes.filter((candidate) => isOurs(candidate.type))) {
		const outputs: string[][][] = [];
		for (const run of runData[node.name] ?? []) {
			((run.data?.main ?? []) as Array<Array<{ json: unknown }> | null>).forEach((items, i) => {
				const distinct = new Set((outputs[i] ?? []).map((fields) => JSON.stringify(fields)));
				for (const item of items ?? []) distinct.add(JSON.stringify(fieldPaths(item.json)));
				outputs[i] = [...distinct].sort().map((fields) => JSON.parse(fields));
			});
		}
		output[node.name] = outputs;
	}
	return output;
}

describe.each(releases)('the example workflows frozen at %s', (release) => {
	const dir = path.join(FROZEN_DIR, release);
	const files = fs
		.readdirSync(dir)
		.filter((file) => file.endsWith('.json'))
		.sort();
	const frozen = (file: string): Workflow =>
		JSON.parse(fs.readFileSync(path.join(dir, file), 'utf8'));
	const recorded: Record<string, Ran> = fs.existsSync(recordFile(release))
		? JSON.parse(fs.readFileSync(recordFile(release), 'utf8'))
		: {};

	test('each is run here or checked structurally, for a reason', () => {
		expect(files.filter((file) => !RUNS[file] && !STRUCTURAL[file])).toEqual([]);
		expect(Object.keys(RUNS).filter((file) => STRUCTURAL[file])).toEqual([]);
		if (!RECORD) expect(Object.keys(recorded).sort()).toEqual(Object.keys(RUNS).sort());
	});

	test.each(files)(
		'%s: its Voice Assistant nodes set only parameters of their version, with the simulator credential',
		(file) => {
			const nodes = frozen(file).nodes.filter((node) => isOurs(node.type));
			expect(nodes.length).toBeGreaterThan(0);
			for (const node of nodes) {
				const contract = contracts.get(node.typeVersion) as JsonObject;
				expect([node.name, contract ? contractFile(NODE_NAME, node.typeVersion) : 'none']).toEqual([
					node.name,
					contractFile(NODE_NAME, node.typeVersion),
				]);
				// The tool's own description fields are n8n's, not the node's.
				const toolOnly = ['descriptionType', 'toolDescription'];
				expect([node.name, unknownParameters(contract, node.parameters, toolOnly)]).toEqual([
					node.name,
					[],
				]);
				expect(node.credentials).toEqual({ [CREDENTIAL_TYPE]: CREDENTIAL });
			}
		},
	);

	describe.each(requestedVersions())('n8n %s', (version) => {
		const n8n = useN8n(version);
		const saved: Record<string, { id: string; workflow: Workflow }> = {};
		const tables: string[] = [];
		let projectId: string;

		/** A table as demo/dataTable.js makes the one of this name, under a name of this file's own; its id. */
		async function createTable(name: string): Promise<string> {
			const { columns, rows } = TABLES[name];
			const tablesPath = `/rest/projects/${projectId}/data-tables`;
			const table = await n8n().api.call('POST', tablesPath, {
				name: `${name}_frozen_${release.replace(/\W/g, '_')}`,
				columns,
			});
			tables.push(table.id);
			if (rows.length)
				await n8n().api.call('POST', `${tablesPath}/${table.id}/insert`, {
					data: rows,
					returnType: 'count',
				});
			return table.id;
		}

		/** The webhook's Header Auth credential, as the example names it, with this file's token. */
		const headerAuth = (workflow: Workflow) => {
			const webhook = workflow.nodes.find((node) => node.type === WEBHOOK) as WorkflowNode;
			const { id, name } = (webhook.credentials ?? {}).httpHeaderAuth;
			return { id, name, type: 'httpHeaderAuth', data: { name: HEADER, value: TOKEN } };
		};

		/** A frozen example as it is saved here: started by hand where it says so, its Data Tables and files made. */
		async function prepare(file: string): Promise<Workflow> {
			const start = RUNS[file];
			let workflow = frozen(file);
			if ('standIn' in start)
				workflow = startedManually(workflow, `${workflow.id}F`, start.standIn, start.items);
			if ('prepare' in start) start.prepare?.(workflow, n8n().instance.filesDir);
			if ('webhook' in start) await n8n().saveCredentials([headerAuth(workflow)]);
			// A Data Table of this file's own for each the example names, with the demo's columns and rows.
			const picked = new Map<string, string>();
			for (const node of unpickedNodes(workflow)) {
				const name = tableNameOf(node);
				if (!picked.has(name)) picked.set(name, await createTable(name));
				node.parameters.dataTableId = { __rl: true, mode: 'id', value: picked.get(name) };
			}
			return workflow;
		}

		beforeAll(async () => {
			await n8n().saveCredentials([simulatorCredential(sim().url)]);
			projectId = (await n8n().api.call('GET', '/rest/projects/personal')).id;
			// One at a time: n8n 1.x on SQLite fails saves that overlap (no such savepoint).
			for (const file of Object.keys(RUNS)) {
				const workflow = await prepare(file);
				saved[file] = { id: await n8n().saveWorkflow(workflow), workflow };
			}
		});

		/** Runs a saved example as it starts (Start); its run data. */
		async function run(file: string): Promise<Execution> {
			const start = RUNS[file];
			const { id, workflow } = saved[file];
			if ('trigger' in start) return (await n8n().execute(id, { trigger: start.trigger })).run;
			if ('standIn' in start) return (await n8n().execute(id, { trigger: STAND_IN_START })).run;
			await n8n().api.activate(id);
			const webhook = workflow.nodes.find((node) => node.type === WEBHOOK) as WorkflowNode;
			const url = `${n8n().url}/webhook/${webhook.parameters.path}`;
			// The production webhook answers once n8n has registered it; until then 404, and nothing runs.
			await poll(
				'the production webhook',
				async () => {
					const answer = await fetch(url, {
						method: 'POST',
						headers: { 'content-type': 'application/json', [HEADER]: TOKEN },
						body: JSON.stringify(start.webhook),
					});
					return answer.status !== 404;
				},
				{ timeoutMs: 60_000, everyMs: 250 },
			);
			const [execution] = await poll('its execution', async () => {
				const executions = await n8n().api.executions(id);
				return executions.length ? executions : undefined;
			});
			return await n8n().api.finished(execution.id);
		}

		afterAll(async () => {
			for (const table of tables)
				await n8n().api.send('DELETE', `/rest/projects/${projectId}/data-tables/${table}`);
		});

		beforeEach(async () => {
			await sim().reset();
		});

		/** What a run did; its requests are those the simulator received since its last reset. */
		async function ran(file: string, execution: Execution): Promise<Ran & { status: unknown[] }> {
			const { status, data } = execution;
			return {
				status: [status, data.resultData.error?.message],
				requests: requestsOf(await sim().requests()),
				output: outputOf(saved[file].workflow, data.resultData.runData),
			};
		}

		if (RECORD && version === requestedVersions()[0]) {
			test('each, one after the other, recorded', async () => {
				const record: Record<string, Ran> = {};
				for (const file of Object.keys(RUNS)) {
					await sim().reset();
					const { status, ...now } = await ran(file, await run(file));
					expect([file, status]).toEqual([file, ['success', undefined]]);
					expect((await sim().requests()).flatMap(specProblems)).toEqual([]);
					record[file] = now;
				}
				fs.writeFileSync(recordFile(release), `${JSON.stringify(record, null, '\t')}\n`);
				Object.assign(recorded, record);
			});
			return;
		}

		test('all at once: each succeeds, with the recorded output fields; the service receives the recorded requests', async () => {
			const runs = Object.keys(RUNS);
			const executions = await Promise.all(runs.map(run));
			const now = await Promise.all(runs.map((file, i) => ran(file, executions[i])));
			expect(Object.fromEntries(runs.map((file, i) => [file, now[i].status]))).toEqual(
				Object.fromEntries(runs.map((file) => [file, ['success', undefined]])),
			);
			expect(Object.fromEntries(runs.map((file, i) => [file, now[i].output]))).toEqual(
				Object.fromEntries(runs.map((file) => [file, recorded[file]?.output])),
			);
			// The runs overlapped: every recorded request exactly once, whichever sent it first.
			const received = await sim().requests();
			expect(received.flatMap(specProblems)).toEqual([]);
			const unexpected = requestsOf(received);
			const missing = runs.flatMap((file) =>
				(recorded[file]?.requests ?? []).flatMap((request) => {
					const i = unexpected.findIndex((candidate) => isEqual(candidate, request));
					if (i === -1) return [{ ...request, recordedFor: file }];
					unexpected.splice(i, 1);
					return [];
				}),
			);
			expect({ missing, unexpected }).toEqual({ missing: [], unexpected: [] });
		});
	});
});
