'use strict';

/**
 * Child processes for the tests, the demo and the benchmark: each runs in its own process group, so
 * stopping it also stops what it started (n8n's task runners), and output goes to files,
 * never to a pipe that could close early (n8n spins at 100% CPU on EPIPE). A guard stops the
 * group when this process goes away, however it ends, so nothing is left behind.
 */

const { spawn } = require('child_process');
const fs = require('fs');
const net = require('net');
const os = require('os');
const path = require('path');

const GUARD = path.join(__dirname, 'guard.js');

/** A port that was free a moment ago on 127.0.0.1. */
function freePort() {
	return new Promise((resolve, reject) => {
		const server = net.createServer();
		server.unref();
		server.on('error', reject);
		server.listen(0, '127.0.0.1', () => {
			const { port } = /** @type {net.AddressInfo} */ (server.address());
			server.close(() => resolve(port));
		});
	});
}

/**
 * The environment minus what `npm run` adds (npm_config_ignore_scripts=true, the repo as
 * prefix...) and what jest adds: with NODE_ENV=test n8n silences its logger and keeps its
 * database in memory.
 */
/** @param {Record<string, string>} [extra] */
function cleanEnv(extra = {}) {
	/** @type {NodeJS.ProcessEnv} */
	const env = {};
	for (const [key, value] of Object.entries(process.env)) {
		if (!/^npm_/i.test(key) && !['INIT_CWD', 'NODE_ENV', 'JEST_WORKER_ID'].includes(key))
			env[key] = value;
	}
	return { ...env, ...extra };
}

/**
 * Sends a signal to a whole process group; false if it is already gone.
 * @param {number} pid the group's leader
 * @param {NodeJS.Signals | 0} signal
 */
function killGroup(pid, signal) {
	try {
		process.kill(-pid, signal);
		return true;
	} catch {
		return false;
	}
}

/**
 * Whether anything of a process group still runs.
 * @param {number} pid the group's leader
 */
const groupAlive = (pid) => killGroup(pid, 0);

/** @param {number} ms */
const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));

/**
 * Asks `check` every `everyMs` until it answers something other than undefined or false, and
 * returns that; fails naming `what` when the time is up, or at once when `proc` has exited.
 * @template T
 * @param {string} what
 * @param {() => Promise<T | undefined | false> | T | undefined | false} check
 * @param {{ timeoutMs?: number, everyMs?: number, proc?: StartedProcess }} [options]
 * @returns {Promise<T>}
 */
async function poll(what, check, { timeoutMs = 60_000, everyMs = 250, proc } = {}) {
	let exited = false;
	proc?.exited.then(() => (exited = true));
	const deadline = Date.now() + timeoutMs;
	for (;;) {
		const value = await check();
		if (value !== undefined && value !== false) return value;
		if (exited && proc)
			throw new Error(
				`${what}: the process exited:\n${proc.readStdout().slice(-4000)}\n${proc.readStderr().slice(-3000)}`,
			);
		if (Date.now() > deadline) throw new Error(`${what}: not within ${timeoutMs / 1000} s`);
		await sleep(everyMs);
	}
}

/** Leaders of the process groups started here and still running. */
/** @type {Set<number>} */
const running = new Set();

/** Stops every process group started here (a demo stopped with Ctrl-C). @param {NodeJS.Signals} signal */
function killAll(signal = 'SIGKILL') {
	for (const pid of running) killGroup(pid, signal);
}

/**
 * @typedef {{ cwd?: string, env?: NodeJS.ProcessEnv, logDir?: string, name?: string, inherit?: boolean }} StartOptions
 * @typedef {{ code: number | null, signal: NodeJS.Signals | null, error?: Error }} Exit
 * @typedef {{ code: number | null, signal: NodeJS.Signals | null, stdout: string, stderr: string, timedOut: boolean }} ProcessResult
 * @typedef {ReturnType<typeof startProcess>} StartedProcess
 */

/**
 * Starts a command in its own process group; stdout and stderr go to files (or are inherited).
 * @param {string} command
 * @param {string[]} args
 * @param {StartOptions} [options]
 */
function startProcess(command, args, options = {}) {
	const ownsLogDir = !options.logDir && !options.inherit;
	const logDir =
		options.logDir ??
		(ownsLogDir ? fs.mkdtempSync(path.join(os.tmpdir(), 'va-proc-')) : os.tmpdir());
	const name = options.name ?? path.basename(command);
	const stdoutFile = path.join(logDir, `${name}.stdout.log`);
	const stderrFile = path.join(logDir, `${name}.stderr.log`);
	const out = options.inherit ? 'inherit' : fs.openSync(stdoutFile, 'w');
	const err = options.inherit ? 'inherit' : fs.openSync(stderrFile, 'w');
	// Through guard.js, the leader of the new group: the group goes when this process does.
	const child = spawn(process.execPath, [GUARD, command, ...args], {
		cwd: options.cwd,
		env: options.env ?? process.env,
		detached: true,
		stdio: ['pipe', out, err],
	});
	child.stdin?.on('error', () => {});
	const pid = /** @type {number} */ (child.pid);
	if (typeof out === 'number') fs.closeSync(out);
	if (typeof err === 'number') fs.closeSync(err);
	if (pid) running.add(pid);
	/** @type {Promise<Exit>} */
	const exited = new Promise((resolve) => {
		child.on('exit', (code, signal) => resolve({ code, signal }));
		child.on('error', (error) => resolve({ code: -1, signal: null, error }));
	});
	return {
		child,
		pid,
		stdoutFile,
		stderrFile,
		exited,
		readStdout: () => (options.inherit ? '' : fs.readFileSync(stdoutFile, 'utf8')),
		readStderr: () => (options.inherit ? '' : fs.readFileSync(stderrFile, 'utf8')),
		/** The process id of the command itself (the group's leader is its guard). */
		async commandPid() {
			for (let i = 0; i < 100; i++) {
				try {
					const children = fs.readFileSync(`/proc/${pid}/task/${pid}/children`, 'utf8').trim();
					if (children) return Number(children.split(/\s+/)[0]);
				} catch {}
				await sleep(20);
			}
			return undefined;
		},
		/** Removes the log folder when it is a temporary one made here. */
		cleanup: () => {
			if (ownsLogDir) fs.rmSync(logDir, { recursive: true, force: true });
		},
		/** SIGTERM to the group, SIGKILL after `graceMs`; resolves once the group is gone. @param {number} [graceMs] */
		async stop(graceMs = 10_000) {
			if (!killGroup(pid, 'SIGTERM')) {
				running.delete(pid);
				return;
			}
			const deadline = Date.now() + graceMs;
			while (groupAlive(pid) && Date.now() < deadline) await sleep(100);
			if (groupAlive(pid)) killGroup(pid, 'SIGKILL');
			while (groupAlive(pid)) await sleep(50);
			running.delete(pid);
		},
	};
}

/**
 * Runs a command to completion. On timeout the whole group gets SIGKILL (n8n may ignore SIGTERM).
 * `onStart` gets the started process (e.g. to sample the command's memory while it runs).
 * @param {string} command
 * @param {string[]} args
 * @param {StartOptions & { timeoutMs?: number, onStart?: (proc: StartedProcess) => void }} [options]
 * @returns {Promise<ProcessResult>}
 */
async function runProcess(command, args, options = {}) {
	const proc = startProcess(command, args, options);
	options.onStart?.(proc);
	let timedOut = false;
	const timer = setTimeout(() => {
		timedOut = true;
		killGroup(proc.pid, 'SIGKILL');
	}, options.timeoutMs ?? 300_000);
	const { code, signal } = await proc.exited;
	clearTimeout(timer);
	// The leader is gone; make sure nothing it started outlives it.
	killGroup(proc.pid, 'SIGKILL');
	running.delete(proc.pid);
	const result = { code, signal, stdout: proc.readStdout(), stderr: proc.readStderr(), timedOut };
	proc.cleanup();
	return result;
}

module.exports = {
	cleanEnv,
	freePort,
	groupAlive,
	killAll,
	killGroup,
	poll,
	runProcess,
	sleep,
	startProcess,
};
