#!/usr/bin/env node
'use strict';

/**
 * `npm run example -- <workflow.json>`: runs a workflow in a real n8n without the editor, using
 * the n8n harness (tools/n8n). Builds and packs the package, installs it into a temporary
 * n8n user folder, imports the credential the workflow uses and the workflow, and runs it with
 * `n8n execute`; prints what each node emitted. The credential points at the API simulator,
 * or at a real service when VOICE_ASSISTANT_BASE_URL and VOICE_ASSISTANT_API_KEY are set.
 * `n8n execute` starts a workflow only from a Manual Trigger.
 */
const fs = require('fs');
const os = require('os');
const path = require('path');
const { ensureDevDependencies } = require('./ensure-dev-deps');
const {
	DEFAULT_VERSION,
	buildAndPack,
	ensureN8n,
	executeWorkflow,
	importIntoN8n,
	installPackage,
} = require('../tools/n8n');
const { CREDENTIAL_TYPE } = require('../tools/package-names');
const { startSimulatorProcess } = require('../tools/simulator-process');

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

async function main() {
	const [file] = process.argv.slice(2);
	if (!file) throw new Error('Usage: npm run example -- examples/<workflow>.json');
	const workflowFile = path.resolve(process.env.INIT_CWD || process.cwd(), file);
	/** @type {import('../tools/workflows').Workflow} */
	const workflow = JSON.parse(fs.readFileSync(workflowFile, 'utf8'));
	if (!workflow.nodes.some((node) => node.type === 'n8n-nodes-base.manualTrigger')) {
		throw new Error(
			`"${workflow.name}" does not start with a Manual Trigger, which n8n execute needs`,
		);
	}
	const version = process.env.N8N_EXAMPLE_VERSION || DEFAULT_VERSION;
	const { VOICE_ASSISTANT_BASE_URL: baseUrl, VOICE_ASSISTANT_API_KEY: apiKey } = process.env;

	ensureDevDependencies(log);
	const work = fs.mkdtempSync(path.join(os.tmpdir(), 'va-example-'));
	let sim;
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

		log(`Running "${workflow.name}" in n8n ${version} (n8n execute)...`);
		const { code, run } = await executeWorkflow(bin, workflow.id, userFolder);
		for (const [node, runs] of Object.entries(run.data.resultData.runData)) {
			const items = runs[0].data?.main[0] ?? [];
			process.stdout.write(`\n${node}: ${items.length} item(s)\n`);
			for (const item of items) process.stdout.write(`  ${JSON.stringify(item.json)}\n`);
		}
		if (sim) {
			const requests = await sim.requests();
			process.stdout.write(`\nThe simulator received ${requests.length} request(s):\n`);
			for (const { method, path: pathname, query, status } of requests) {
				const search = Object.entries(query)
					.map(([key, value]) => `${key}=${value}`)
					.join('&');
				process.stdout.write(`  ${method} ${pathname}${search ? `?${search}` : ''} -> ${status}\n`);
			}
		}
		const error = run.data.resultData.error;
		if (error) process.stdout.write(`\nThe run failed: ${error.message}\n`);
		process.exitCode = code === 0 && !error ? 0 : 1;
	} finally {
		await sim?.stop();
		fs.rmSync(work, { recursive: true, force: true });
	}
}

main().catch((error) => {
	log(`Failed: ${error.message}`);
	process.exitCode = 1;
});
