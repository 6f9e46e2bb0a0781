#!/usr/bin/env node
'use strict';

/**
 * Starts the simulator as its own process and prints one line of JSON,
 * {"url":"http://HOST:PORT"}, once it is listening. SIGINT/SIGTERM close it
 * (saving the data file). Other processes steer it through /__sim/*.
 *
 *   node test/simulator/cli.js --port 0 --host 127.0.0.1 --api-key KEY
 *     [--data-file path.json] [--latency-ms N] [--rate-limit R] [--burst B]
 *     [--strict-rate N] [--strict-window-ms MS]
 *     [--chaos-429 0.3 --chaos-503 0.05 --chaos-reset 0.01 --seed 1]
 *
 * --rate-limit is the token bucket (rateLimit), --strict-rate the strict sliding window
 * (strictRate: at most N accepted in any trailing --strict-window-ms, default 1000). A bad value
 * exits with status 2, as an unknown argument does.
 */

const { createSimulator } = require('./index');

const USAGE =
	'usage: node test/simulator/cli.js --api-key KEY [--port 0] [--host 127.0.0.1] [--data-file path.json]\n' +
	'  [--latency-ms N] [--rate-limit R] [--burst B] [--strict-rate N] [--strict-window-ms MS]\n' +
	'  [--chaos-429 P] [--chaos-503 P] [--chaos-reset P] [--seed N]\n';

const FLAGS = [
	'port',
	'host',
	'api-key',
	'data-file',
	'latency-ms',
	'rate-limit',
	'burst',
	'strict-rate',
	'strict-window-ms',
	'chaos-429',
	'chaos-503',
	'chaos-reset',
	'seed',
];

/** @param {string[]} argv @returns {Record<string, string>} */
function parseArgs(argv) {
	/** @type {Record<string, string>} */
	const args = {};
	for (let i = 0; i < argv.length; i++) {
		const arg = argv[i];
		if (arg === '--help' || arg === '-h') {
			process.stdout.write(USAGE);
			process.exit(0);
		}
		const match = /^--([a-z0-9-]+)(?:=(.*))?$/.exec(arg);
		if (!match || !FLAGS.includes(match[1])) throw new Error(`unknown argument: ${arg}`);
		const value = match[2] ?? argv[++i];
		if (value === undefined) throw new Error(`missing value for --${match[1]}`);
		args[match[1]] = value;
	}
	return args;
}

/** @param {string | undefined} value @param {string} flag */
function number(value, flag) {
	if (value === undefined) return undefined;
	const n = Number(value);
	if (value.trim() === '' || !Number.isFinite(n)) throw new Error(`--${flag} must be a number`);
	return n;
}

/** @param {Record<string, string>} args */
function toOptions(args) {
	if (!args['api-key']) throw new Error('--api-key is required');
	const ratePerSec = number(args['rate-limit'], 'rate-limit');
	const burst = number(args.burst, 'burst');
	const perSecond = number(args['strict-rate'], 'strict-rate');
	const windowMs = number(args['strict-window-ms'], 'strict-window-ms');
	if (windowMs !== undefined && perSecond === undefined) {
		throw new Error('--strict-window-ms needs --strict-rate');
	}
	const rate429 = number(args['chaos-429'], 'chaos-429');
	const rate503 = number(args['chaos-503'], 'chaos-503');
	const rateReset = number(args['chaos-reset'], 'chaos-reset');
	const anyChaos = [rate429, rate503, rateReset].some((rate) => rate !== undefined);
	return {
		apiKey: args['api-key'],
		host: args.host ?? '127.0.0.1',
		port: number(args.port, 'port') ?? 0,
		dataFile: args['data-file'],
		latencyMs: number(args['latency-ms'], 'latency-ms') ?? 0,
		rateLimit: ratePerSec === undefined ? undefined : { ratePerSec, burst },
		strictRate: perSecond === undefined ? undefined : { perSecond, windowMs },
		chaos: anyChaos
			? { rate429, rate503, rateReset, seed: number(args.seed, 'seed') ?? 1 }
			: undefined,
	};
}

async function main() {
	let options;
	try {
		options = toOptions(parseArgs(process.argv.slice(2)));
	} catch (error) {
		process.stderr.write(`${error.message}\n${USAGE}`);
		process.exit(2);
	}
	let sim;
	try {
		sim = await createSimulator(options);
	} catch (error) {
		// A TypeError is a load mode's value refused (--strict-rate 1.5): a bad argument.
		if (!(error instanceof TypeError)) throw error;
		process.stderr.write(`${error.message}\n${USAGE}`);
		process.exit(2);
	}
	process.stdout.write(`${JSON.stringify({ url: sim.url })}\n`);

	let stopping = false;
	const stop = () => {
		if (stopping) process.exit(1); // a second signal means "now"
		stopping = true;
		sim.close().then(
			() => process.exit(0),
			(error) => {
				process.stderr.write(`simulator: ${error.message}\n`);
				process.exit(1);
			},
		);
	};
	process.on('SIGINT', stop);
	process.on('SIGTERM', stop);
}

main().catch((error) => {
	process.stderr.write(`simulator: ${error.message}\n`);
	process.exit(1);
});
