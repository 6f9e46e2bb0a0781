'use strict';

/**
 * `npm run lint`, the same on every system (no shell syntax in package.json, which cmd.exe on
 * Windows would not read as sh does): n8n's lint (ESLint, each file with the eslint.config.mjs
 * nearest to it), the type check of everything (tsconfig.test.json), Prettier, then n8n's
 * scan (scripts/scan-package.js). The steps run in that order and the first that fails ends the
 * run with its exit code, as `a && b && c && d` would. Each tool's own entry runs with this
 * Node.js, so no shell and no node_modules/.bin shim (a .cmd file on Windows) is involved.
 */
const { spawnSync } = require('child_process');
const os = require('os');
const path = require('path');
const { REPO_ROOT, binOf } = require('../tools/repo');

/** @type {Array<{ args: string[], env?: Record<string, string> }>} the steps: node's arguments, what they add to the environment */
const STEPS = [
	// ESLint's flag: a file's config is the eslint.config.mjs nearest to it (scripts/, test/...
	// hold the repository's own), not only the root one n8n's strict mode keeps unchanged.
	{
		args: [binOf('@n8n/node-cli'), 'lint'],
		env: { ESLINT_FLAGS: 'unstable_config_lookup_from_file' },
	},
	{ args: [binOf('typescript', 'tsc'), '-p', 'tsconfig.test.json'] },
	{ args: [binOf('prettier'), '--check', '.'] },
	{ args: [path.join(REPO_ROOT, 'scripts', 'scan-package.js')] },
];

/** Runs the steps in order; the first that fails ends this process with its exit code. */
function lint() {
	for (const { args, env } of STEPS) {
		const result = spawnSync(process.execPath, args, {
			cwd: REPO_ROOT,
			env: { ...process.env, ...env },
			stdio: 'inherit',
		});
		if (result.error) throw result.error;
		// A step ended by a signal: its status as a POSIX shell reports it (128 + the signal's number).
		const code = result.status ?? 128 + (result.signal ? os.constants.signals[result.signal] : 0);
		if (code !== 0) process.exit(code);
	}
}

if (require.main === module) lint();

module.exports = { STEPS };
