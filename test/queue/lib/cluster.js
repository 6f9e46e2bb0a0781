'use strict';

/**
 * n8n in queue mode on one machine: a main process (`n8n start`, which takes the webhooks and
 * puts executions on a Redis queue) and `n8n worker` processes (which run them), sharing one
 * PostgreSQL database, one user folder with the packed package installed, and one encryption
 * key. Every process listens on 127.0.0.1 only, on its own free ports (n8n, task broker,
 * worker health server), and runs in its own process group (tools/processes.js).
 */

const fs = require('fs');
const path = require('path');
const {
	NODE20_VERSION,
	NEWEST_VERSION,
	freshEnv,
	installPackage,
	n8nCli,
	startN8n,
} = require('../../../tools/n8n');
const { freePort, killGroup, poll, startProcess } = require('../../../tools/processes');

/**
 * @typedef {import('../../../tools/services').Postgres} Postgres
 * @typedef {import('../../../tools/services').Redis} Redis
 * @typedef {{ name: string, index: number, proc: import('../../../tools/processes').StartedProcess, healthPort: number, killed: boolean }} Worker
 */

/** The n8n versions of the suite: N8N_QUEUE_VERSIONS, or the default and the newest of the e2e matrix. */
function queueVersions() {
	const raw = process.env.N8N_QUEUE_VERSIONS;
	return raw
		? raw
				.split(',')
				.map((version) => version.trim())
				.filter(Boolean)
		: [NODE20_VERSION, NEWEST_VERSION];
}

/**
 * The settings of every process of the cluster (README, "Scaling out").
 * @param {{ redis: { host: string, port: number }, postgres: Postgres, database: string, prefix: string }} where
 */
function queueSettings({ redis, postgres, database, prefix }) {
	return {
		EXECUTIONS_MODE: 'queue',
		QUEUE_BULL_REDIS_HOST: redis.host,
		QUEUE_BULL_REDIS_PORT: String(redis.port),
		QUEUE_BULL_PREFIX: prefix,
		DB_TYPE: 'postgresdb',
		DB_POSTGRESDB_HOST: postgres.host,
		DB_POSTGRESDB_PORT: String(postgres.port),
		DB_POSTGRESDB_DATABASE: database,
		DB_POSTGRESDB_USER: postgres.user,
		DB_POSTGRESDB_PASSWORD: postgres.password,
		// Debug: the key check reads everything n8n logs.
		N8N_LOG_LEVEL: 'debug',
	};
}

/** The execution ids a worker's log says it started ("Worker started execution 12 (job 7)"). @param {string} logText */
function startedExecutions(logText) {
	return [...logText.matchAll(/Worker started execution (\d+) \(job/g)].map((match) => match[1]);
}

/**
 * Waits until n8n has registered a production webhook for each path (its webhook_entity table).
 * @param {Postgres} postgres
 * @param {string} database
 * @param {string[]} paths
 */
async function waitForWebhooks(postgres, database, paths) {
	await poll(
		`webhooks registered: ${paths.join(', ')}`,
		async () => {
			const registered = (
				await postgres.query(database, 'select "webhookPath" from webhook_entity')
			).map(([webhookPath]) => webhookPath);
			return paths.every((webhookPath) => registered.includes(webhookPath));
		},
		{ timeoutMs: 120_000 },
	);
}

/**
 * Imports the credentials and workflows, publishes (activates) the given workflows, then starts
 * main and the workers.
 * @param {{
 *   bin: string, version: string, tarball: string, workDir: string,
 *   redis: Redis, postgres: Postgres,
 *   credentials: object[], workflows: import('../../../tools/workflows').Workflow[], publish: string[],
 *   workers?: number, concurrency?: number, log?: (line: string) => void,
 * }} options
 */
async function startCluster(options) {
	const {
		bin,
		version,
		tarball,
		workDir,
		postgres,
		workers = 2,
		concurrency = 5,
		log = () => {},
	} = options;
	const name = `n8n_${version.replace(/\W/g, '_')}`;
	const userFolder = fs.mkdtempSync(path.join(workDir, `${name}-`));
	const logDir = path.join(userFolder, 'logs');
	fs.mkdirSync(logDir);
	const settings = queueSettings({ ...options, database: name, prefix: `bull-${name}` });
	/** @type {Record<string, number>} */
	const timings = {};
	/** @type {<T>(label: string, step: () => Promise<T>) => Promise<T>} */
	const timed = async (label, step) => {
		const started = Date.now();
		const result = await step();
		timings[label] = (Date.now() - started) / 1000;
		log(`n8n ${version}: ${label} in ${timings[label].toFixed(1)} s`);
		return result;
	};

	await postgres.createDatabase(name);
	await timed('package installed in the shared user folder', () =>
		installPackage(userFolder, tarball),
	);
	const importDir = path.join(userFolder, 'import');
	fs.mkdirSync(path.join(importDir, 'workflows'), { recursive: true });
	const credentialFile = path.join(importDir, 'credentials.json');
	fs.writeFileSync(credentialFile, JSON.stringify(options.credentials));
	for (const wf of options.workflows)
		fs.writeFileSync(path.join(importDir, 'workflows', `${wf.id}.json`), JSON.stringify(wf));
	/** @param {string[]} args */
	const cli = (args) => n8nCli(bin, args, userFolder, { extra: settings, timeoutMs: 300_000 });
	await timed('database migrated, credentials imported', () =>
		cli(['import:credentials', `--input=${credentialFile}`]),
	);
	await timed('workflows imported', () =>
		cli(['import:workflow', '--separate', `--input=${path.join(importDir, 'workflows')}`]),
	);
	for (const id of options.publish)
		await timed(`workflow ${id} published`, () => cli(['publish:workflow', `--id=${id}`]));

	/** @type {Worker[]} */
	const workerProcs = [];
	let workerCount = 0;

	/**
	 * Starts one more `n8n worker` and waits until its readiness check passes (database and Redis
	 * connected). `ownUserFolder`: in a user folder of its own with the package installed, as a
	 * new container from the same image would be (a worker that finds the event log of a dead
	 * one in its user folder marks that one's executions as crashed when it starts).
	 * @returns {Promise<Worker>}
	 */
	async function startWorker({ ownUserFolder = false } = {}) {
		const index = ++workerCount;
		const healthPort = await freePort();
		let folder = userFolder;
		if (ownUserFolder) {
			folder = fs.mkdtempSync(path.join(workDir, `${name}-worker-${index}-`));
			await installPackage(folder, tarball);
		}
		const env = await freshEnv(bin, folder, {
			...settings,
			QUEUE_HEALTH_CHECK_ACTIVE: 'true',
			QUEUE_HEALTH_CHECK_PORT: String(healthPort),
			N8N_WORKER_SERVER_ADDRESS: '127.0.0.1',
		});
		const proc = startProcess(bin, ['worker', `--concurrency=${concurrency}`], {
			env,
			logDir,
			name: `n8n-worker-${index}`,
		});
		const worker = { name: `worker-${index}`, index, proc, healthPort, killed: false };
		workerProcs.push(worker);
		const ready = () =>
			fetch(`http://127.0.0.1:${healthPort}/healthz/readiness`).then(
				(response) => response.ok,
				() => false,
			);
		await poll(
			`n8n worker ${index}`,
			async () => proc.readStdout().includes('n8n worker is now ready') && ready(),
			{ timeoutMs: 240_000, proc },
		);
		return worker;
	}

	const [mainStarted, ...workersStarted] = await timed(`main and ${workers} workers started`, () =>
		Promise.allSettled([
			startN8n(bin, userFolder, { logDir, extra: settings }),
			...Array.from({ length: workers }, () => startWorker()),
		]),
	);
	if (
		mainStarted.status === 'rejected' ||
		workersStarted.some((result) => result.status === 'rejected')
	) {
		await Promise.all([
			mainStarted.status === 'fulfilled' && mainStarted.value.stop(),
			...workerProcs.map((worker) => worker.proc.stop(5_000)),
		]);
		throw [mainStarted, ...workersStarted].flatMap((result) =>
			result.status === 'rejected' ? [result.reason] : [],
		)[0];
	}
	const main = mainStarted.value;
	// n8n 2.41 registers the webhooks of published workflows shortly after it says it is ready.
	const webhookPaths = options.workflows
		.filter((wf) => options.publish.includes(wf.id))
		.flatMap((wf) =>
			wf.nodes
				.filter((node) => node.type === 'n8n-nodes-base.webhook')
				.map((node) => String(node.parameters.path)),
		);
	await timed('webhooks registered', () => waitForWebhooks(postgres, name, webhookPaths));

	return {
		version,
		userFolder,
		logDir,
		database: name,
		settings,
		timings,
		main,
		workers: workerProcs,
		startWorker,
		/** @param {string} webhookPath */
		webhookUrl: (webhookPath) => `${main.url}/webhook/${webhookPath}`,
		/** Which worker each execution started on, from the workers' logs: { executionId: workerName }. */
		executionsByWorker() {
			/** @type {Record<string, string>} */
			const byExecution = {};
			for (const worker of workerProcs) {
				for (const id of startedExecutions(worker.proc.readStdout())) byExecution[id] = worker.name;
			}
			return byExecution;
		},
		/** kill -9 of a worker's whole process group (n8n and its task runner), as when its machine dies. @param {Worker} worker */
		async killWorker(worker) {
			worker.killed = true;
			killGroup(worker.proc.pid, 'SIGKILL');
			await worker.proc.exited;
			await worker.proc.stop(1_000);
		},
		/** The text of every log of every process (main and all workers, killed ones included). */
		allLogs() {
			return fs
				.readdirSync(logDir)
				.filter((file) => file.endsWith('.log'))
				.map((file) => ({ file, text: fs.readFileSync(path.join(logDir, file), 'utf8') }));
		},
		async stop() {
			await Promise.all([main.stop(), ...workerProcs.map((worker) => worker.proc.stop(30_000))]);
		},
	};
}

/** @typedef {Awaited<ReturnType<typeof startCluster>>} Cluster */

module.exports = { queueSettings, queueVersions, startCluster, startedExecutions };
