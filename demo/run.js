#!/usr/bin/env node
'use strict';

/**
 * One-command demo (`npm run demo`): a local n8n editor with the Voice Assistant node, a
 * credential pointing at the API simulator, and the example workflows. No account needed.
 *
 * Installs the dev dependencies if missing, builds and packs the package, starts the simulator (its data are kept in
 * .demo/simulator-data.json across restarts), makes sure the pinned n8n is in the cache,
 * installs the tarball into .demo/n8n-user/.n8n/nodes as the Community Nodes screen would,
 * imports the credential and the examples, starts `n8n start` on 127.0.0.1, creates the owner
 * account and prints the URL and the login. Ctrl-C stops n8n and the simulator.
 */

const { ensureDevDependencies } = require('../scripts/ensure-dev-deps');
const fs = require('fs');
const path = require('path');
const {
	REPO_ROOT,
	buildAndPack,
	ensureN8n,
	getWithCookie,
	importIntoN8n,
	installPackage,
	login,
	setupOwner,
	startN8n,
} = require('../tools/n8n');
const { CREDENTIAL_TYPE, NODE_TYPE } = require('../tools/package-names');
const { freePort, killAll } = require('../tools/processes');
const { startSimulatorProcess } = require('../tools/simulator-process');
const { prepareDataTableRecipe } = require('./dataTable');

const DEFAULT_VERSION = '2.8.4';
const VERSION = process.env.N8N_DEMO_VERSION || DEFAULT_VERSION;
const DEMO_DIR = path.join(REPO_ROOT, '.demo');
// n8n's database cannot go back a major version: another version gets its own user folder.
const USER_FOLDER = path.join(DEMO_DIR, VERSION === DEFAULT_VERSION ? 'n8n-user' : `n8n-user-${VERSION}`);
const LOG_DIR = path.join(DEMO_DIR, 'logs');
const DATA_FILE = path.join(DEMO_DIR, 'simulator-data.json');
const IMPORTED_FILE = path.join(USER_FOLDER, 'imported-examples.json');
const EXAMPLES_DIR = path.join(REPO_ROOT, 'examples');

const API_KEY = 'demo-api-key';
const CREDENTIAL = { id: 'vaSimulatorCred1', name: 'Voice Assistant (simulator)', type: CREDENTIAL_TYPE };
const OWNER = { email: 'demo@example.com', password: 'Demo-password-1', firstName: 'Demo', lastName: 'User' };

const log = (line) => process.stdout.write(`[demo] ${line}\n`);

/** `preferred` when it is free, else any free port. */
async function portNear(preferred) {
	const net = require('net');
	const free = await new Promise((resolve) => {
		const server = net.createServer().once('error', () => resolve(false));
		server.listen(preferred, '127.0.0.1', () => server.close(() => resolve(true)));
	});
	return free ? preferred : freePort();
}

/** Examples not imported by an earlier run: the user's edits to the others are kept. */
function newExamples() {
	const done = fs.existsSync(IMPORTED_FILE) ? JSON.parse(fs.readFileSync(IMPORTED_FILE, 'utf8')) : [];
	return fs
		.readdirSync(EXAMPLES_DIR)
		.filter((file) => file.endsWith('.json'))
		.map((file) => JSON.parse(fs.readFileSync(path.join(EXAMPLES_DIR, file), 'utf8')))
		.filter(({ id }) => !done.includes(id));
}

async function importExamples(bin) {
	const examples = newExamples();
	if (!examples.length) return;
	await importIntoN8n(bin, USER_FOLDER, { workflows: examples });
	const done = fs.existsSync(IMPORTED_FILE) ? JSON.parse(fs.readFileSync(IMPORTED_FILE, 'utf8')) : [];
	fs.writeFileSync(IMPORTED_FILE, JSON.stringify([...done, ...examples.map(({ id }) => id)], null, 2));
	log(`Imported ${examples.length} example workflow(s)`);
}

/** The owner account: created on the first run, logged in with afterwards. */
async function ownerCookie(url) {
	try {
		return await login(url, OWNER);
	} catch {
		try {
			return await setupOwner(url, OWNER);
		} catch (error) {
			throw new Error(`${error.message}\nThe demo's owner login was changed? Delete .demo/n8n-user to start over.`);
		}
	}
}

/** What this run started, so that Ctrl-C (or a failure) stops exactly that. */
const started = { sim: undefined, n8n: undefined };
let stopping = false;

async function stop(code) {
	if (stopping) return;
	stopping = true;
	log('Stopping n8n and the simulator...');
	await started.n8n?.stop();
	await started.sim?.stop(); // SIGTERM: the simulator saves its data file
	killAll(); // anything still starting (a build, an npm install)
	log('Stopped.');
	process.exit(code);
}

async function main() {
	process.on('SIGINT', () => stop(0));
	process.on('SIGTERM', () => stop(0));
	fs.mkdirSync(LOG_DIR, { recursive: true });

	ensureDevDependencies(log);

	const packDir = path.join(DEMO_DIR, 'pack');
	fs.rmSync(packDir, { recursive: true, force: true });
	fs.mkdirSync(packDir, { recursive: true });
	const tarball = await buildAndPack(packDir, log);
	const bin = await ensureN8n(VERSION, log);

	log(`Installing ${path.basename(tarball)} into ${path.relative(REPO_ROOT, USER_FOLDER)}/.n8n/nodes`);
	await installPackage(USER_FOLDER, tarball);

	started.sim = await startSimulatorProcess({ apiKey: API_KEY, port: await portNear(5680), dataFile: DATA_FILE, logDir: LOG_DIR });
	log(`API simulator on ${started.sim.url} (data in ${path.relative(REPO_ROOT, DATA_FILE)})`);

	// The credential is imported on every run: it follows the simulator's address.
	const credential = { ...CREDENTIAL, data: { apiKey: API_KEY, baseUrl: started.sim.url } };
	await importIntoN8n(bin, USER_FOLDER, { credentials: [credential] });
	await importExamples(bin);

	log(`Starting n8n ${VERSION}...`);
	started.n8n = await startN8n(bin, USER_FOLDER, { port: await portNear(5678), logDir: LOG_DIR });
	started.n8n.proc.exited.then(({ code }) => {
		if (stopping) return;
		log(`n8n exited unexpectedly (code ${code}); see ${path.relative(REPO_ROOT, started.n8n.proc.stderrFile)}`);
		stop(1);
	});

	const cookie = await ownerCookie(started.n8n.url);
	const nodeTypes = (await getWithCookie(started.n8n.url, '/types/nodes.json', cookie)).body;
	if (!Array.isArray(nodeTypes) || !nodeTypes.some((type) => type.name === NODE_TYPE)) {
		throw new Error(`n8n did not load ${NODE_TYPE}; see ${path.relative(REPO_ROOT, started.n8n.proc.stdoutFile)}`);
	}
	const startHere = await prepareDataTableRecipe(started.n8n.url, cookie, log).catch((error) => {
		log(`The Data Table recipe could not be prepared (${error.message}); the other examples are there.`);
		return undefined;
	});
	const workflows = (await getWithCookie(started.n8n.url, '/rest/workflows', cookie)).body.data ?? [];
	const recipe = workflows.find((wf) => wf.id === startHere);

	process.stdout.write(
		[
			'',
			'  Voice Assistant demo is running.',
			'',
			`  n8n editor   ${started.n8n.url}`,
			`  Log in with  ${OWNER.email} / ${OWNER.password}`,
			...(recipe
				? [
						`  Start here   ${started.n8n.url}/workflow/${recipe.id}`,
						`               "${recipe.name}": Execute workflow sends the Data Table's contacts`,
						'               to the simulator and marks them synced (Overview → Data tables → contacts).',
					]
				: []),
			`  Credential   "${CREDENTIAL.name}" -> ${started.sim.url} (API key ${API_KEY})`,
			`  Workflows    ${workflows.map((wf) => wf.name).join('\n               ')}`,
			`  Simulator    ${started.sim.url}/__sim/data shows its data, kept in ${path.relative(REPO_ROOT, DATA_FILE)}`,
			`  Logs         ${path.relative(REPO_ROOT, LOG_DIR)}/`,
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
