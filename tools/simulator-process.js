'use strict';

/**
 * The API simulator (test/simulator/cli.js) as a separate process, steered and read through
 * its /__sim control endpoints, the way a real n8n process sees it: over HTTP on 127.0.0.1.
 * The e2e suite, the demo, the benchmark and `npm run example` use it; the unit tests run the
 * same simulator in process (createSimulator in test/simulator, the same operations as methods).
 */

const path = require('path');
const { poll, startProcess } = require('./processes');

const CLI = path.resolve(__dirname, '..', 'test', 'simulator', 'cli.js');

/**
 * @typedef {import('../test/simulator').RecordedRequest} RecordedRequest
 * @typedef {{
 *   total: number, maxInFlight: number, byStatus: Record<string, number>, p50Ms: number, p99Ms: number,
 *   firstAt?: number, lastAt?: number, mostInAnySecond: number, mostInAClockSecond: number, appliedChanges: number, distinctChanges: number, duplicatedChanges: number,
 * }} SimulatorSummary what GET /__sim/summary answers (test/simulator/control.js)
 * @typedef {{ applied: Array<{ op: string, id?: string, body: any }>, countsByKey: Record<string, number> }} LedgerJson
 * @typedef {{
 *   assistants: Array<Record<string, any>>,
 *   knowledgeBases: Record<string, import('../test/simulator').KnowledgeBase>,
 *   contacts: Record<string, Record<string, any>>,
 *   calls: Array<Record<string, any>>,
 * }} DataJson
 */

/**
 * The control client of a simulator running at `url` (test/simulator/control.js answers it).
 * @param {string} url
 */
function simulatorControl(url) {
	/**
	 * @param {string} method
	 * @param {string} pathname
	 * @param {unknown} [body]
	 * @returns {Promise<any>}
	 */
	async function control(method, pathname, body) {
		const response = await fetch(`${url}/__sim${pathname}`, {
			method,
			headers: body === undefined ? {} : { 'content-type': 'application/json' },
			body: body === undefined ? undefined : JSON.stringify(body),
		});
		if (!response.ok)
			throw new Error(
				`${method} /__sim${pathname} answered ${response.status}: ${await response.text()}`,
			);
		return response.json();
	}

	return {
		/** @returns {Promise<RecordedRequest[]>} */
		requests: () => control('GET', '/requests'),
		/** @returns {Promise<LedgerJson>} */
		ledger: () => control('GET', '/ledger'),
		/** @returns {Promise<DataJson>} */
		data: () => control('GET', '/data'),
		/**
		 * Counts by status, latency percentiles, applied/duplicated changes (small however many requests).
		 * @returns {Promise<SimulatorSummary>}
		 */
		summary: () => control('GET', '/summary'),
		reset: () => control('POST', '/reset'),
		/** @param {import('../test/simulator').FailureSpec} spec */
		failNext: (spec) => control('POST', '/fail-next', spec),
		/**
		 * Load modes (rate limit, latency, chaos) while it runs: only the keys given change; null switches a mode off.
		 * @param {import('../test/simulator').ModeOptions} modes
		 */
		setOptions: (modes) => control('POST', '/options', modes),
	};
}

/**
 * Starts the simulator's CLI in its own process group and waits for the line with its URL.
 * @param {{ apiKey: string, port?: number, dataFile?: string, logDir?: string }} options
 */
async function startSimulatorProcess({ apiKey, port = 0, dataFile, logDir }) {
	const args = [CLI, '--host', '127.0.0.1', '--port', String(port), '--api-key', apiKey];
	if (dataFile) args.push('--data-file', dataFile);
	const proc = startProcess(process.execPath, args, { logDir, name: 'simulator' });
	/** @type {string} */
	let url;
	try {
		// Its first line: {"url": ...}
		url = await poll(
			'the simulator',
			() => {
				const line = proc.readStdout().split('\n')[0];
				return line.trim().startsWith('{') ? JSON.parse(line).url : undefined;
			},
			{ timeoutMs: 15_000, everyMs: 50, proc },
		);
	} catch (error) {
		await proc.stop();
		throw error;
	}

	return {
		url,
		proc,
		...simulatorControl(url),
		/** SIGTERM: the simulator saves its data file and exits. */
		stop: () => proc.stop(10_000),
	};
}

/** @typedef {ReturnType<typeof simulatorControl>} SimulatorControl */
/** @typedef {Awaited<ReturnType<typeof startSimulatorProcess>>} SimulatorProcess */

module.exports = { simulatorControl, startSimulatorProcess };
