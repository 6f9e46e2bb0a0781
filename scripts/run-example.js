#!/usr/bin/env node
'use strict';

/**
 * `npm run example -- <workflow.json>`: runs a workflow in a real n8n without opening the editor,
 * using the n8n harness (tools/n8n). Builds and packs the package, installs it into a temporary
 * n8n user folder, imports the credential the workflow uses and the workflow, starts `n8n start`
 * and runs the workflow once from its Manual Trigger (else its Schedule Trigger) as the editor's
 * *Execute workflow* does (pinned data used). A Data Table the workflow names but has not picked
 * is created and picked first, as the demo does (demo/dataTable.js). Prints what each node
 * emitted, the rows of those tables and the requests the simulator received. The credential
 * points at the API simulator, or at a real service when VOICE_ASSISTANT_BASE_URL and
 * VOICE_ASSISTANT_API_KEY are set.
 */
const fs = require('fs');
const os = require('os');
const path = require('path');
const { ensureDevDependencies } = require('./ensure-dev-deps');
const {
	DEMO_VERSION,
	buildAndPack,
	ensureN8n,
	importIntoN8n,
	installPackage,
	signIn,
	startN8n,
} = require('../tools/n8n');
const { CREDENTIAL_TYPE } = require('../tools/package-names');
const { startSimulatorProcess } = require('../tools/simulator-process');
const { prepareDataTables, tableRows } = require('../demo/dataTable');

/** @param {string} line */
const log = (line) => process.stdout.write(`[example] ${line}\n`);

/**
 * The Voice Assistant credential the workflow's nodes refer to (id and name).
 * @param {import('../tools/workflows').Workflow} workflow
 */
function credentialOf(workflow) {
	const ref = workflow.nodes.map((node) => node.credentials?.[CREDENTIAL_TYPE]).find(Boolean);
	if (!ref) throw new Error(`"${workflow.name}" has no Voice Assistant node with a credential`);
	return ref;
}

/**
 * The trigger *Execute workflow* runs the workflow from without waiting for anything: its Manual
 * Trigger, else its Schedule Trigger (run once, now).
 * @param {import('../tools/workflows').Workflow} workflow
 */
const startingTrigger = (workflow) =>
	['n8n-nodes-base.manualTrigger', 'n8n-nodes-base.scheduleTrigger']
		.map((type) => workflow.nodes.find((node) => node.type === type))
		.find(Boolean);

/** @param {string} line */
const print = (line) => process.stdout.write(`${line}\n`);

async function main() {
	const [file] = process.argv.slice(2);
	if (!file) throw new Error('Usage: npm run example -- examples/<workflow>.json');
	const workflowFile = path.resolve(process.env.INIT_CWD || process.cwd(), file);
	/** @type {import('../tools/workflows').Workflow} */
	const workflow = JSON.parse(fs.readFileSync(workflowFile, 'utf8'));
	const trigger = startingTrigger(workflow);
	if (!trigger) {
		throw new Error(
			`"${workflow.name}" has no Manual or Schedule Trigger to run it from (a Webhook, Form or Chat Trigger waits for a call)`,
		);
	}
	const version = process.env.N8N_EXAMPLE_VERSION || DEMO_VERSION;
	const { VOICE_ASSISTANT_BASE_URL: baseUrl, VOICE_ASSISTANT_API_KEY: apiKey } = process.env;

	ensureDevDependencies(log);
	const work = fs.mkdtempSync(path.join(os.tmpdir(), 'va-example-'));
	/** @type {import('../tools/simulator-process').SimulatorProcess | undefined} */
	let sim;
	/** @type {import('../tools/n8n').RunningN8n | undefined} */
	let n8n;
	try {
		const tarball = await buildAndPack(work, log);
		const bin = await ensureN8n(version, log);
		const userFolder = path.join(work, 'user');
		await installPackage(userFolder, tarball);
		if (!baseUrl || !apiKey)
			sim = await startSimulatorProcess({ apiKey: 'example-api-key', logDir: work });
		const data = sim ? { baseUrl: sim.url, apiKey: 'example-api-key' } : { baseUrl, apiKey };
		log(
			`Credential "${credentialOf(workflow).name}" -> ${data.baseUrl}${sim ? ' (the API simulator)' : ''}`,
		);

		const credential = { ...credentialOf(workflow), type: CREDENTIAL_TYPE, data };
		await importIntoN8n(bin, userFolder, { credentials: [credential], workflows: [workflow] });

		log(`Starting n8n ${version}...`);
		n8n = await startN8n(bin, userFolder, { logDir: work });
		const api = await signIn(n8n.url);
		const tables = await prepareDataTables(api, workflow.id, log);

		log(`Running "${workflow.name}" from "${trigger.name}", as Execute workflow does...`);
		const execution = await api.runManually(workflow.id, trigger.name);
		for (const [node, runs] of Object.entries(execution.data.resultData.runData)) {
			const items = runs[0].data?.main[0] ?? [];
			print(`\n${node}: ${items.length} item(s)`);
			for (const item of items) print(`  ${JSON.stringify(item.json)}`);
		}
		for (const table of tables) {
			const rows = await tableRows(api, table);
			print(`\nThe Data Table "${table.name}" holds ${rows.length} row(s):`);
			for (const { id, createdAt, updatedAt, ...row } of rows) print(`  ${JSON.stringify(row)}`);
		}
		if (sim) {
			const requests = await sim.requests();
			print(`\nThe simulator received ${requests.length} request(s):`);
			for (const { method, path: pathname, query, status } of requests) {
				const search = Object.entries(query)
					.map(([key, value]) => `${key}=${value}`)
					.join('&');
				print(`  ${method} ${pathname}${search ? `?${search}` : ''} -> ${status}`);
			}
		}
		const error = execution.data.resultData.error;
		if (error) print(`\nThe run failed: ${error.message}`);
		process.exitCode = execution.status === 'success' && !error ? 0 : 1;
	} finally {
		await n8n?.stop();
		await sim?.stop();
		fs.rmSync(work, { recursive: true, force: true });
	}
}

main().catch((error) => {
	log(`Failed: ${error.message}`);
	process.exitCode = 1;
});
