'use strict';

/**
 * `npm run test:properties`: the unit test files with fast-check properties (those importing
 * fast-check), run again and again with a fresh seed each time (FC_SEED, which test/setup.ts
 * reads), until one run fails or all have passed. A property that fails by chance shows here
 * before it rejects someone's work in CI. Options: `--runs N` (15), `--seed S` (the first run's
 * seed; the next run takes S + 1…), and test files to run instead of every property file. A
 * failure prints jest's output, which names the failed property's own replay, and the command
 * that runs the same seed again; it ends the loop with exit code 1. No shell is involved, so it
 * runs alike on Windows: `npm run test:properties -- --runs 30`.
 */
const { spawnSync } = require('child_process');
const crypto = require('crypto');
const fs = require('fs');
const path = require('path');
const { REPO_ROOT } = require('../tools/repo');

/** The folders below test/ whose files are not unit tests (jest.config.js leaves them out). */
const NOT_UNIT = new Set(['e2e', 'queue', 'helpers', 'simulator']);

/**
 * The unit test files (paths from the repo's root, `/` between folders) that check a property.
 * @param {string} [dir]
 * @returns {string[]}
 */
function propertyFiles(dir = path.join(REPO_ROOT, 'test')) {
	return fs
		.readdirSync(dir, { withFileTypes: true })
		.flatMap((entry) => {
			const full = path.join(dir, entry.name);
			if (entry.isDirectory()) return NOT_UNIT.has(entry.name) ? [] : propertyFiles(full);
			if (!entry.name.endsWith('.test.ts')) return [];
			return /^import fc from 'fast-check';$/m.test(fs.readFileSync(full, 'utf8'))
				? [path.relative(REPO_ROOT, full).split(path.sep).join('/')]
				: [];
		})
		.sort();
}

/**
 * The options of a command line: how many runs, the first seed (undefined: a random one each
 * run), the files (none: every property file).
 * @param {string[]} args
 */
function readArgs(args) {
	/** @type {{ runs: number, seed: number | undefined, files: string[] }} */
	const options = { runs: 15, seed: undefined, files: [] };
	for (let i = 0; i < args.length; i++) {
		const [name, value] = [args[i], args[i + 1]];
		if (name === '--runs' || name === '--seed') {
			if (!/^-?\d+$/.test(value ?? ''))
				throw new Error(`${name} takes a whole number, not ${value}`);
			options[name === '--runs' ? 'runs' : 'seed'] = Number(value);
			i++;
		} else options.files.push(name);
	}
	if (options.runs < 1) throw new Error('--runs must be at least 1');
	return options;
}

/**
 * The command that runs `files` again with `seed`, in any shell.
 * @param {number} seed
 * @param {string[]} files
 */
const replayCommand = (seed, files) =>
	`npm run test:properties -- --runs 1 --seed ${seed} ${files.join(' ')}`;

/** @param {number} ms */
const seconds = (ms) => `${(ms / 1000).toFixed(1)} s`;

/** The commit checked out, for the figures (undefined outside a git clone). */
function commit() {
	const git = spawnSync('git', ['rev-parse', '--short', 'HEAD'], {
		cwd: REPO_ROOT,
		encoding: 'utf8',
	});
	return git.status === 0 ? git.stdout.trim() : undefined;
}

function main() {
	const options = readArgs(process.argv.slice(2));
	const files = options.files.length > 0 ? options.files : propertyFiles();
	const jest = path.join(REPO_ROOT, 'node_modules', 'jest', 'bin', 'jest.js');
	console.log(`${options.runs} runs of ${files.join(', ')}`);
	const started = Date.now();
	for (let run = 1; run <= options.runs; run++) {
		const seed = options.seed === undefined ? crypto.randomInt(2 ** 31) : options.seed + run - 1;
		const from = Date.now();
		const result = spawnSync(process.execPath, [jest, '--runTestsByPath', ...files], {
			cwd: REPO_ROOT,
			env: { ...process.env, FC_SEED: String(seed) },
			encoding: 'utf8',
			maxBuffer: 256 * 1024 * 1024,
		});
		if (result.error) throw result.error;
		const took = seconds(Date.now() - from);
		if (result.status !== 0) {
			process.stdout.write(result.stdout);
			process.stderr.write(result.stderr);
			console.log(`\nrun ${run} of ${options.runs} failed (FC_SEED=${seed}, ${took}).`);
			console.log(`Run the same seed again:\n  ${replayCommand(seed, files)}`);
			process.exit(1);
		}
		console.log(`run ${run} of ${options.runs}: passed (FC_SEED=${seed}, ${took})`);
	}
	const total = Date.now() - started;
	const at = [new Date().toISOString().slice(0, 10), commit()].filter(Boolean).join(', ');
	console.log(
		`${options.runs} runs in a row passed, none failed: ${seconds(total)} in all, ` +
			`${seconds(total / options.runs)} a run (${at})`,
	);
}

if (require.main === module) main();

module.exports = { propertyFiles, readArgs, replayCommand };
