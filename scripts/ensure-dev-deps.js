'use strict';

/**
 * A fresh clone has no node_modules: install the pinned dev dependencies (npm ci) before
 * building, so `npm test` and `npm run demo` work as the first command on a new machine.
 */
const { spawnSync } = require('child_process');
const fs = require('fs');
const path = require('path');
const { REPO_ROOT } = require('../tools/repo');

/** @param {(line: string) => void} [log] */
function ensureDevDependencies(log = (line) => process.stdout.write(`${line}\n`)) {
	if (fs.existsSync(path.join(REPO_ROOT, 'node_modules', '.bin', 'jest'))) return;
	log('Installing the dev dependencies (npm ci)...');
	// On Windows npm is npm.cmd, which only a shell runs.
	const result = spawnSync('npm', ['ci', '--no-audit', '--no-fund'], {
		cwd: REPO_ROOT,
		stdio: 'inherit',
		shell: process.platform === 'win32',
	});
	if (result.status !== 0) throw new Error(`npm ci failed (exit code ${result.status})`);
}

if (require.main === module) ensureDevDependencies();

module.exports = { ensureDevDependencies };
