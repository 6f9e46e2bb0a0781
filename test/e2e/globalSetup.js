'use strict';

/**
 * Runs once before the e2e suite: builds and packs the package, and makes sure every n8n
 * version under test is installed in the cache, in parallel (a cold install takes minutes, with progress).
 */

const fs = require('fs');
const os = require('os');
const path = require('path');
const { buildAndPack, ensureN8n, requestedVersions } = require('../../tools/n8n');

const log = (line) => process.stdout.write(`[e2e] ${line}\n`);

module.exports = async function globalSetup() {
	const workDir = fs.mkdtempSync(path.join(os.tmpdir(), 'va-e2e-'));
	process.env.VA_E2E_WORKDIR = workDir;
	log(`working folder ${workDir}`);
	process.env.VA_E2E_TARBALL = await buildAndPack(workDir, log);
	// In parallel: a cold install is mostly download and unpacking, not CPU.
	await Promise.all(
		requestedVersions().map(async (version) => {
			const started = Date.now();
			const bin = await ensureN8n(version, log);
			log(`n8n ${version} ready (${bin}, checked in ${Math.round((Date.now() - started) / 1000)} s)`);
		}),
	);
};
