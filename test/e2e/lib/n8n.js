'use strict';

/**
 * A real n8n for the e2e suite and the demo: a pinned install in a cache folder outside the
 * repo, the package installed into a user folder the way the Community Nodes screen does it,
 * and helpers to run the n8n CLI and talk to `n8n start` over its REST API.
 */

const fs = require('fs');
const os = require('os');
const path = require('path');
const { cleanEnv, freePort, runProcess, sleep, startProcess } = require('./processes');

const REPO_ROOT = path.resolve(__dirname, '..', '..', '..');
const HARNESS_DIR = path.join(REPO_ROOT, 'test', 'e2e', 'harness');
const PACKAGE_NAME = require(path.join(REPO_ROOT, 'package.json')).name;

/** The versions in test/e2e/harness; the suite runs all of them unless N8N_E2E_VERSIONS says otherwise. */
const SUPPORTED_VERSIONS = ['2.8.4', '1.123.50', '2.41.1'];

/** Fixed so that imported credentials can be decrypted by every later n8n process. */
const ENCRYPTION_KEY = 'voice-assistant-e2e-fixed-encryption-key';

function requestedVersions() {
	const raw = process.env.N8N_E2E_VERSIONS;
	const versions = raw ? raw.split(',').map((v) => v.trim()).filter(Boolean) : SUPPORTED_VERSIONS;
	for (const version of versions) {
		if (!fs.existsSync(path.join(HARNESS_DIR, `n8n-${version}`, 'package.json'))) {
			throw new Error(`No harness for n8n ${version}: expected test/e2e/harness/n8n-${version}/package.json`);
		}
	}
	return versions;
}

function cacheRoot() {
	return process.env.N8N_E2E_CACHE || path.join(os.homedir(), '.cache', 'n8n-voice-assistant');
}

function installDir(version) {
	return path.join(cacheRoot(), `n8n-${version}`);
}

function n8nBin(version) {
	return path.join(installDir(version), 'node_modules', '.bin', 'n8n');
}

/**
 * How a harness folder installs (its package.json's `e2eHarness`): `node` names the harness of
 * the Node.js it runs on (none: the Node running the suite), `installScripts: false` installs
 * without them and `rebuild` lists the packages whose scripts run afterwards.
 */
function harnessOptions(name) {
	return JSON.parse(fs.readFileSync(path.join(HARNESS_DIR, name, 'package.json'), 'utf8')).e2eHarness ?? {};
}

/** The folder holding the `node` binary of a Node.js harness (test/e2e/harness/node-*). */
function nodeBinDir(runtime) {
	return path.join(cacheRoot(), runtime, 'node_modules', 'node', 'bin');
}

/**
 * The environment of a process of this n8n version: its Node.js first in PATH when it needs
 * another one than the suite's (n8n's bin runs `env node`, and n8n starts its task runner as
 * `node` from PATH).
 */
function runtimeEnv(version, env) {
	const { node } = harnessOptions(`n8n-${version}`);
	return node ? { ...env, PATH: `${nodeBinDir(node)}${path.delimiter}${env.PATH ?? ''}` } : env;
}

/** The n8n version a binary from n8nBin() belongs to. */
function versionOfBin(bin) {
	return path.basename(path.resolve(bin, '..', '..', '..')).replace(/^n8n-/, '');
}

/** What `n8n --version` prints in an install folder, or undefined when it does not run. */
async function installedVersion(dir, version = path.basename(dir).replace(/^n8n-/, '').replace(/\.partial-\d+$/, '')) {
	const bin = path.join(dir, 'node_modules', '.bin', 'n8n');
	if (!fs.existsSync(bin)) return undefined;
	const env = runtimeEnv(version, cleanEnv());
	const result = await runProcess(bin, ['--version'], { env, timeoutMs: 120_000, name: 'n8n-version' });
	return result.code === 0 ? result.stdout.trim().split('\n').pop() : undefined;
}

/** Side folders of installs whose process is gone (interrupted with Ctrl-C, say). */
function removeAbandonedInstalls(dir) {
	const parent = path.dirname(dir);
	if (!fs.existsSync(parent)) return;
	for (const entry of fs.readdirSync(parent)) {
		const match = entry.startsWith(`${path.basename(dir)}.partial-`) && /\.partial-(\d+)$/.exec(entry);
		if (!match) continue;
		let alive = true;
		try {
			process.kill(Number(match[1]), 0);
		} catch {
			alive = false;
		}
		if (!alive) fs.rmSync(path.join(parent, entry), { recursive: true, force: true });
	}
}

/** Size of a folder in MB (`du`), for progress lines; undefined while it cannot be read. */
async function folderMegabytes(dir) {
	const result = await runProcess('du', ['-sm', dir], { timeoutMs: 60_000, name: 'du' });
	const megabytes = Number.parseInt(result.stdout, 10);
	return Number.isFinite(megabytes) ? megabytes : undefined;
}

/**
 * Installs a harness folder (its committed package.json and lockfile) into the cache with
 * `npm ci`, unless `isReady(dir)` says the cached copy is good. The install goes to a side
 * folder renamed when complete, so a broken install is never reused; progress lines say the
 * phase and the megabytes written so far.
 */
async function installHarness(name, { env, isReady, expectedMegabytes, expectedTime }, log) {
	const dir = path.join(cacheRoot(), name);
	if (await isReady(dir)) return dir;
	const harness = path.join(HARNESS_DIR, name);
	removeAbandonedInstalls(dir);
	const partial = `${dir}.partial-${process.pid}`;
	fs.rmSync(partial, { recursive: true, force: true });
	fs.mkdirSync(partial, { recursive: true });
	for (const file of ['package.json', 'package-lock.json']) {
		if (!fs.existsSync(path.join(harness, file))) throw new Error(`Missing ${path.join(harness, file)}`);
		fs.copyFileSync(path.join(harness, file), path.join(partial, file));
	}
	const { installScripts = true, rebuild = [] } = harnessOptions(name);
	const steps = [
		['download and unpack', ['ci', `--ignore-scripts=${!installScripts}`, '--audit=false', '--fund=false', '--no-progress']],
		...(rebuild.length ? [['build native modules', ['rebuild', ...rebuild]]] : []),
	];
	log(`Installing ${name} into ${dir} (first time only: ${expectedTime}, ~${expectedMegabytes} MB)...`);
	const started = Date.now();
	for (const [phase, args] of steps) {
		const heartbeat = setInterval(async () => {
			const megabytes = await folderMegabytes(partial);
			const seconds = Math.round((Date.now() - started) / 1000);
			log(`  ...${name}: ${phase}, ${seconds} s, ${megabytes ?? '?'} of ~${expectedMegabytes} MB written`);
		}, 30_000);
		let result;
		try {
			// cwd is the cache folder, so the repo's .npmrc (ignore-scripts=true) does not apply.
			result = await runProcess('npm', args, { cwd: partial, env, timeoutMs: 30 * 60_000, logDir: partial, name: `npm-${args[0]}` });
		} finally {
			clearInterval(heartbeat);
		}
		if (result.code !== 0) {
			const tail = `${result.stdout}\n${result.stderr}`.trim().split('\n').slice(-30).join('\n');
			throw new Error(`npm ${args[0]} of ${name} failed (code ${result.code}); logs in ${partial}:\n${tail}`);
		}
	}
	if (!(await isReady(partial))) throw new Error(`${name} in ${partial} does not run after its install`);
	fs.rmSync(dir, { recursive: true, force: true });
	try {
		fs.renameSync(partial, dir);
	} catch (error) {
		// Another process finished the same install first: use that one.
		if (!(await isReady(dir))) throw error;
		fs.rmSync(partial, { recursive: true, force: true });
	}
	log(`Installed ${name} in ${Math.round((Date.now() - started) / 1000)} s`);
	return dir;
}

/** Makes sure a Node.js harness (node-24...) is in the cache; returns the folder of its binary. */
async function ensureRuntime(runtime, log) {
	const isReady = async (dir) => {
		const bin = path.join(dir, 'node_modules', 'node', 'bin', 'node');
		if (!fs.existsSync(bin)) return false;
		const result = await runProcess(bin, ['--version'], { timeoutMs: 60_000, name: 'node-version' });
		return result.code === 0;
	};
	await installHarness(runtime, { env: cleanEnv(), isReady, expectedMegabytes: 190, expectedTime: 'seconds' }, log);
	return nodeBinDir(runtime);
}

/**
 * Makes sure the pinned n8n (and the Node.js it needs) is installed in the cache and returns
 * its `n8n` binary. A cold install takes minutes and ~2.3 GB.
 */
async function ensureN8n(version, log = (line) => process.stdout.write(`${line}\n`)) {
	const name = `n8n-${version}`;
	if (!fs.existsSync(path.join(HARNESS_DIR, name, 'package.json'))) throw new Error(`No harness for n8n ${version}`);
	const { node } = harnessOptions(name);
	if (node) await ensureRuntime(node, log);
	const isReady = async (dir) => (await installedVersion(dir, version)) === version;
	await installHarness(name, { env: runtimeEnv(version, cleanEnv()), isReady, expectedMegabytes: 2300, expectedTime: '5-10 minutes' }, log);
	return n8nBin(version);
}

/** Builds the package and packs it; returns the tarball's path. */
async function buildAndPack(destination, log = (line) => process.stdout.write(`${line}\n`)) {
	log('Building the package (npm run build)...');
	const build = await runProcess('npm', ['run', 'build'], {
		cwd: REPO_ROOT,
		env: cleanEnv(),
		timeoutMs: 300_000,
		name: 'build',
		logDir: destination,
	});
	if (build.code !== 0) throw new Error(`npm run build failed:\n${build.stdout}\n${build.stderr}`);
	const pack = await runProcess('npm', ['pack', '--json', '--pack-destination', destination], {
		cwd: REPO_ROOT,
		env: cleanEnv(),
		timeoutMs: 120_000,
		name: 'pack',
		logDir: destination,
	});
	if (pack.code !== 0) throw new Error(`npm pack failed:\n${pack.stderr}`);
	const [{ filename }] = JSON.parse(pack.stdout);
	const tarball = path.join(destination, filename);
	log(`Packed ${tarball}`);
	return tarball;
}

/**
 * Installs the packed tarball into <userFolder>/.n8n/nodes like n8n's Community Nodes screen
 * (CommunityPackagesService.downloadPackage): extract, drop dev/peer/optional dependencies,
 * `npm install` inside the package, and record it in nodes/package.json.
 */
async function installPackage(userFolder, tarball) {
	const nodesDir = path.join(userFolder, '.n8n', 'nodes');
	const packageDir = path.join(nodesDir, 'node_modules', PACKAGE_NAME);
	fs.rmSync(packageDir, { recursive: true, force: true });
	fs.mkdirSync(packageDir, { recursive: true });
	const untar = await runProcess('tar', ['-xzf', tarball, '-C', packageDir, '--strip-components=1'], {
		name: 'tar',
		timeoutMs: 60_000,
	});
	if (untar.code !== 0) throw new Error(`tar failed: ${untar.stderr}`);

	const manifestPath = path.join(packageDir, 'package.json');
	const { devDependencies, peerDependencies, optionalDependencies, ...manifest } = JSON.parse(
		fs.readFileSync(manifestPath, 'utf8'),
	);
	fs.writeFileSync(manifestPath, JSON.stringify(manifest, null, 2), 'utf8');
	const install = await runProcess(
		'npm',
		[
			'install',
			'--audit=false',
			'--fund=false',
			'--bin-links=false',
			'--install-strategy=shallow',
			'--ignore-scripts=true',
			'--package-lock=false',
		],
		{ cwd: packageDir, env: cleanEnv(), timeoutMs: 300_000, name: 'npm-install', logDir: nodesDir },
	);
	if (install.code !== 0) throw new Error(`npm install in ${packageDir} failed:\n${install.stderr}`);

	const nodesManifestPath = path.join(nodesDir, 'package.json');
	const nodesManifest = fs.existsSync(nodesManifestPath)
		? JSON.parse(fs.readFileSync(nodesManifestPath, 'utf8'))
		: { name: 'installed-nodes', private: true, dependencies: {} };
	nodesManifest.dependencies = { ...nodesManifest.dependencies, [PACKAGE_NAME]: manifest.version };
	fs.writeFileSync(nodesManifestPath, JSON.stringify(nodesManifest, null, 2), 'utf8');
	return packageDir;
}

/** The environment of every n8n process: isolated user folder, loopback only, nothing phoning home. */
function n8nEnv({ userFolder, port, brokerPort, extra = {} }) {
	return cleanEnv({
		N8N_USER_FOLDER: userFolder,
		N8N_ENCRYPTION_KEY: ENCRYPTION_KEY,
		N8N_LOG_LEVEL: 'info',
		DB_TYPE: 'sqlite',
		N8N_HOST: '127.0.0.1',
		N8N_LISTEN_ADDRESS: '127.0.0.1',
		N8N_PORT: String(port),
		N8N_PROTOCOL: 'http',
		N8N_RUNNERS_BROKER_PORT: String(brokerPort),
		N8N_SECURE_COOKIE: 'false',
		N8N_DIAGNOSTICS_ENABLED: 'false',
		N8N_VERSION_NOTIFICATIONS_ENABLED: 'false',
		N8N_PERSONALIZATION_ENABLED: 'false',
		N8N_TEMPLATES_ENABLED: 'false',
		N8N_HIRING_BANNER_ENABLED: 'false',
		N8N_ENFORCE_SETTINGS_FILE_PERMISSIONS: 'true',
		...extra,
	});
}

/** A fresh pair of ports per n8n process: n8n's own and its task broker's. */
async function freshEnv(bin, userFolder, extra) {
	return runtimeEnv(versionOfBin(bin), n8nEnv({ userFolder, port: await freePort(), brokerPort: await freePort(), extra }));
}

/** The end of a command's output, for error messages. */
const tail = ({ stdout, stderr }) => `${stdout.slice(-4000)}\n${stderr.slice(-4000)}`;

/** Runs one n8n CLI command to completion; throws with its output when it fails. `extra`: more environment. */
async function n8nCli(bin, args, userFolder, { timeoutMs = 180_000, allowFailure = false, extra } = {}) {
	const result = await runProcess(bin, args, {
		env: await freshEnv(bin, userFolder, extra),
		timeoutMs,
		name: `n8n-${args[0].replace(/[^a-z-]/gi, '-')}`,
	});
	if (!allowFailure && (result.code !== 0 || result.timedOut)) {
		const how = `code ${result.code}${result.timedOut ? ', timed out' : ''}`;
		throw new Error(`n8n ${args.join(' ')} failed (${how}):\n${tail(result)}`);
	}
	return result;
}

/**
 * The run data `n8n execute --rawOutput` prints through the logger: the pretty-printed JSON
 * from the first line that is exactly "{" to the next line that is exactly "}".
 * Success and failure both print it (on failure after "Execution error:").
 */
function parseExecuteOutput(stdout) {
	const lines = stdout.split('\n');
	const start = lines.indexOf('{');
	if (start === -1) return undefined;
	const end = lines.indexOf('}', start);
	if (end === -1) return undefined;
	return JSON.parse(lines.slice(start, end + 1).join('\n'));
}

/**
 * `n8n execute --id=… --rawOutput` to completion, unparsed; `onStart` gets the n8n process id
 * as soon as it runs (the benchmark samples its memory).
 */
async function executeWorkflowProcess(bin, id, userFolder, { timeoutMs = 240_000, onStart } = {}) {
	return runProcess(bin, ['execute', `--id=${id}`, '--rawOutput'], {
		env: await freshEnv(bin, userFolder),
		timeoutMs,
		name: 'n8n-execute',
		onStart: onStart && (async (proc) => onStart(await proc.commandPid())),
	});
}

/** `n8n execute --id=… --rawOutput`: exit code and the parsed run data. */
async function executeWorkflow(bin, id, userFolder, { timeoutMs = 240_000 } = {}) {
	const result = await n8nCli(bin, ['execute', `--id=${id}`, '--rawOutput'], userFolder, { timeoutMs, allowFailure: true });
	if (result.timedOut) throw new Error(`n8n execute --id=${id} timed out:\n${result.stdout.slice(-4000)}`);
	const run = parseExecuteOutput(result.stdout);
	if (!run) throw new Error(`n8n execute --id=${id} printed no run data (code ${result.code}):\n${tail(result)}`);
	return { code: result.code, run, stdout: result.stdout, stderr: result.stderr };
}

/**
 * Starts `n8n start` and waits until it is ready; returns its URL and a stop function. Ready
 * means our process printed "Editor is now accessible" and /rest/settings answers: a port taken
 * by someone else in the meantime could otherwise answer for it. If n8n lost the race for its
 * port, it is started again on another one (unless the port was asked for).
 */
async function startN8n(bin, userFolder, { port, logDir, extra } = {}) {
	for (let attempt = 1; ; attempt++) {
		const listenPort = port ?? (await freePort());
		const env = runtimeEnv(versionOfBin(bin), n8nEnv({ userFolder, port: listenPort, brokerPort: await freePort(), extra }));
		const proc = startProcess(bin, ['start'], { env, logDir, name: 'n8n-start' });
		const url = `http://127.0.0.1:${listenPort}`;
		const deadline = Date.now() + 180_000;
		let exited = false;
		proc.exited.then(() => (exited = true));
		for (;;) {
			if (exited) {
				const output = `${proc.readStdout()}\n${proc.readStderr()}`;
				if (port === undefined && attempt < 3 && output.includes('already in use')) break;
				throw new Error(`n8n start exited early:\n${output.slice(-6000)}`);
			}
			if (Date.now() > deadline) {
				await proc.stop();
				throw new Error(`n8n start did not become ready within 180 s:\n${proc.readStdout().slice(-3000)}`);
			}
			if (proc.readStdout().includes('Editor is now accessible')) {
				try {
					const response = await fetch(`${url}/rest/settings`);
					if (response.ok && !exited) return { url, proc, stop: () => proc.stop(20_000) };
				} catch {}
			}
			await sleep(250);
		}
	}
}

function authCookie(response) {
	const cookies = typeof response.headers.getSetCookie === 'function' ? response.headers.getSetCookie() : [];
	const auth = cookies.find((cookie) => cookie.startsWith('n8n-auth='));
	return auth ? auth.split(';')[0] : undefined;
}

/** POST /rest/owner/setup: the first user of a fresh n8n. Returns the auth cookie. */
async function setupOwner(url, owner) {
	const response = await fetch(`${url}/rest/owner/setup`, {
		method: 'POST',
		headers: { 'content-type': 'application/json' },
		body: JSON.stringify(owner),
	});
	if (!response.ok) throw new Error(`POST /rest/owner/setup answered ${response.status}: ${await response.text()}`);
	return authCookie(response);
}

/** POST /rest/login. Returns the auth cookie. */
async function login(url, { email, password }) {
	const response = await fetch(`${url}/rest/login`, {
		method: 'POST',
		headers: { 'content-type': 'application/json' },
		body: JSON.stringify({ emailOrLdapLoginId: email, password }),
	});
	if (!response.ok) throw new Error(`POST /rest/login answered ${response.status}: ${await response.text()}`);
	return authCookie(response);
}

/** GET with the auth cookie; returns status and the parsed JSON (or text). */
async function getWithCookie(url, pathname, cookie) {
	const response = await fetch(`${url}${pathname}`, { headers: { cookie } });
	const text = await response.text();
	let body = text;
	try {
		body = JSON.parse(text);
	} catch {}
	return { status: response.status, contentType: response.headers.get('content-type') ?? '', body };
}

module.exports = {
	ENCRYPTION_KEY,
	PACKAGE_NAME,
	REPO_ROOT,
	SUPPORTED_VERSIONS,
	buildAndPack,
	cacheRoot,
	ensureN8n,
	executeWorkflow,
	executeWorkflowProcess,
	freshEnv,
	getWithCookie,
	installDir,
	installPackage,
	installedVersion,
	login,
	n8nBin,
	n8nCli,
	parseExecuteOutput,
	requestedVersions,
	setupOwner,
	startN8n,
};
