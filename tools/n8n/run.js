'use strict';

/**
 * n8n processes of a pinned version on one user folder: a CLI command to completion
 * (`n8n import:*`, `n8n execute`), or `n8n start` until its editor answers. Each process gets
 * fresh ports on 127.0.0.1, the fixed encryption key and nothing that phones home.
 */

const { spawnSync } = require('child_process');
const fs = require('fs');
const os = require('os');
const path = require('path');
const { cleanEnv, freePort, poll, runProcess, startProcess } = require('../processes');
const { runtimeEnv, versionOfBin } = require('./install');

/** Fixed so that imported credentials can be decrypted by every later n8n process. */
const ENCRYPTION_KEY = 'voice-assistant-e2e-fixed-encryption-key';

/**
 * The environment of every n8n process: isolated user folder, loopback only, nothing phoning home.
 * @param {{ userFolder: string, port: number, brokerPort: number, extra?: Record<string, string> }} settings
 */
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

/**
 * The environment of an n8n process of this binary's version: a fresh pair of ports (n8n's own
 * and its task broker's), the user folder, `extra` on top.
 * @param {string} bin
 * @param {string} userFolder
 * @param {Record<string, string>} [extra]
 */
async function freshEnv(bin, userFolder, extra) {
	return runtimeEnv(
		versionOfBin(bin),
		n8nEnv({ userFolder, port: await freePort(), brokerPort: await freePort(), extra }),
	);
}

/** The end of a command's output, for error messages. @param {{ stdout: string, stderr: string }} output */
const tail = ({ stdout, stderr }) => `${stdout.slice(-4000)}\n${stderr.slice(-4000)}`;

/**
 * Runs one n8n CLI command to completion; throws with its output when it fails.
 * @param {string} bin
 * @param {string[]} args
 * @param {string} userFolder
 * @param {{ timeoutMs?: number, allowFailure?: boolean, extra?: Record<string, string> }} [options] `extra`: more environment
 */
async function n8nCli(
	bin,
	args,
	userFolder,
	{ timeoutMs = 180_000, allowFailure = false, extra } = {},
) {
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
 * Imports credentials (with their data, as `n8n import:credentials` reads them) and workflows
 * (`n8n import:workflow`, one file per workflow id) into a user folder, through files in a
 * temporary folder that is removed afterwards. n8n 1.x drops workflow ids longer than 16
 * characters (isWorkflowIdValid): such an id is refused here.
 * @param {string} bin
 * @param {string} userFolder
 * @param {{ credentials?: object[], workflows?: Array<{ id: string }> }} imports
 */
async function importIntoN8n(bin, userFolder, { credentials = [], workflows = [] }) {
	const tooLong = workflows.filter(
		({ id }) => id.length > 16 && versionOfBin(bin).startsWith('1.'),
	);
	if (tooLong.length)
		throw new Error(
			`n8n 1.x would drop these workflow ids (more than 16 characters): ${tooLong.map(({ id }) => id).join(', ')}`,
		);
	const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'va-n8n-import-'));
	try {
		if (credentials.length) {
			const file = path.join(dir, 'credentials.json');
			fs.writeFileSync(file, JSON.stringify(credentials));
			await n8nCli(bin, ['import:credentials', `--input=${file}`], userFolder);
		}
		if (workflows.length) {
			const workflowDir = path.join(dir, 'workflows');
			fs.mkdirSync(workflowDir);
			for (const wf of workflows)
				fs.writeFileSync(path.join(workflowDir, `${wf.id}.json`), JSON.stringify(wf));
			await n8nCli(bin, ['import:workflow', '--separate', `--input=${workflowDir}`], userFolder);
		}
	} finally {
		fs.rmSync(dir, { recursive: true, force: true });
	}
}

/**
 * The run data `n8n execute --rawOutput` prints through the logger: the pretty-printed JSON
 * from the first line that is exactly "{" to the next line that is exactly "}".
 * Success and failure both print it (on failure after "Execution error:").
 * @param {string} stdout
 * @returns {import('./rest').N8nRun | undefined}
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
 * @param {string} bin
 * @param {string} id
 * @param {string} userFolder
 * @param {{ timeoutMs?: number, onStart?: (pid: number | undefined) => void }} [options]
 */
async function executeWorkflowProcess(bin, id, userFolder, { timeoutMs = 240_000, onStart } = {}) {
	return runProcess(bin, ['execute', `--id=${id}`, '--rawOutput'], {
		env: await freshEnv(bin, userFolder),
		timeoutMs,
		name: 'n8n-execute',
		onStart: onStart && (async (proc) => onStart(await proc.commandPid())),
	});
}

/**
 * `n8n execute --id=… --rawOutput`: exit code and the parsed run data.
 * @param {string} bin
 * @param {string} id
 * @param {string} userFolder
 * @param {{ timeoutMs?: number, extra?: Record<string, string> }} [options] `extra`: more environment
 */
async function executeWorkflow(bin, id, userFolder, { timeoutMs = 240_000, extra } = {}) {
	const result = await n8nCli(bin, ['execute', `--id=${id}`, '--rawOutput'], userFolder, {
		timeoutMs,
		allowFailure: true,
		extra,
	});
	if (result.timedOut)
		throw new Error(`n8n execute --id=${id} timed out:\n${result.stdout.slice(-4000)}`);
	const run = parseExecuteOutput(result.stdout);
	if (!run)
		throw new Error(
			`n8n execute --id=${id} printed no run data (code ${result.code}):\n${tail(result)}`,
		);
	return { code: result.code, run, stdout: result.stdout, stderr: result.stderr };
}

/**
 * A command line that runs `command` with `lines` added to the /etc/hosts it reads: in a mount
 * namespace of its own (`unshare --mount`, which needs root), with a copy of the machine's file
 * plus the lines (written into `dir`) mounted over /etc/hosts. The machine's file and every other
 * process stay as they were, and the namespace goes with the process. Undefined where the machine
 * does not allow it (not root, no unshare), having said why on stderr.
 * @param {string[]} lines
 * @param {string} dir
 * @returns {((command: string, args: string[]) => [string, string[]]) | undefined}
 */
function withHostsLines(lines, dir) {
	const inNamespace = ['--mount', '--propagation', 'private', 'sh', '-c'];
	const probe = spawnSync('unshare', [...inNamespace, 'mount --bind /etc/hosts /etc/hosts'], {
		encoding: 'utf8',
	});
	if (probe.status !== 0) {
		process.stderr.write(`No /etc/hosts of its own for n8n: ${probe.error ?? probe.stderr}\n`);
		return undefined;
	}
	const file = path.join(dir, 'hosts');
	const machine = fs.readFileSync('/etc/hosts', 'utf8').trimEnd();
	fs.writeFileSync(file, `${machine}\n${lines.join('\n')}\n`);
	const script = 'mount --bind "$0" /etc/hosts && exec "$@"';
	return (command, args) => ['unshare', [...inNamespace, script, file, command, ...args]];
}

/**
 * Starts `n8n start` and waits until it is ready; returns its URL and a stop function. Ready
 * means our process printed "Editor is now accessible" and /rest/settings answers: a port taken
 * by someone else in the meantime could otherwise answer for it. If n8n lost the race for its
 * port, it is started again on another one (unless the port was asked for).
 * @param {string} bin
 * @param {string} userFolder
 * `hosts`: a command line for n8n (withHostsLines), to start it with names of its own.
 * @param {{ port?: number, logDir?: string, extra?: Record<string, string>, hosts?: ReturnType<typeof withHostsLines> }} [options]
 */
async function startN8n(bin, userFolder, { port, logDir, extra, hosts } = {}) {
	for (let attempt = 1; ; attempt++) {
		const listenPort = port ?? (await freePort());
		const env = runtimeEnv(
			versionOfBin(bin),
			n8nEnv({ userFolder, port: listenPort, brokerPort: await freePort(), extra }),
		);
		const [command, args] = hosts ? hosts(bin, ['start']) : [bin, ['start']];
		const proc = startProcess(command, args, { env, logDir, name: 'n8n-start' });
		const url = `http://127.0.0.1:${listenPort}`;
		let exited = false;
		proc.exited.then(() => (exited = true));
		const answers = () =>
			fetch(`${url}/rest/settings`).then(
				(response) => response.ok && !exited,
				() => false,
			);
		try {
			await poll(
				'n8n start',
				async () => proc.readStdout().includes('Editor is now accessible') && answers(),
				{ timeoutMs: 180_000, proc },
			);
			return { url, proc, stop: () => proc.stop(20_000) };
		} catch (error) {
			await proc.stop();
			const output = `${proc.readStdout()}\n${proc.readStderr()}`;
			if (port === undefined && attempt < 3 && output.includes('already in use')) continue;
			throw error;
		}
	}
}

/** @typedef {Awaited<ReturnType<typeof startN8n>>} RunningN8n */

module.exports = {
	ENCRYPTION_KEY,
	freshEnv,
	executeWorkflow,
	executeWorkflowProcess,
	importIntoN8n,
	n8nCli,
	parseExecuteOutput,
	startN8n,
	withHostsLines,
};
