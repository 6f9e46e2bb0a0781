'use strict';

/**
 * The API simulator (test/simulator/cli.js) as a separate process, steered and read through
 * its /__sim control endpoints, the way a real n8n process sees it: over HTTP on 127.0.0.1.
 */

const path = require('path');
const { sleep, startProcess } = require('./processes');

const CLI = path.resolve(__dirname, '..', '..', 'simulator', 'cli.js');

/**
 * @param {{ apiKey: string, port?: number, dataFile?: string, logDir?: string }} options
 */
async function startSimulator({ apiKey, port = 0, dataFile, logDir }) {
	const args = [CLI, '--host', '127.0.0.1', '--port', String(port), '--api-key', apiKey];
	if (dataFile) args.push('--data-file', dataFile);
	const proc = startProcess(process.execPath, args, { logDir, name: 'simulator' });
	let exited = false;
	proc.exited.then(() => (exited = true));
	const deadline = Date.now() + 15_000;
	let url;
	while (!url) {
		const line = proc.readStdout().split('\n')[0];
		if (line.trim().startsWith('{')) url = JSON.parse(line).url;
		else if (exited || Date.now() > deadline) {
			await proc.stop();
			throw new Error(`The simulator did not start:\n${proc.readStderr()}`);
		} else await sleep(50);
	}

	async function control(method, pathname, body) {
		const response = await fetch(`${url}/__sim${pathname}`, {
			method,
			headers: body === undefined ? {} : { 'content-type': 'application/json' },
			body: body === undefined ? undefined : JSON.stringify(body),
		});
		if (!response.ok) throw new Error(`${method} /__sim${pathname} answered ${response.status}: ${await response.text()}`);
		return response.json();
	}

	return {
		url,
		proc,
		requests: () => control('GET', '/requests'),
		ledger: () => control('GET', '/ledger'),
		data: () => control('GET', '/data'),
		reset: () => control('POST', '/reset'),
		failNext: (spec) => control('POST', '/fail-next', spec),
		/** Load modes (rate limit, latency, chaos) while it runs: only the keys given change. */
		setOptions: (modes) => control('POST', '/options', modes),
		/** Counts by status, latency percentiles, applied/duplicated changes (small however many requests). */
		summary: () => control('GET', '/summary'),
		/** SIGTERM: the simulator saves its data file and exits. */
		stop: () => proc.stop(10_000),
	};
}

module.exports = { startSimulator };
