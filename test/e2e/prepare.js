'use strict';

/**
 * What the e2e and queue suites need before their tests: a working folder, the package built
 * (when dist/ is not current) and packed, and the n8n versions under test installed in the cache
 * (in parallel; a cold install takes minutes, with progress lines). The working folder and the
 * tarball are passed on to the tests in VA_E2E_WORKDIR and VA_E2E_TARBALL.
 */

const fs = require('fs');
const os = require('os');
const path = require('path');
const { buildAndPack, ensureVersions } = require('../../tools/n8n');

/**
 * @param {string[]} versions
 * @param {(line: string) => void} log
 */
async function prepare(versions, log) {
	const workDir = fs.mkdtempSync(path.join(os.tmpdir(), 'va-e2e-'));
	log(`working folder ${workDir}`);
	const tarball = await buildAndPack(workDir, log);
	await ensureVersions(versions, log);
	process.env.VA_E2E_WORKDIR = workDir;
	process.env.VA_E2E_TARBALL = tarball;
	return { workDir, tarball };
}

module.exports = { prepare };
