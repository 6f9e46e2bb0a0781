#!/usr/bin/env node
'use strict';

/**
 * One-command demo (`npm run demo`): a local n8n editor with the Voice Assistant node, a
 * credential pointing at the API simulator, and the example workflows. No account needed.
 * `npm run dev` (--dev) is the same with the node linked instead of packed, reloaded in the
 * running n8n as its sources change (dev.js), with its data in the cache folder instead of .demo.
 *
 * Installs the dev dependencies if missing, builds and packs the package, starts the simulator (its data are kept in
 * .demo/simulator-data.json across restarts), makes sure the pinned n8n is in the cache,
 * installs the tarball into .demo/n8n-user/.n8n/nodes as the Community Nodes screen would,
 * imports the credential and the examples, starts `n8n start` on 127.0.0.1, creates the owner
 * account, gives the examples that write to a Data Table their table (dataTable.js) and prints
 * the URL and the login. Ctrl-C stops n8n and the simulator.
 */

const { ensureDevDependencies } = require('../scripts/ensure-dev-deps');
const fs = require('fs');
const path = require('path');
const {
	DEMO_VERSION,
	OWNER,
	cacheRoot,
	buildAndPack,
	ensureN8n,
	importIntoN8n,
	installPackage,
	signIn,
	startN8n,
} = require('../tools/n8n');
const { CREDENTIAL_TYPE, NODE_TYPE } = require('../tools/package-names');
const { freePort, killAll } = require('../tools/processes');
const { REPO_ROOT, readExamples } = require('../tools/repo');
const { startSimulatorProcess } = require('../tools/simulator-process');
const { SIMULATOR_CREDENTIAL } = require('../tools/workflows');
const { prepareDataTables, unpickedNodes } = require('./dataTable');
const { DEV_NODE_TYPE, devTypes, startDevLoop } = require('./dev');

const VERSION = process.env.N8N_DEMO_VERSION || DEMO_VERSION;
const DEV = process.argv.includes('--dev');
// The dev loop's n8n watches the whole folder its link points to (this one) and reloads the node
// on every change there: its database, the logs and the simulator's data are kept outside it.
const DEMO_DIR = DEV ? path.join(cacheRoot(), 'dev') : path.join(REPO_ROOT, '.demo');
// n8n's database cannot go back a major version: another version gets its own user folder.
const USER_FOLDER = path.join(
	DEMO_DIR,
	VERSION === DEMO_VERSION ? 'n8n-user' : `n8n-user-${VERSION}`,
);
const LOG_DIR = path.join(DEMO_DIR, 'logs');
const DATA_FILE = path.join(DEMO_DIR, 'simulator-data.json');
const IMPORTED_FILE = path.join(USER_FOLDER, 'imported-examples.json');

const API_KEY = 'demo-api-key';
/** The examples the banner points at: the Data Table recipe and the Dry Run recipe. */
const START_HERE = 'vaExDataTblSync1';
const DRY_RUN = 'vaExDryRunCheck1';
const CREDENTIAL = { ...SIMULATOR_CREDENTIAL, type: CREDENTIAL_TYPE };

/** @param {string} line */
const log = (line) => process.stdout.write(`[demo] ${line}\n`);
/** A path as the banner shows it: relative inside this folder. @param {string} file */
const shown = (file) =>
	file.startsWith(`${REPO_ROOT}${path.sep}`) ? path.relative(REPO_ROOT, file) : file;

/** `preferred` when it is free, else any free port. @param {number} preferred */
async function portNear(preferred) {
	const net = require('net');
	/** @type {boolean} */
	const free = await new Promise((resolve) => {
		const server = net.createServer().once('error', () => resolve(false));
		server.listen(preferred, '127.0.0.1', () => server.close(() => resolve(true)));
	});
	return free ? preferred : freePort();
}

/**
 * Imports the examples not imported by an earlier run: the user's edits to the others are kept.
 * @param {string} bin
 */
async function importExamples(bin) {
	/** @type {string[]} */
	const done = fs.existsSync(IMPORTED_FILE)
		? JSON.parse(fs.readFileSync(IMPORTED_FILE, 'utf8'))
		: [];
	const examples = readExamples()
		.filter(({ id }) => !done.includes(id))
		.map((example) => (DEV ? devTypes(example) : example));
	if (!examples.length) return;
	await importIntoN8n(bin, USER_FOLDER, { workflows: examples });
	fs.writeFileSync(
		IMPORTED_FILE,
		JSON.stringify([...done, ...examples.map(({ id }) => id)], null, 2),
	);
	log(`Imported ${examples.length} example workflow(s)`);
}

/**
 * Picks a Data Table in the imported examples that write to one (created on the first run, see
 * dataTable.js), so that each runs with one click; returns the ids of those that are ready.
 * @param {import('../tools/n8n').EditorApi} api
 */
async function prepareExamples(api) {
	/** @type {string[]} */
	const ready = [];
	for (const example of readExamples().filter((wf) => unpickedNodes(wf).length)) {
		try {
			await prepareDataTables(api, example.id, log);
			ready.push(example.id);
		} catch (error) {
			log(
				`The Data Table of "${example.name}" could not be prepared (${/** @type {Error} */ (error).message}); the other examples are there.`,
			);
		}
	}
	return ready;
}

/**
 * What this run started, so that Ctrl-C (or a failure) stops exactly that.
 * @type {{ sim?: import('../tools/simulator-process').SimulatorProcess, n8n?: import('../tools/n8n').RunningN8n, dev?: Awaited<ReturnType<typeof startDevLoop>> }}
 */
const started = {};
let stopping = false;

/** @param {number} code */
async function stop(code) {
	if (stopping) return;
	stopping = true;
	log('Stopping n8n and the simulator...');
	await started.n8n?.stop();
	await started.dev?.stop();
	await started.sim?.stop(); // SIGTERM: the simulator saves its data file
	killAll(); // anything still starting (a build, an npm install)
	log('Stopped.');
	process.exit(code);
}

async function main() {
	process.on('SIGINT', () => stop(0));
	process.on('SIGTERM', () => stop(0));
	// npm runs the script through a shell, and npm passes a signal on to that shell, not to this
	// process: sh dies of a `kill` (SIGTERM) and leaves this process to another parent. Stop then
	// too, rather than keep n8n running with nobody to stop it. (sh holds a SIGINT until this
	// process ends: `kill -INT` of npm stops nothing; Ctrl-C reaches every process, this one too.)
	const parent = process.ppid;
	setInterval(() => process.ppid !== parent && stop(0), 1000).unref();
	fs.mkdirSync(LOG_DIR, { recursive: true });

	ensureDevDependencies(log);

	const bin = await ensureN8n(VERSION, log);
	if (DEV) {
		log(`n8n-node dev: linking this folder into ${shown(USER_FOLDER)}/.n8n/custom`);
		started.dev = await startDevLoop(USER_FOLDER, LOG_DIR, log);
	} else {
		const packDir = path.join(DEMO_DIR, 'pack');
		fs.rmSync(packDir, { recursive: true, force: true });
		fs.mkdirSync(packDir, { recursive: true });
		const tarball = await buildAndPack(packDir, log);
		log(`Installing ${path.basename(tarball)} into ${shown(USER_FOLDER)}/.n8n/nodes`);
		await installPackage(USER_FOLDER, tarball);
	}

	const sim = await startSimulatorProcess({
		apiKey: API_KEY,
		port: await portNear(5680),
		dataFile: DATA_FILE,
		logDir: LOG_DIR,
	});
	started.sim = sim;
	log(`API simulator on ${sim.url} (data in ${shown(DATA_FILE)})`);

	// The credential is imported on every run: it follows the simulator's address.
	const credential = { ...CREDENTIAL, data: { apiKey: API_KEY, baseUrl: sim.url } };
	await importIntoN8n(bin, USER_FOLDER, { credentials: [credential] });
	await importExamples(bin);

	log(`Starting n8n ${VERSION}...`);
	const n8n = await startN8n(bin, USER_FOLDER, {
		port: await portNear(5678),
		logDir: LOG_DIR,
		extra: DEV ? { N8N_DEV_RELOAD: 'true' } : undefined,
	});
	started.n8n = n8n;
	started.dev?.reloads(n8n.url);
	n8n.proc.exited.then(({ code }) => {
		if (stopping) return;
		log(`n8n exited unexpectedly (code ${code}); see ${shown(n8n.proc.stderrFile)}`);
		stop(1);
	});

	// The owner account: created on the first run, logged in with afterwards.
	const api = await signIn(n8n.url).catch((error) => {
		throw new Error(
			`${error.message}\nThe demo's owner login was changed? Delete ${shown(USER_FOLDER)} to start over.`,
		);
	});
	/** @type {Array<{ name: string }>} */
	const nodeTypes = await api.call('GET', '/types/nodes.json');
	const nodeType = DEV ? DEV_NODE_TYPE : NODE_TYPE;
	if (!nodeTypes.some((type) => type.name === nodeType)) {
		throw new Error(`n8n did not load ${nodeType}; see ${shown(n8n.proc.stdoutFile)}`);
	}
	const ready = await prepareExamples(api);
	/** @type {Array<{ id: string, name: string }>} */
	const workflows = await api.call('GET', '/rest/workflows');
	const startHere = workflows.find((wf) => wf.id === START_HERE && ready.includes(wf.id));
	const dryRun = workflows.find((wf) => wf.id === DRY_RUN && ready.includes(wf.id));

	process.stdout.write(
		[
			'',
			`  Voice Assistant ${DEV ? 'dev loop' : 'demo'} is running (n8n ${VERSION}).`,
			'',
			...(DEV
				? [
						`  Live reload  Change nodes/ or credentials/: TypeScript compiles, n8n reloads the node`,
						`               (${DEV_NODE_TYPE} here) and the open editor shows the change.`,
					]
				: []),
			`  n8n editor   ${n8n.url}`,
			`  Log in with  ${OWNER.email} / ${OWNER.password}`,
			...(startHere
				? [
						`  Start here   ${n8n.url}/workflow/${startHere.id}`,
						`               "${startHere.name}": Execute workflow sends the Data Table's contacts`,
						'               to the simulator and marks them synced (Overview → Data tables → contacts).',
					]
				: []),
			...(dryRun
				? [
						`  Dry Run      ${n8n.url}/workflow/${dryRun.id}`,
						'               Execute workflow checks a CRM export without sending anything and keeps',
						'               the invalid contacts (Overview → Data tables → crm_check_problems).',
					]
				: []),
			`  Credential   "${CREDENTIAL.name}" -> ${sim.url} (API key ${API_KEY})`,
			`  Workflows    ${workflows.map((wf) => wf.name).join('\n               ')}`,
			`  Simulator    ${sim.url}/__sim/data shows its data, kept in ${shown(DATA_FILE)}`,
			`  Logs         ${shown(LOG_DIR)}/`,
			'',
			'  Press Ctrl-C to stop.',
			'',
		].join('\n'),
	);
}

main().catch((error) => {
	log(`Failed: ${error.message}`);
	return stop(1);
});
