'use strict';

/**
 * The pinned n8n versions and the Node.js some of them run on: each a harness folder in
 * tools/n8n/versions (a package.json and its lockfile), installed once into a cache folder
 * outside the repo with `npm ci`, and the environment a process of that version runs in.
 */

const fs = require('fs');
const os = require('os');
const path = require('path');
const { cleanEnv, runProcess } = require('../processes');

/** The harness folders: n8n-<version> and node-<major>. */
const HARNESS_DIR = path.join(__dirname, 'versions');

// The n8n versions under test are named here and nowhere else: the suites, the demo, the
// benchmark and `npm run example` import them.

/**
 * The newest n8n whose `engines` accept Node.js 20 (it runs on 20, see its harness): the version
 * of the benchmark and the README's pictures unless told otherwise.
 */
const NODE20_VERSION = '2.8.4';
/** The 1.x line, on Node.js 20 (1.123.81 and later need Node.js 22). */
const V1_VERSION = '1.123.50';
/** The newest n8n that installs from the registry (on Node.js 24, see its harness). */
const NEWEST_VERSION = '2.41.1';
/** The n8n of `npm run demo`, `npm run dev` and `npm run example` unless told otherwise. */
const DEMO_VERSION = NEWEST_VERSION;
/** The versions in tools/n8n/versions; the e2e suite runs all of them unless N8N_E2E_VERSIONS says otherwise. */
const SUPPORTED_VERSIONS = [NODE20_VERSION, V1_VERSION, NEWEST_VERSION];

/** The versions to run: N8N_E2E_VERSIONS (comma-separated), or all of them. */
function requestedVersions() {
	const raw = process.env.N8N_E2E_VERSIONS;
	const versions = raw
		? raw
				.split(',')
				.map((v) => v.trim())
				.filter(Boolean)
		: SUPPORTED_VERSIONS;
	for (const version of versions) {
		if (!fs.existsSync(path.join(HARNESS_DIR, `n8n-${version}`, 'package.json'))) {
			throw new Error(
				`No harness for n8n ${version}: expected tools/n8n/versions/n8n-${version}/package.json`,
			);
		}
	}
	return versions;
}

/** Where the installs are kept: N8N_E2E_CACHE, or ~/.cache/n8n-voice-assistant. */
function cacheRoot() {
	return process.env.N8N_E2E_CACHE || path.join(os.homedir(), '.cache', 'n8n-voice-assistant');
}

/** @param {string} version */
function installDir(version) {
	return path.join(cacheRoot(), `n8n-${version}`);
}

/** The `n8n` binary of a version's install. @param {string} version */
function n8nBin(version) {
	return path.join(installDir(version), 'node_modules', '.bin', 'n8n');
}

/**
 * How a harness folder installs (its package.json's `e2eHarness`): `node` names the harness of
 * the Node.js it runs on (none: the Node running the suite), `installScripts: false` installs
 * without them and `rebuild` lists the packages whose scripts run afterwards.
 * @param {string} name a folder in tools/n8n/versions
 * @returns {{ node?: string, installScripts?: boolean, rebuild?: string[] }}
 */
function harnessOptions(name) {
	return (
		JSON.parse(fs.readFileSync(path.join(HARNESS_DIR, name, 'package.json'), 'utf8')).e2eHarness ??
		{}
	);
}

/** The folder holding the `node` binary of a Node.js harness (tools/n8n/versions/node-*). @param {string} runtime */
function nodeBinDir(runtime) {
	return path.join(cacheRoot(), runtime, 'node_modules', 'node', 'bin');
}

/**
 * The environment of a process of this n8n version: its Node.js first in PATH when it needs
 * another one than the suite's (n8n's bin runs `env node`, and n8n starts its task runner as
 * `node` from PATH).
 * @param {string} version
 * @param {NodeJS.ProcessEnv} env
 */
function runtimeEnv(version, env) {
	const { node } = harnessOptions(`n8n-${version}`);
	return node ? { ...env, PATH: `${nodeBinDir(node)}${path.delimiter}${env.PATH ?? ''}` } : env;
}

/** The n8n version a binary from n8nBin() belongs to. @param {string} bin */
function versionOfBin(bin) {
	return path.basename(path.resolve(bin, '..', '..', '..')).replace(/^n8n-/, '');
}

/**
 * What `n8n --version` prints in an install folder, or undefined when it does not run.
 * @param {string} dir
 * @param {string} [version]
 */
async function installedVersion(
	dir,
	version = path
		.basename(dir)
		.replace(/^n8n-/, '')
		.replace(/\.partial-\d+$/, ''),
) {
	const bin = path.join(dir, 'node_modules', '.bin', 'n8n');
	if (!fs.existsSync(bin)) return undefined;
	const env = runtimeEnv(version, cleanEnv());
	const result = await runProcess(bin, ['--version'], {
		env,
		timeoutMs: 120_000,
		name: 'n8n-version',
	});
	return result.code === 0 ? result.stdout.trim().split('\n').pop() : undefined;
}

/** Side folders of installs whose process is gone (interrupted with Ctrl-C, say). @param {string} dir */
function removeAbandonedInstalls(dir) {
	const parent = path.dirname(dir);
	if (!fs.existsSync(parent)) return;
	for (const entry of fs.readdirSync(parent)) {
		const match =
			entry.startsWith(`${path.basename(dir)}.partial-`) && /\.partial-(\d+)$/.exec(entry);
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

/** Size of a folder in MB (`du`), for progress lines; undefined while it cannot be read. @param {string} dir */
async function folderMegabytes(dir) {
	const result = await runProcess('du', ['-sm', dir], { timeoutMs: 60_000, name: 'du' });
	const megabytes = Number.parseInt(result.stdout, 10);
	return Number.isFinite(megabytes) ? megabytes : undefined;
}

/** The installs under way in this process, by cache folder: concurrent callers share one. */
const installsUnderWay = new Map();

/**
 * Installs a harness folder once however many callers ask for it at once: a second caller of a
 * folder still being installed waits for the same install (two n8n versions on one Node.js ask
 * for that runtime together). A failed install is forgotten, so a later call tries again.
 * @param {string} name
 * @param {{ env: NodeJS.ProcessEnv, isReady: (dir: string) => Promise<boolean>, expectedMegabytes: number, expectedTime: string }} how
 * @param {(line: string) => void} log
 * @returns {Promise<string>}
 */
function installHarness(name, how, log) {
	const key = path.join(cacheRoot(), name);
	const underWay = installsUnderWay.get(key);
	if (underWay) return underWay;
	const install = installHarnessOnce(name, how, log).finally(() => installsUnderWay.delete(key));
	installsUnderWay.set(key, install);
	return install;
}

/**
 * Installs a harness folder (its committed package.json and lockfile) into the cache with
 * `npm ci`, unless `isReady(dir)` says the cached copy is good. The install goes to a side
 * folder renamed when complete, so a broken install is never reused; progress lines say the
 * phase and the megabytes written so far.
 * @param {string} name
 * @param {{ env: NodeJS.ProcessEnv, isReady: (dir: string) => Promise<boolean>, expectedMegabytes: number, expectedTime: string }} how
 * @param {(line: string) => void} log
 */
async function installHarnessOnce(name, { env, isReady, expectedMegabytes, expectedTime }, log) {
	const dir = path.join(cacheRoot(), name);
	if (await isReady(dir)) return dir;
	const harness = path.join(HARNESS_DIR, name);
	removeAbandonedInstalls(dir);
	const partial = `${dir}.partial-${process.pid}`;
	fs.rmSync(partial, { recursive: true, force: true });
	fs.mkdirSync(partial, { recursive: true });
	for (const file of ['package.json', 'package-lock.json']) {
		if (!fs.existsSync(path.join(harness, file)))
			throw new Error(`Missing ${path.join(harness, file)}`);
		fs.copyFileSync(path.join(harness, file), path.join(partial, file));
	}
	const { installScripts = true, rebuild = [] } = harnessOptions(name);
	/** @type {Array<[string, string[]]>} the phase and npm's arguments */
	const steps = [
		[
			'download and unpack',
			[
				'ci',
				`--ignore-scripts=${!installScripts}`,
				'--audit=false',
				'--fund=false',
				'--no-progress',
			],
		],
	];
	if (rebuild.length) steps.push(['build native modules', ['rebuild', ...rebuild]]);
	log(
		`Installing ${name} into ${dir} (first time only: ${expectedTime}, ~${expectedMegabytes} MB)...`,
	);
	const started = Date.now();
	for (const [phase, args] of steps) {
		const heartbeat = setInterval(async () => {
			const megabytes = await folderMegabytes(partial);
			const seconds = Math.round((Date.now() - started) / 1000);
			log(
				`  ...${name}: ${phase}, ${seconds} s, ${megabytes ?? '?'} of ~${expectedMegabytes} MB written`,
			);
		}, 30_000);
		let result;
		try {
			// cwd is the cache folder, so the repo's .npmrc (ignore-scripts=true) does not apply.
			result = await runProcess('npm', args, {
				cwd: partial,
				env,
				timeoutMs: 30 * 60_000,
				logDir: partial,
				name: `npm-${args[0]}`,
			});
		} finally {
			clearInterval(heartbeat);
		}
		if (result.code !== 0) {
			const tail = `${result.stdout}\n${result.stderr}`.trim().split('\n').slice(-30).join('\n');
			throw new Error(
				`npm ${args[0]} of ${name} failed (code ${result.code}); logs in ${partial}:\n${tail}`,
			);
		}
	}
	if (!(await isReady(partial)))
		throw new Error(`${name} in ${partial} does not run after its install`);
	// Another process finished the same install first, and may be running it: use that one.
	if (await isReady(dir)) {
		fs.rmSync(partial, { recursive: true, force: true });
		return dir;
	}
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

/**
 * Makes sure a Node.js harness (node-24...) is in the cache; returns the folder of its binary.
 * @param {string} runtime
 * @param {(line: string) => void} log
 */
async function ensureRuntime(runtime, log) {
	/** @param {string} dir */
	const isReady = async (dir) => {
		const bin = path.join(dir, 'node_modules', 'node', 'bin', 'node');
		if (!fs.existsSync(bin)) return false;
		const result = await runProcess(bin, ['--version'], {
			timeoutMs: 60_000,
			name: 'node-version',
		});
		return result.code === 0;
	};
	await installHarness(
		runtime,
		{ env: cleanEnv(), isReady, expectedMegabytes: 190, expectedTime: 'seconds' },
		log,
	);
	return nodeBinDir(runtime);
}

/**
 * Makes sure the pinned n8n (and the Node.js it needs) is installed in the cache and returns
 * its `n8n` binary. A cold install takes minutes and ~2.3 GB.
 * @param {string} version
 * @param {(line: string) => void} [log]
 */
async function ensureN8n(version, log = (line) => process.stdout.write(`${line}\n`)) {
	const name = `n8n-${version}`;
	if (!fs.existsSync(path.join(HARNESS_DIR, name, 'package.json')))
		throw new Error(`No harness for n8n ${version}`);
	const { node } = harnessOptions(name);
	if (node) await ensureRuntime(node, log);
	/** @param {string} dir */
	const isReady = async (dir) => (await installedVersion(dir, version)) === version;
	await installHarness(
		name,
		{
			env: runtimeEnv(version, cleanEnv()),
			isReady,
			expectedMegabytes: 2300,
			expectedTime: '5-10 minutes',
		},
		log,
	);
	return n8nBin(version);
}

/**
 * Makes sure every version is installed, in parallel: a cold install is mostly download and
 * unpacking, not CPU.
 * @param {string[]} versions
 * @param {(line: string) => void} log
 */
async function ensureVersions(versions, log) {
	await Promise.all(
		versions.map(async (version) => {
			const started = Date.now();
			const bin = await ensureN8n(version, log);
			log(
				`n8n ${version} ready (${bin}, checked in ${Math.round((Date.now() - started) / 1000)} s)`,
			);
		}),
	);
}

/**
 * The harness folders the supported versions install: each n8n and the Node.js it runs on (a
 * folder in tools/n8n/versions that is not among them is a version checked by hand).
 */
function supportedHarnesses() {
	const names = SUPPORTED_VERSIONS.map((version) => `n8n-${version}`);
	const runtimes = names.map((name) => harnessOptions(name).node).filter(Boolean);
	return [...new Set([...names, ...runtimes])];
}

// `node tools/n8n/install.js`: the installs alone (.ci/run starts them first, in the background);
// with `--harnesses`, the folders they install, one per line (CI saves its cache once all exist);
// with `--runtime node-24`, that Node.js alone, printing the folder of its binary (.ci/run puts
// it first in PATH: the project's Node.js).
if (require.main === module && process.argv[2] === '--harnesses') {
	process.stdout.write(`${supportedHarnesses().join('\n')}\n`);
} else if (require.main === module && process.argv[2] === '--runtime') {
	ensureRuntime(String(process.argv[3]), (line) => process.stderr.write(`[node install] ${line}\n`))
		.then((dir) => process.stdout.write(`${dir}\n`))
		.catch((error) => {
			process.stderr.write(`[node install] ${error.stack ?? error}\n`);
			process.exitCode = 1;
		});
} else if (require.main === module) {
	ensureVersions(requestedVersions(), (line) =>
		process.stdout.write(`[n8n install] ${line}\n`),
	).catch((error) => {
		process.stderr.write(`[n8n install] ${error.stack ?? error}\n`);
		process.exitCode = 1;
	});
}

module.exports = {
	DEMO_VERSION,
	NODE20_VERSION,
	NEWEST_VERSION,
	SUPPORTED_VERSIONS,
	V1_VERSION,
	cacheRoot,
	ensureN8n,
	ensureVersions,
	installDir,
	installedVersion,
	n8nBin,
	requestedVersions,
	runtimeEnv,
	supportedHarnesses,
	versionOfBin,
};
