'use strict';

/**
 * npm run bench: bulk contact updates in a real n8n (the e2e suite's cached install), compared in
 * one run on one machine with: the simulator's own capacity (autocannon), n8n's HTTP Request
 * node (the key typed into a header; in the default-settings rows also the key in a Header Auth
 * credential), and the smallest possible declarative node (the engine's floor). Prints figures,
 * never asserts them; the table also goes to bench/results/latest.json and .md.
 *
 *   npm run bench                  # all scenarios
 *   npm run bench -- --quick       # N = 1,000 only
 *   npm run bench -- --big         # also 100,000 updates through our node (memory)
 *   npm run bench -- --defaults    # only the default-settings rows (latency, rate limit, chaos, one 429)
 *   npm run bench -- --only=REGEX  # only the rows whose name matches (with --defaults: among those);
 *                                  # --only=strict: the rows behind a strict service (200 in any 1,000 ms)
 *   npm run bench -- --mapping     # only the mapping rows: expressions, CRM column names
 *   npm run bench -- --chain       # only the PostgreSQL chain rows: 10,000 rows with write-back against
 *                                  # the node alone; with --big also 100,000 rows a page at a time
 *   npm run bench -- --dry-run     # only the Dry Run rows: 10,000 updates dry beside real;
 *                                  # with --big also 100,000 dry (memory)
 *   npm run bench -- --log-lines   # print every log line of the node (progress and summary), not only the summary
 *   npm run bench -- --n8n=VERSION # another n8n version of tools/n8n/install.js (default: NODE20_VERSION)
 *   npm run bench -- --help        # this text
 */

const fs = require('fs');
const os = require('os');
const path = require('path');
/**
 * The part of autocannon the simulator's row uses (autocannon ships no types).
 * @type {(options: { url: string, method: string, connections: number, amount: number, headers: Record<string, string>, body: string }) => Promise<{
 *   duration: number, requests: { average: number }, latency: { p50: number, p99: number }, '2xx': number, non2xx: number, errors: number,
 * }>}
 */
// @ts-expect-error autocannon has no type declarations
const autocannon = require('autocannon');
const {
	NODE20_VERSION,
	buildAndPack,
	ensureN8n,
	importIntoN8n,
	installPackage,
	n8nCli,
	parseExecuteOutput,
	executeWorkflowProcess,
} = require('../tools/n8n');
const { startSimulatorProcess } = require('../tools/simulator-process');
const { startPostgres } = require('../tools/services');
const { sleep } = require('../tools/processes');
const { CREDENTIAL_TYPE } = require('../tools/package-names');
const { exampleSql, readExample } = require('../tools/repo');
const { CREDENTIALS, TARGET, benchWorkflow, exampleForCli, PAGED_SUB_ID } = require('./workflows');
const { strictFigures } = require('../test/helpers/strictService');

/**
 * @typedef {import('../tools/simulator-process').SimulatorProcess} Sim
 * @typedef {{ bin: string, userFolder: string, dir: string, stopRss?: () => number }} Ctx
 * @typedef {{
 *   wallMs: number, processMs?: number, requestsPerSec: number, msPerItem?: number, p50Ms: number, p99Ms: number,
 *   maxInFlight?: number, peakRss: number | undefined, succeeded: number, failed: number, applied: number,
 *   duplicates: number, requests?: number, byStatus?: Record<string, number>, sendingMs?: number, mostInAnySecond?: number, mostInAClockSecond?: number, failures?: Record<string, number>,
 *   executionFailed?: boolean, summaryLine?: string, logLines?: string[], synced?: number,
 *   strict?: import('../test/helpers/strictService').StrictFigures,
 * }} Figures
 * @typedef {{ name: string, count: number, result: Figures, rate?: number }} Row
 * @typedef {(name: string, count: number, run: () => Promise<Figures>, extra?: { rate?: number }) => Promise<void>} Recorder
 * @typedef {{ id: string, target: string, count: number, options?: Record<string, unknown>, shape?: import('./workflows').Shape, batching?: { batchSize: number, batchInterval: number }, credential?: { id: string, name: string } }} RowSpec
 */

const versionArg = process.argv.slice(2).find((arg) => arg.startsWith('--n8n='));
const N8N_VERSION = versionArg ? versionArg.slice('--n8n='.length) : NODE20_VERSION;
const API_KEY = 'bench-api-key';
const args = new Set(process.argv.slice(2));
const onlyArg = process.argv.slice(2).find((arg) => arg.startsWith('--only='));
const only = onlyArg ? new RegExp(onlyArg.slice('--only='.length), 'i') : undefined;

/** @param {string} line */
const log = (line) => process.stdout.write(`${line}\n`);

/** Peak resident memory of a process (VmHWM), polled until it exits. @param {number | undefined} pid */
function trackPeakRss(pid) {
	let peakKb = 0;
	const read = () => {
		try {
			const status = fs.readFileSync(`/proc/${pid}/status`, 'utf8');
			const match = /VmHWM:\s+(\d+) kB/.exec(status);
			if (match) peakKb = Math.max(peakKb, Number(match[1]));
		} catch {}
	};
	const timer = setInterval(read, 50);
	read();
	return () => {
		clearInterval(timer);
		return peakKb * 1024;
	};
}

/** @param {Sim} sim @param {import('../test/simulator').ModeOptions} options */
async function setSimulator(sim, options) {
	await sim.setOptions({
		latencyMs: 0,
		rateLimit: null,
		strictRate: null,
		statedCount: null,
		chaos: null,
		throttleFirst: null,
		...options,
	});
	await sim.reset();
}

/**
 * The physical limit: autocannon hammering the same PUT with 10 connections.
 * @param {Sim} sim
 * @param {number} count
 * @returns {Promise<Figures>}
 */
async function loadToolRow(sim, count) {
	await sim.reset();
	const result = await autocannon({
		url: `${sim.url}/api/v1/segment/contact/update?id=load`,
		method: 'PUT',
		connections: 10,
		amount: count,
		headers: { 'x-api-key': API_KEY, 'content-type': 'application/json' },
		body: JSON.stringify({ first_name: 'Load', last_name: 'Tool', phone: '+15550000000' }),
	});
	const summary = await sim.summary();
	return {
		wallMs: result.duration * 1000,
		requestsPerSec: result.requests.average,
		p50Ms: result.latency.p50,
		p99Ms: result.latency.p99,
		peakRss: undefined,
		succeeded: result['2xx'],
		failed: result.non2xx + result.errors,
		applied: summary.appliedChanges,
		duplicates: 0,
	};
}

/**
 * `n8n execute` of an imported workflow with n8n's peak RSS sampled; its run data, or a clear error.
 * @param {Ctx} ctx
 * @param {string} id
 * @param {number} timeoutMs
 */
async function executeMeasured(ctx, id, timeoutMs) {
	const started = Date.now();
	const result = await executeWorkflowProcess(ctx.bin, id, ctx.userFolder, {
		timeoutMs,
		onStart: (pid) => (ctx.stopRss = trackPeakRss(pid)),
	});
	const peakRss = ctx.stopRss?.();
	const processMs = Date.now() - started;
	const run = parseExecuteOutput(result.stdout);
	if (!run)
		throw new Error(
			`${id}: no run data (code ${result.code})\n${result.stdout.slice(-2000)}\n${result.stderr.slice(-2000)}`,
		);
	return { run, result, peakRss, processMs };
}

/**
 * The simulator's figures of a row: latency, concurrency, what was applied and how often.
 * @param {Sim} sim
 * @param {number} count
 * @param {number} wallMs
 */
async function served(sim, count, wallMs) {
	const summary = await sim.summary();
	return {
		requestsPerSec: (count / wallMs) * 1000,
		msPerItem: wallMs / count,
		p50Ms: summary.p50Ms,
		p99Ms: summary.p99Ms,
		maxInFlight: summary.maxInFlight,
		applied: summary.distinctChanges,
		duplicates: summary.duplicatedChanges,
		requests: summary.total,
		byStatus: summary.byStatus,
		mostInAnySecond: summary.mostInAnySecond,
		mostInAClockSecond: summary.mostInAClockSecond,
		// From the first request the service received to its last answer: the run's sending alone,
		// without n8n preparing the items first.
		sendingMs:
			summary.firstAt !== undefined && summary.lastAt !== undefined
				? summary.lastAt - summary.firstAt
				: undefined,
	};
}

/**
 * Imports a workflow, runs it with `n8n execute`, and reads the figures of the target node.
 * @param {Ctx} ctx
 * @param {Sim} sim
 * @param {RowSpec} row
 * @returns {Promise<Figures>}
 */
async function n8nRow(ctx, sim, { id, target, count, options, shape, batching, credential }) {
	const workflow = benchWorkflow({
		id,
		target,
		count,
		apiKey: API_KEY,
		baseUrl: sim.url,
		options,
		shape,
		batching,
		credential,
	});
	await importIntoN8n(ctx.bin, ctx.userFolder, { workflows: [workflow] });
	await sim.reset();
	const { run, result, peakRss, processMs } = await executeMeasured(ctx, id, 30 * 60_000);
	const task = run.data.resultData.runData[TARGET]?.[0];
	if (!task)
		throw new Error(
			`${id}: the target node did not run: ${JSON.stringify(run.data.resultData.error)}`,
		);
	const items = task.data?.main?.[0] ?? [];
	const errors = items
		.map((item) => item.json?.error ?? item.error?.message ?? item.error)
		.filter((error) => error !== undefined);
	const failed = errors.length;
	// Why items failed, by kind: a cut connection, or the status the service answered.
	/** @type {Record<string, number>} */
	const failures = {};
	for (const error of errors) {
		const text = String(error);
		const kind = /dropped|reset|hang up/i.test(text)
			? 'cut connection'
			: (/HTTP (\d{3})/.exec(text)?.[1] ?? 'other');
		failures[kind] = (failures[kind] ?? 0) + 1;
	}
	const wallMs = task.executionTime ?? 0;
	// The node's own log lines: its progress on long runs, and its summary.
	const logLines = `${result.stdout}\n${result.stderr}`
		.split('\n')
		.filter((line) => line.includes('Voice Assistant "'))
		.map((line) => line.trim());
	const summaryLine = logLines.find((line) => line.includes('": done: '));
	return {
		wallMs,
		processMs,
		...(await served(sim, count, wallMs)),
		peakRss,
		succeeded: items.length - failed,
		failed,
		failures,
		executionFailed: Boolean(run.data.resultData.error),
		summaryLine,
		logLines,
	};
}

/**
 * Runs an example workflow (already imported) with `n8n execute`: the time of the whole run (every
 * node, sub-workflows included), n8n's peak RSS and what the simulator received.
 * @param {Ctx} ctx
 * @param {Sim} sim
 * @param {{ id: string, count: number }} row
 * @returns {Promise<Figures>}
 */
async function workflowRow(ctx, sim, { id, count }) {
	await sim.reset();
	const { run, peakRss, processMs } = await executeMeasured(ctx, id, 60 * 60_000);
	if (run.data.resultData.error)
		throw new Error(
			`${id}: the execution failed: ${JSON.stringify(run.data.resultData.error).slice(0, 2000)}`,
		);
	const wallMs = Object.values(run.data.resultData.runData)
		.flat()
		.reduce((sum, task) => sum + (task.executionTime ?? 0), 0);
	const figures = await served(sim, count, wallMs);
	return {
		wallMs,
		processMs,
		...figures,
		peakRss,
		succeeded: figures.applied,
		failed: count - figures.applied,
	};
}

/**
 * Issue 20: the PostgreSQL recipe as a chain (rows → Segment Contact → Update → write-back) against
 * the node alone (Code → node) in the same run; with --big, 100,000 rows a page at a time.
 * @param {Sim} sim
 * @param {Ctx} ctx
 * @param {Recorder} record
 */
async function chainRows(sim, ctx, record) {
	const postgres = await startPostgres({ logDir: ctx.dir });
	try {
		const database = 'bench_chain';
		await postgres.createDatabase(database);
		const { host, port, user, password } = postgres;
		await importIntoN8n(ctx.bin, ctx.userFolder, {
			credentials: [
				{
					...CREDENTIALS.postgres,
					type: 'postgres',
					data: { host, port, database, user, password, ssl: 'disable' },
				},
			],
			workflows: [
				...exampleForCli('postgres-contacts-sync.json', 'benchChain'),
				...exampleForCli('postgres-contacts-sync-paged.json', 'benchPaged'),
			],
		});
		// n8n 2.x runs a sub-workflow outside the editor only when it is published (1.x: active).
		const publish = N8N_VERSION.startsWith('1.')
			? ['update:workflow', `--id=${PAGED_SUB_ID}`, '--active=true']
			: ['publish:workflow', `--id=${PAGED_SUB_ID}`];
		await n8nCli(ctx.bin, publish, ctx.userFolder);
		await postgres.query(database, exampleSql(readExample('postgres-contacts-sync.json')));
		/** @param {number} count */
		const fill = async (count) => {
			await postgres.query(database, 'TRUNCATE sync_errors, contacts');
			await postgres.query(
				database,
				`INSERT INTO contacts (id, first_name, last_name, phone, email, lifecycle_stage)
				 SELECT 'c-' || lpad(i::text, 6, '0'), 'First' || i, 'Last' || i, '+1555' || lpad(i::text, 7, '0'), 'c' || i || '@example.com', 'lead'
				 FROM generate_series(1, ${count}) AS i`,
			);
		};
		const synced = async () =>
			Number(
				(
					await postgres.query(
						database,
						'SELECT count(*) FROM contacts WHERE synced_version = updated_at',
					)
				)[0][0],
			);
		await setSimulator(sim, {});
		const count = 10_000;
		await record(
			'Voice Assistant alone (Code node → Segment Contact → Update, Map Automatically)',
			count,
			() => n8nRow(ctx, sim, { id: 'chainAlone', target: 'ours', count }),
		);
		await fill(count);
		await record(
			'PostgreSQL → Segment Contact → Update → PostgreSQL write-back (postgres-contacts-sync.json)',
			count,
			async () => {
				const result = await workflowRow(ctx, sim, { id: 'benchChain', count });
				return { ...result, synced: await synced() };
			},
		);
		if (args.has('--big')) {
			const big = 100_000;
			await fill(big);
			await record('100,000 rows in one run (postgres-contacts-sync.json)', big, async () => {
				const result = await workflowRow(ctx, sim, { id: 'benchChain', count: big });
				return { ...result, synced: await synced() };
			});
			await fill(big);
			await record(
				'100,000 rows a page of 1,000 at a time, each page its own execution (postgres-contacts-sync-paged.json)',
				big,
				async () => {
					const result = await workflowRow(ctx, sim, { id: 'benchPaged', count: big });
					return { ...result, synced: await synced() };
				},
			);
		}
	} finally {
		await postgres.stop();
	}
}

/** @param {Row[]} rows */
function chainReport(rows) {
	/** @param {string} prefix */
	const find = (prefix) => rows.find((row) => row.name.startsWith(prefix))?.result;
	const alone = find('Voice Assistant alone');
	const chain = find('PostgreSQL →');
	const paged = find('100,000 rows a page');
	const oneRun = find('100,000 rows in one run');
	const lines = [];
	if (alone && chain && chain.peakRss && alone.peakRss) {
		lines.push(
			`Chain, 10,000 rows: ${num(chain.wallMs / 1000, 1)} s for the whole run (node alone ${num(alone.wallMs / 1000, 1)} s: ${num(chain.wallMs / alone.wallMs, 2)}×), ` +
				`peak RSS ${mb(chain.peakRss)} (node alone ${mb(alone.peakRss)}: ${num(chain.peakRss / alone.peakRss, 2)}×), ${chain.synced} rows marked synced, ${chain.duplicates} sent twice`,
		);
	}
	if (oneRun) {
		lines.push(
			`One run, 100,000 rows: ${num(oneRun.wallMs / 1000, 1)} s, peak RSS ${mb(oneRun.peakRss)}, ${oneRun.applied} applied, ${oneRun.synced} rows marked synced`,
		);
	}
	if (paged) {
		lines.push(
			`Paged, 100,000 rows: ${num(paged.wallMs / 1000, 1)} s, peak RSS ${mb(paged.peakRss)}, ${paged.applied} applied, ${paged.duplicates} twice, ${paged.synced} rows marked synced`,
		);
	}
	return lines.join('\n');
}

/** @param {number | undefined} bytes */
const mb = (bytes) => (bytes === undefined ? '—' : `${Math.round(bytes / 1024 / 1024)} MB`);
/** @param {number | undefined} value */
const num = (value, digits = 0) => (value === undefined ? '—' : Number(value).toFixed(digits));

/** @param {Row[]} rows */
function table(rows) {
	const header =
		'| scenario | N | wall (s) | req/s | ms/item | p50 / p99 server latency (ms) | max in flight | peak RSS n8n | ok / failed | applied | duplicates |';
	const lines = [header, '|---|---|---|---|---|---|---|---|---|---|---|'];
	for (const row of rows) {
		const r = row.result;
		lines.push(
			`| ${row.name} | ${row.count} | ${num(r.wallMs / 1000, 1)} | ${num(r.requestsPerSec)} | ${num(r.msPerItem, 2)} | ${num(r.p50Ms)} / ${num(r.p99Ms)} | ${num(r.maxInFlight)} | ${mb(r.peakRss)} | ${r.succeeded} / ${r.failed} | ${r.applied} | ${r.duplicates} |`,
		);
	}
	return lines.join('\n');
}

/** @param {Row[]} rows */
function ratios(rows) {
	/** @param {string} name @param {number} count */
	const find = (name, count) =>
		rows.find((row) => row.name === name && row.count === count)?.result;
	const lines = [];
	for (const count of [...new Set(rows.map((row) => row.count))]) {
		const http = find('HTTP Request node', count);
		const probe = find('one-field declarative probe', count);
		const ours = find('Voice Assistant (Map Automatically)', count);
		const manual = find('Voice Assistant (fields mapped by expressions)', count);
		if (!http || !probe || !ours || !ours.msPerItem || !probe.msPerItem) continue;
		lines.push(
			`N = ${count}: throughput ours / HTTP Request = ${num(ours.requestsPerSec / http.requestsPerSec, 2)}×; ` +
				`per-item time ours / probe floor = ${num(ours.msPerItem / probe.msPerItem, 2)}×` +
				(manual?.msPerItem
					? ` (expressions per field: ${num(manual.msPerItem / probe.msPerItem, 2)}×)`
					: '') +
				`; peak RSS ours / HTTP Request = ${ours.peakRss && http.peakRss ? num(ours.peakRss / http.peakRss, 2) : '—'}×`,
		);
	}
	const slowHttp =
		find('HTTP Request node, 50 ms latency', 10_000) ??
		find('HTTP Request node, 50 ms latency', 1_000);
	const slowOurs = rows.find(
		(row) => row.name === 'Voice Assistant, 50 ms latency, 50 concurrent',
	)?.result;
	if (slowHttp && slowOurs) {
		lines.push(
			`50 ms latency: throughput ours (concurrency 50) / HTTP Request = ${num(slowOurs.requestsPerSec / slowHttp.requestsPerSec, 2)}×`,
		);
	}
	for (const row of rows.filter((r) => r.name.includes('rate limit') && r.rate)) {
		const ideal = (row.count / /** @type {number} */ (row.rate)) * 1000;
		lines.push(
			`${row.name}: ${row.result.applied} / ${row.count} applied, wall = ${num(row.result.wallMs / ideal, 2)} × N/R`,
		);
	}
	return lines.join('\n');
}

/** @param {number} part @param {number} whole */
const share = (part, whole) => `${num((100 * part) / whole, 1)}%`;

const HEADER_AUTH = 'HTTP Request node (Header Auth credential)';

/**
 * Ours against each HTTP Request baseline in the run: the key typed into a header, the key in a Header Auth credential.
 * @param {Row} ours
 * @param {Row | undefined} key
 * @param {Row | undefined} headerAuth
 */
function versusHttp(ours, key, headerAuth) {
	/** @param {Row | undefined} http @param {string} how */
	const versus = (http, how) =>
		http &&
		`${num(http.result.wallMs / ours.result.wallMs, 2)}× ${how} (${num(http.result.wallMs / 1000, 1)} s, ${num(http.result.maxInFlight)} in flight)`;
	return [
		versus(key, 'the HTTP Request node with the key in a header'),
		versus(headerAuth, 'the HTTP Request node with a Header Auth credential'),
	]
		.filter(Boolean)
		.join(', ');
}

/**
 * The default-settings rows against their targets, measured in the same run.
 * @param {Row[]} rows
 */
function defaultsReport(rows) {
	/** @param {string} name */
	const find = (name) => rows.find((row) => row.name === name);
	const lines = [];
	for (const latency of [100, 300]) {
		const ours = find(`Voice Assistant, ${latency} ms latency`);
		if (!ours) continue;
		const sequentialMs = ours.count * latency;
		lines.push(
			`${latency} ms latency, ${ours.count} updates: ours ${num(ours.result.wallMs / 1000, 1)} s (up to ${num(ours.result.maxInFlight)} in flight); ` +
				`${versusHttp(ours, find(`HTTP Request node, ${latency} ms latency`), find(`${HEADER_AUTH}, ${latency} ms latency`))}; ` +
				`${num(sequentialMs / ours.result.wallMs, 1)}× a sequential loop (${ours.count} × ${latency} ms = ${num(sequentialMs / 1000)} s)`,
		);
	}
	const limited = rows.filter((row) => row.name.includes('defaults, rate limit') && row.rate);
	for (const row of limited) {
		const ideal = (row.count / /** @type {number} */ (row.rate)) * 1000;
		const throttled = row.result.byStatus?.[429] ?? 0;
		lines.push(
			`${row.name}: ${row.result.applied} / ${row.count} applied, ${row.result.duplicates} twice, wall = ${num(row.result.wallMs / ideal, 2)} × N/R` +
				(row.result.sendingMs === undefined
					? ', '
					: ` (first request to last answer ${num(row.result.sendingMs / ideal, 2)} × N/R), `) +
				`429 answers ${throttled} of ${row.result.requests} requests (${share(throttled, row.result.requests ?? 0)})`,
		);
	}
	const http0 = find('HTTP Request node, defaults, no latency');
	const headerAuth0 = find(`${HEADER_AUTH}, defaults, no latency`);
	const ours0 = find('Voice Assistant (Map Automatically), defaults, no latency');
	const fixed = find('Voice Assistant (Map Automatically), fixed 10 in flight, no latency');
	if (ours0)
		lines.push(
			`no latency, ${ours0.count} updates: ours ${num(ours0.result.wallMs / 1000, 1)} s; ${versusHttp(ours0, http0, headerAuth0)}`,
		);
	if (fixed)
		lines.push(
			`no latency, fixed 10 in flight, adaptive off: ${versusHttp(fixed, http0, headerAuth0)}`,
		);
	for (const row of rows.filter((r) => r.name.includes('chaos, seed'))) {
		lines.push(
			`${row.name}: ${row.result.executionFailed ? 'execution failed' : 'execution succeeded'}, ${row.result.succeeded} ok / ${row.result.failed} failed, ` +
				`${row.result.applied} applied, ${row.result.duplicates} twice, ${row.result.requests} requests`,
		);
	}
	const calls = rows.find((row) =>
		row.name.startsWith('Voice Assistant call starts (POST), defaults'),
	);
	if (calls) {
		const cut = calls.result.byStatus?.[0] ?? 0;
		const reported = calls.result.failures?.['cut connection'] ?? 0;
		const kinds = Object.entries(calls.result.failures ?? {})
			.map(([kind, n]) => `${n} ${kind}`)
			.join(', ');
		lines.push(
			`${calls.count} call starts under chaos: ${calls.result.duplicates} sent twice, ${cut} cut connections, ${reported} items failed with a dropped connection ` +
				`(${reported === cut ? 'one per cut connection' : 'NOT one per cut connection'}); ${calls.result.failed} failed in all (${kinds}; a POST is not sent again after a 503), ` +
				`${calls.result.applied} calls started`,
		);
	}
	return lines.join('\n');
}

/**
 * Throughput, the engine's floor, 50 ms latency, a rate limit and chaos with tuned options.
 * @param {Sim} sim
 * @param {Ctx} ctx
 * @param {Recorder} record
 * @param {number[]} counts
 */
async function standardRows(sim, ctx, record, counts) {
	await setSimulator(sim, {});
	for (const count of counts) {
		await record('simulator capacity (autocannon, 10 connections)', count, () =>
			loadToolRow(sim, count),
		);
		await record('HTTP Request node', count, () =>
			n8nRow(ctx, sim, { id: `http${count}`, target: 'httpRequest', count }),
		);
		await record('one-field declarative probe', count, () =>
			n8nRow(ctx, sim, { id: `probe${count}`, target: 'probe', count }),
		);
		await record('Voice Assistant (Map Automatically)', count, () =>
			n8nRow(ctx, sim, { id: `ours${count}`, target: 'ours', count }),
		);
		await record('Voice Assistant (fields mapped by expressions)', count, () =>
			n8nRow(ctx, sim, { id: `manual${count}`, target: 'oursManual', count }),
		);
	}

	const slowCount = counts[counts.length - 1];
	await setSimulator(sim, { latencyMs: 50 });
	await record('HTTP Request node, 50 ms latency', slowCount, () =>
		n8nRow(ctx, sim, { id: `httpSlow${slowCount}`, target: 'httpRequest', count: slowCount }),
	);
	await record('Voice Assistant, 50 ms latency, 50 concurrent', slowCount, () =>
		n8nRow(ctx, sim, {
			id: `oursSlow${slowCount}`,
			target: 'ours',
			count: slowCount,
			options: { maxConcurrency: 50 },
		}),
	);

	const rate = 200;
	await setSimulator(sim, { rateLimit: { ratePerSec: rate } });
	for (const [name, target] of [
		['HTTP Request node', 'httpRequest'],
		['one-field declarative probe', 'probe'],
		['Voice Assistant (Map Automatically)', 'ours'],
	]) {
		await sleep(1500); // a full bucket for everyone
		await record(
			`${name}, rate limit ${rate}/s`,
			slowCount,
			() => n8nRow(ctx, sim, { id: `${target}Limited${slowCount}`, target, count: slowCount }),
			{ rate },
		);
	}

	await setSimulator(sim, { chaos: { rate429: 0.3, rate503: 0.05, rateReset: 0.01, seed: 11 } });
	await record(
		'Voice Assistant contact updates (PUT), chaos 30% 429 / 5% 503 / 1% resets',
		1_000,
		() =>
			n8nRow(ctx, sim, {
				id: 'oursChaos',
				target: 'ours',
				count: 1_000,
				options: { maxRetries: 20 },
			}),
	);
	await sim.reset();
	await record('Voice Assistant call starts (POST), same chaos', 1_000, () =>
		n8nRow(ctx, sim, {
			id: 'callsChaos',
			target: 'oursCalls',
			count: 1_000,
			options: { maxRetries: 20 },
		}),
	);
}

/** @type {Array<[string, string, import('./workflows').Shape]>} name, target, shape */
const MAPPING_ROWS = [
	[
		'HTTP Request node (Header Auth, body as one JSON expression: 2 expressions/item)',
		'httpRequestJsonBody',
		'api',
	],
	[
		'HTTP Request node (Header Auth, each field an expression: 4 expressions/item)',
		'httpRequestHeaderAuth',
		'api',
	],
	['Voice Assistant, Map Each Field Manually (4 expressions/item)', 'oursManual', 'api'],
	['Voice Assistant, Map Automatically, CRM column names in Input Columns', 'oursColumns', 'crm'],
	['Voice Assistant, Map Automatically (API names)', 'ours', 'api'],
];

/**
 * Issue 20's mapping rows: how a bulk run maps its input, no latency, defaults, on the n8n given.
 * @param {Sim} sim
 * @param {Ctx} ctx
 * @param {Recorder} record
 */
async function mappingRows(sim, ctx, record) {
	const count = 10_000;
	await setSimulator(sim, {});
	for (const [name, target, shape] of MAPPING_ROWS) {
		await record(name, count, () =>
			n8nRow(ctx, sim, { id: `mapping${target}`, target, count, shape }),
		);
	}
}

/** @param {Row[]} rows */
function mappingReport(rows) {
	/** @param {string} name */
	const find = (name) => rows.find((row) => row.name === name)?.result;
	const [httpJson, httpFields, manual, columns, auto] = MAPPING_ROWS.map(([name]) => find(name));
	if (!httpJson || !manual) return '';
	/** @param {Figures | undefined} ours @param {Figures | undefined} base */
	const versus = (ours, base) => (ours && base ? `${num(base.wallMs / ours.wallMs, 2)}×` : '—');
	return [
		`Mapping on n8n ${N8N_VERSION} (expression engine: ${process.env.N8N_EXPRESSION_ENGINE ?? 'the default'}), 10,000 updates, speed against the HTTP Request node:`,
		`  by expressions: ${num(manual.wallMs / 1000, 1)} s = ${versus(manual, httpJson)} HTTP Request with 2 expressions (${num(httpJson.wallMs / 1000, 1)} s), ${versus(manual, httpFields)} with the same 4 (${num(httpFields && httpFields.wallMs / 1000, 1)} s)`,
		columns
			? `  by CRM column names: ${num(columns.wallMs / 1000, 1)} s = ${versus(columns, httpJson)} / ${versus(columns, httpFields)}`
			: '',
		auto
			? `  Map Automatically (API names): ${num(auto.wallMs / 1000, 1)} s = ${versus(auto, httpJson)} / ${versus(auto, httpFields)}`
			: '',
	]
		.filter(Boolean)
		.join('\n');
}

/** @type {Array<[string, string]>} name, target: each real row followed by its dry run */
const DRY_RUN_ROWS = [
	['Voice Assistant, Map Automatically, real run', 'ours'],
	['Voice Assistant, Map Automatically, Dry Run', 'oursDry'],
	['Voice Assistant, Map Each Field Manually, real run', 'oursManual'],
	['Voice Assistant, Map Each Field Manually, Dry Run', 'oursManualDry'],
];

/**
 * Issue 28's rows: 10,000 contact updates for real (a simulator that answers at once) and dry, in
 * the same run; with --big, 100,000 dry for the peak memory.
 * @param {Sim} sim
 * @param {Ctx} ctx
 * @param {Recorder} record
 */
async function dryRunRows(sim, ctx, record) {
	const count = 10_000;
	await setSimulator(sim, {});
	for (const [name, target] of DRY_RUN_ROWS)
		await record(name, count, () => n8nRow(ctx, sim, { id: `dry${target}`, target, count }));
	if (args.has('--big'))
		await record('Voice Assistant, Map Automatically, Dry Run, big run', 100_000, () =>
			n8nRow(ctx, sim, { id: 'dryBig', target: 'oursDry', count: 100_000 }),
		);
}

/** @param {Row[]} rows */
function dryRunReport(rows) {
	/** @param {string} name */
	const find = (name) => rows.find((row) => row.name === name)?.result;
	const lines = [];
	for (let i = 0; i < DRY_RUN_ROWS.length; i += 2) {
		const real = find(DRY_RUN_ROWS[i][0]);
		const dry = find(DRY_RUN_ROWS[i + 1][0]);
		if (real && dry)
			lines.push(
				`${DRY_RUN_ROWS[i + 1][0]}: ${num(dry.wallMs / 1000, 1)} s, ${dry.requests} requests received (real run ${num(real.wallMs / 1000, 1)} s: the dry run takes ${num(dry.wallMs / real.wallMs, 2)}× its time), peak RSS ${mb(dry.peakRss)} (real ${mb(real.peakRss)})`,
			);
	}
	const big = find('Voice Assistant, Map Automatically, Dry Run, big run');
	if (big)
		lines.push(
			`Dry Run, 100,000 updates: ${num(big.wallMs / 1000, 1)} s, peak RSS ${mb(big.peakRss)}, ${big.requests} requests received`,
		);
	return lines.length ? `Dry Run on n8n ${N8N_VERSION}, 10,000 updates:\n${lines.join('\n')}` : '';
}

/**
 * A credential of the bench's account that sets its Rate Limit, imported into n8n.
 * @param {Ctx} ctx
 * @param {Sim} sim
 * @param {number} rate a second
 */
async function ratedCredential(ctx, sim, rate) {
	const credential = { id: `benchVaRated${rate}`, name: `Voice Assistant (bench, ${rate}/s)` };
	await importIntoN8n(ctx.bin, ctx.userFolder, {
		credentials: [
			{
				...credential,
				type: CREDENTIAL_TYPE,
				data: { apiKey: API_KEY, baseUrl: sim.url, rateLimit: rate },
			},
		],
	});
	return credential;
}

/**
 * The account's Rate Limit on the credential: behind a service limit set to it,
 * against an unlimited service, and instead of n8n's Batching (beside the HTTP Request node with
 * the same Batching).
 * @param {Sim} sim
 * @param {Ctx} ctx
 * @param {Recorder} record
 */
async function capRows(sim, ctx, record) {
	const rate = 200;
	const rated = (/** @type {number} */ perSecond) => ratedCredential(ctx, sim, perSecond);
	await setSimulator(sim, { rateLimit: { ratePerSec: rate } });
	await record(
		`Voice Assistant (Map Automatically), credential's Rate Limit ${rate}, rate limit ${rate}/s`,
		10_000,
		async () => {
			const credential = await rated(rate);
			await sleep(1500); // a full bucket
			return await n8nRow(ctx, sim, {
				id: 'oursCapLimited',
				target: 'ours',
				count: 10_000,
				credential,
			});
		},
		{ rate },
	);
	await setSimulator(sim, {});
	await record(
		"Voice Assistant (Map Automatically), credential's Rate Limit 100, no limit",
		3_000,
		async () =>
			n8nRow(ctx, sim, {
				id: 'oursCapUnlimited',
				target: 'ours',
				count: 3_000,
				credential: await rated(100),
			}),
	);
	const batching = { batchSize: 10, batchInterval: 1000 };
	await record('HTTP Request node, Batching 10 per 1 s', 50, () =>
		n8nRow(ctx, sim, { id: 'httpBatching', target: 'httpRequest', count: 50, batching }),
	);
	await record('Voice Assistant (Map Automatically), Batching 10 per 1 s', 50, () =>
		n8nRow(ctx, sim, { id: 'oursBatching', target: 'ours', count: 50, batching }),
	);
	await record("Voice Assistant (Map Automatically), credential's Rate Limit 10", 50, async () =>
		n8nRow(ctx, sim, { id: 'oursCap10', target: 'ours', count: 50, credential: await rated(10) }),
	);
}

/**
 * The Rate Limit rows against the issue's targets.
 * @param {Row[]} rows
 */
function capReport(rows) {
	const lines = [];
	for (const row of rows.filter((r) => /Rate Limit|Batching/.test(r.name) && !r.result.strict)) {
		const { result } = row;
		const throttled = result.byStatus?.[429] ?? 0;
		const sending = result.sendingMs ?? 0;
		const ideal = row.rate ? (row.count / row.rate) * 1000 : undefined;
		lines.push(
			`${row.name}: ${result.applied} / ${row.count} applied, whole run ${num(result.wallMs / 1000, 1)} s, ` +
				`first request after ${num((result.wallMs - sending) / 1000, 1)} s, at most ${result.mostInAnySecond} requests received in any 1,000 ms (${result.mostInAClockSecond} in a second of the clock)` +
				(ideal
					? `, wall ${num(result.wallMs / ideal, 3)} × N/R, first request to last answer ${num(sending / ideal, 3)} × N/R, 429 answers ${throttled} of ${result.requests} (${share(throttled, result.requests ?? 0)})`
					: ''),
		);
	}
	return lines.length ? `The credential's Rate Limit:\n${lines.join('\n')}` : '';
}

/** The strict service's limit: at most this many requests accepted in any 1,000 ms. */
const STRICT_RATE = 200;
/** Where the start of a strict row ends: its worst second is also given from then on. */
const STRICT_SETTLE_MS = 5_000;

/**
 * Behind a strict service (the simulator's strictRate: at most 200 requests accepted in any
 * trailing 1,000 ms, one beyond answered 429 with Retry-After and not counted), 10,000 updates
 * with the credential's Rate Limit at the service's 200, and with none (default settings: the
 * rate learned from 429s, then read from the count the service states on every answer). Each row
 * also reads every request's arrival at the service.
 * @param {Sim} sim
 * @param {Ctx} ctx
 * @param {Recorder} record
 */
async function strictRows(sim, ctx, record) {
	const rate = STRICT_RATE;
	const count = 10_000;
	await setSimulator(sim, { strictRate: { perSecond: rate } });
	/** @param {string} id @param {{ id: string, name: string }} [credential] @returns {Promise<Figures>} */
	const strictRow = async (id, credential) => {
		const figures = await n8nRow(ctx, sim, { id, target: 'ours', count, credential });
		const strict = strictFigures(await sim.requests(), { settleMs: STRICT_SETTLE_MS });
		return { ...figures, strict };
	};
	await record(
		`Voice Assistant (Map Automatically), credential's Rate Limit ${rate}, strict service ${rate}/s`,
		count,
		async () => strictRow('oursStrictRated', await ratedCredential(ctx, sim, rate)),
		{ rate },
	);
	await record(
		`Voice Assistant (Map Automatically), defaults, strict service ${rate}/s`,
		count,
		() => strictRow('oursStrictDefaults'),
		{ rate },
	);
	// The same service stating its count on every answer (the IETF draft's fields, a second's window
	// and a minute's): automatic pacing reads the limit from it.
	await setSimulator(sim, {
		strictRate: { perSecond: rate, perMinute: rate * 60 },
		statedCount: { fields: 'ietf' },
	});
	await record(
		`Voice Assistant (Map Automatically), defaults, strict service ${rate}/s stating its count`,
		count,
		() => strictRow('oursStrictStated'),
		{ rate },
	);
	await setSimulator(sim, { strictRate: null, statedCount: null });
}

/**
 * The strict rows against the issue's targets (the Rate Limit within 1.03 × N/R, automatic within
 * 1.10 × N/R, at most 2% 429s), each with the node's summary line.
 * @param {Row[]} rows
 */
function strictReport(rows) {
	const lines = [];
	for (const row of rows) {
		const { result, rate } = row;
		const strict = result.strict;
		if (!strict || !rate) continue;
		const ideal = (row.count / rate) * 1000;
		const sending = result.sendingMs ?? 0;
		const settle = num(strict.settleMs / 1000);
		lines.push(
			`${row.name}: ${result.applied} / ${row.count} applied, ${result.duplicates} twice, ${result.failed} failed; ` +
				`whole run ${num(result.wallMs / 1000, 1)} s = ${num(result.wallMs / ideal, 3)} × N/R, ` +
				`first request to last answer ${num(sending / 1000, 1)} s = ${num(sending / ideal, 3)} × N/R (N/R = ${num(ideal / 1000)} s); ` +
				`429 answers ${strict.answered429} of ${strict.requests} requests (${share(strict.answered429, strict.requests)}); ` +
				`in any 1,000 ms at the service (arrivedAt): at most ${strict.mostAcceptedInAnySecond} accepted, ${strict.mostSentInAnySecond} arrived (429s included); ` +
				`from ${settle} s after the first arrival on: ${strict.mostAcceptedAfterSettle} accepted, ${strict.mostSentAfterSettle} arrived`,
			`  ${result.summaryLine ?? '(no summary line)'}`,
		);
	}
	return lines.length
		? `Behind a strict service (at most ${STRICT_RATE} accepted in any 1,000 ms), n8n ${N8N_VERSION}:\n${lines.join('\n')}`
		: '';
}

/** @type {Array<[string, string, Record<string, unknown>]>} how the node is set, its workflows' id, its options */
const ONE_429_SETTINGS = [
	['Max Concurrent Requests 1', 'Max1', { maxConcurrency: 1 }],
	['defaults', 'Defaults', {}],
];

/**
 * Issue 45's rows: the service answers the very first update 429 (Retry-After 1 s), then takes
 * everything; beside the same updates against an open service throughout, in the same run.
 * @param {Sim} sim
 * @param {Ctx} ctx
 * @param {Recorder} record
 */
async function one429Rows(sim, ctx, record) {
	const count = 200;
	for (const [setting, id, options] of ONE_429_SETTINGS) {
		await setSimulator(sim, {});
		await record(`Voice Assistant, ${setting}, open service (one 429's baseline)`, count, () =>
			n8nRow(ctx, sim, { id: `oursOpen${id}`, target: 'ours', count, options }),
		);
		await setSimulator(sim, { throttleFirst: { count: 1, retryAfterSeconds: 1 } });
		await record(`Voice Assistant, ${setting}, one 429 then an open service`, count, () =>
			n8nRow(ctx, sim, { id: `oursOne429${id}`, target: 'ours', count, options }),
		);
	}
}

/**
 * Each one-429 row against its open-service baseline (target: within 5 s of it).
 * @param {Row[]} rows
 */
function one429Report(rows) {
	/** @param {string} name */
	const find = (name) => rows.find((row) => row.name === name)?.result;
	const lines = [];
	for (const [setting] of ONE_429_SETTINGS) {
		const open = find(`Voice Assistant, ${setting}, open service (one 429's baseline)`);
		const one = find(`Voice Assistant, ${setting}, one 429 then an open service`);
		if (!open || !one) continue;
		lines.push(
			`${setting}, ${one.succeeded + one.failed} updates: one 429 then an open service ${num(one.wallMs / 1000, 1)} s, ` +
				`open service ${num(open.wallMs / 1000, 1)} s: ${num((one.wallMs - open.wallMs) / 1000, 1)} s more; ` +
				`${one.applied} applied, ${one.requests} requests (429 answers ${one.byStatus?.[429] ?? 0})`,
		);
	}
	return lines.length
		? `One 429 (Retry-After 1 s), then an open service:\n${lines.join('\n')}`
		: '';
}

/**
 * Issue 10's rows: default settings on both sides, the HTTP Request node in the same run.
 * @param {Sim} sim
 * @param {Ctx} ctx
 * @param {Recorder} record
 */
async function defaultsRows(sim, ctx, record) {
	const count = 2_000;
	for (const latency of [100, 300]) {
		await setSimulator(sim, { latencyMs: latency });
		await record(`HTTP Request node, ${latency} ms latency`, count, () =>
			n8nRow(ctx, sim, { id: `httpLatency${latency}`, target: 'httpRequest', count }),
		);
		await record(`${HEADER_AUTH}, ${latency} ms latency`, count, () =>
			n8nRow(ctx, sim, {
				id: `headerAuthLatency${latency}`,
				target: 'httpRequestHeaderAuth',
				count,
			}),
		);
		await record(`Voice Assistant, ${latency} ms latency`, count, () =>
			n8nRow(ctx, sim, { id: `oursLatency${latency}`, target: 'ours', count }),
		);
	}

	const big = 10_000;
	await setSimulator(sim, {});
	await record('HTTP Request node, defaults, no latency', big, () =>
		n8nRow(ctx, sim, { id: 'httpDefaults', target: 'httpRequest', count: big }),
	);
	await record(`${HEADER_AUTH}, defaults, no latency`, big, () =>
		n8nRow(ctx, sim, { id: 'headerAuthDefaults', target: 'httpRequestHeaderAuth', count: big }),
	);
	await record('Voice Assistant (Map Automatically), defaults, no latency', big, () =>
		n8nRow(ctx, sim, { id: 'oursDefaults', target: 'ours', count: big }),
	);
	await record('Voice Assistant (Map Automatically), fixed 10 in flight, no latency', big, () =>
		n8nRow(ctx, sim, {
			id: 'oursFixed10',
			target: 'ours',
			count: big,
			options: { adaptiveConcurrency: false, maxConcurrency: 10 },
		}),
	);

	const rate = 200;
	await setSimulator(sim, { rateLimit: { ratePerSec: rate } });
	for (const [name, target] of [
		['HTTP Request node', 'httpRequest'],
		['Voice Assistant (Map Automatically)', 'ours'],
	]) {
		await sleep(1500); // a full bucket for everyone
		await record(
			`${name}, defaults, rate limit ${rate}/s`,
			big,
			() => n8nRow(ctx, sim, { id: `${target}DefaultsLimited`, target, count: big }),
			{ rate },
		);
	}
	// A limited service that is also slow to answer: slow start's overshoot costs most here.
	await setSimulator(sim, { rateLimit: { ratePerSec: rate }, latencyMs: 100 });
	await sleep(1500);
	await record(
		`Voice Assistant (Map Automatically), defaults, rate limit ${rate}/s, 100 ms latency`,
		big,
		() => n8nRow(ctx, sim, { id: 'oursDefaultsLimitedSlow', target: 'ours', count: big }),
		{ rate },
	);

	for (const seed of [1, 2, 3]) {
		await setSimulator(sim, {
			chaos: { rate429: 0.3, rate503: 0.05, rateReset: 0.01, retryAfterSeconds: 1, seed },
		});
		await record(`HTTP Request node, chaos, seed ${seed}`, count, () =>
			n8nRow(ctx, sim, { id: `httpChaos${seed}`, target: 'httpRequest', count }),
		);
		await sim.reset();
		await record(`Voice Assistant, chaos, seed ${seed}`, count, () =>
			n8nRow(ctx, sim, { id: `oursChaos${seed}`, target: 'ours', count }),
		);
	}
	await setSimulator(sim, {
		chaos: { rate429: 0.3, rate503: 0.05, rateReset: 0.01, retryAfterSeconds: 1, seed: 4 },
	});
	await record('Voice Assistant call starts (POST), defaults, chaos', 300, () =>
		n8nRow(ctx, sim, { id: 'callsDefaultsChaos', target: 'oursCalls', count: 300 }),
	);
}

async function main() {
	if (args.has('--help')) {
		log(
			'npm run bench [-- --quick | --big | --defaults | --only=REGEX]: bulk contact updates in a real n8n, figures in bench/results/ (see docs/performance.md)',
		);
		return;
	}
	const quick = args.has('--quick');
	const defaultsOnly = args.has('--defaults');
	const counts = quick ? [1_000] : [1_000, 10_000];
	const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'voice-assistant-bench-'));
	const userFolder = path.join(dir, 'user');
	log(`Benchmark in ${dir}`);
	const bin = await ensureN8n(N8N_VERSION, log);
	const tarball = await buildAndPack(dir, log);
	await installPackage(userFolder, tarball);
	installProbe(userFolder);

	const sim = await startSimulatorProcess({ apiKey: API_KEY, logDir: dir });
	await importIntoN8n(bin, userFolder, {
		credentials: [
			{
				...CREDENTIALS.voiceAssistant,
				type: CREDENTIAL_TYPE,
				data: { apiKey: API_KEY, baseUrl: sim.url },
			},
			{ ...CREDENTIALS.probe, type: 'benchProbeApi', data: { apiKey: API_KEY, baseUrl: sim.url } },
			{
				...CREDENTIALS.headerAuth,
				type: 'httpHeaderAuth',
				data: { name: 'x-api-key', value: API_KEY },
			},
		],
	});
	/** @type {Ctx} */
	const ctx = { bin, userFolder, dir };
	/** @type {Row[]} */
	const rows = [];
	/** @type {Recorder} */
	const record = async (name, count, run, extra = {}) => {
		if (only && !only.test(name)) return;
		log(`▶ ${name}, N = ${count}`);
		const result = await run();
		rows.push({ name, count, result, ...extra });
		log(
			`  ${num(result.wallMs / 1000, 1)} s, ${num(result.requestsPerSec)} req/s, ${result.succeeded} ok / ${result.failed} failed, peak RSS ${mb(result.peakRss)}`,
		);
		if (args.has('--log-lines')) for (const line of result.logLines ?? []) log(`  ${line}`);
		else if (result.summaryLine) log(`  ${result.summaryLine}`);
	};
	const load = () =>
		os
			.loadavg()
			.map((value) => value.toFixed(2))
			.join(', ');
	const loadBefore = load();

	try {
		if (args.has('--dry-run')) await dryRunRows(sim, ctx, record);
		else if (args.has('--mapping')) await mappingRows(sim, ctx, record);
		else if (args.has('--chain')) await chainRows(sim, ctx, record);
		else {
			if (!defaultsOnly) await standardRows(sim, ctx, record, counts);
			await defaultsRows(sim, ctx, record);
			await capRows(sim, ctx, record);
			await strictRows(sim, ctx, record);
			await one429Rows(sim, ctx, record);
		}

		if (args.has('--big') && !args.has('--chain') && !args.has('--dry-run')) {
			await setSimulator(sim, {});
			await record('Voice Assistant (Map Automatically), big run', 100_000, () =>
				n8nRow(ctx, sim, { id: 'oursBig', target: 'ours', count: 100_000 }),
			);
		}
	} finally {
		await sim.stop();
	}

	const machine = `${os.cpus().length} × ${os.cpus()[0]?.model ?? 'CPU'}, ${Math.round(os.totalmem() / 2 ** 30)} GiB, Node.js ${process.version}, n8n ${N8N_VERSION}`;
	const loadLine = `Load average (1, 5, 15 min): ${loadBefore} at the start, ${load()} at the end`;
	const report = `Machine: ${machine}\n${loadLine}\n\n${table(rows)}\n\n${ratios(rows)}\n\nDefault settings on both sides:\n${defaultsReport(rows)}\n\n${mappingReport(rows)}\n\n${chainReport(rows)}\n\n${dryRunReport(rows)}\n\n${capReport(rows)}\n\n${strictReport(rows)}\n\n${one429Report(rows)}\n`;
	log(`\n${report}`);
	const results = path.join(__dirname, 'results');
	fs.mkdirSync(results, { recursive: true });
	// --defaults alone keeps the full run's figures in latest.*; its rows go to defaults.* (both feed the chart).
	const name = only
		? 'only'
		: args.has('--dry-run')
			? `dry-run-${N8N_VERSION}`
			: args.has('--mapping')
				? `mapping-${N8N_VERSION}`
				: args.has('--chain')
					? `chain-${N8N_VERSION}`
					: defaultsOnly
						? 'defaults'
						: 'latest';
	fs.writeFileSync(path.join(results, `${name}.md`), report);
	fs.writeFileSync(
		path.join(results, `${name}.json`),
		JSON.stringify({ machine, load: loadLine, rows }, null, 2),
	);
	fs.rmSync(dir, { recursive: true, force: true });
}

/** The probe package has no dependencies: copying it where n8n scans for community packages is enough. @param {string} userFolder */
function installProbe(userFolder) {
	const nodesDir = path.join(userFolder, '.n8n', 'nodes');
	fs.cpSync(
		path.join(__dirname, 'probe-node'),
		path.join(nodesDir, 'node_modules', 'n8n-nodes-bench-probe'),
		{
			recursive: true,
		},
	);
	const manifestPath = path.join(nodesDir, 'package.json');
	const manifest = JSON.parse(fs.readFileSync(manifestPath, 'utf8'));
	manifest.dependencies['n8n-nodes-bench-probe'] = '1.0.0';
	fs.writeFileSync(manifestPath, JSON.stringify(manifest, null, 2));
}

main().catch((error) => {
	console.error(error);
	process.exit(1);
});
