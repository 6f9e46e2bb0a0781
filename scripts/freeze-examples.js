'use strict';

/**
 * `node scripts/freeze-examples.js <version>`, at a release whose examples changed: copies
 * examples/*.json, as they are, into test/contract/workflows/<version>/ and records what they do
 * (test/contract/workflows/<version>.runs.json) by running test/e2e/frozen.e2e.test.ts in record
 * mode on one n8n version (the e2e suite's setup builds, packs and starts it). From then on the
 * e2e suite runs these copies on every n8n version and compares.
 */
const fs = require('fs');
const path = require('path');
const { spawnSync } = require('child_process');
const { CONTRACT_DIR } = require('../tools/contract');
const { requestedVersions } = require('../tools/n8n');
const { EXAMPLES_DIR, REPO_ROOT, binOf } = require('../tools/repo');

/** @param {string | undefined} version */
function freeze(version) {
	if (!version || !/^\d+\.\d+\.\d+$/.test(version))
		throw new Error('Usage: node scripts/freeze-examples.js <version>, e.g. 0.2.0');
	const dir = path.join(CONTRACT_DIR, 'workflows', version);
	if (fs.existsSync(dir))
		throw new Error(
			`${path.relative(REPO_ROOT, dir)} exists: a release is frozen once (delete the folder to freeze it again)`,
		);
	fs.mkdirSync(dir, { recursive: true });
	for (const file of fs.readdirSync(EXAMPLES_DIR).filter((name) => name.endsWith('.json')))
		fs.copyFileSync(path.join(EXAMPLES_DIR, file), path.join(dir, file));
	const result = spawnSync(
		process.execPath,
		[binOf('jest'), '--config', 'jest.e2e.config.js', 'test/e2e/frozen.e2e.test.ts'],
		{
			cwd: REPO_ROOT,
			stdio: 'inherit',
			env: {
				...process.env,
				VA_RECORD_FROZEN: '1',
				N8N_E2E_VERSIONS: requestedVersions()[0],
			},
		},
	);
	return result.status ?? 1;
}

if (require.main === module) {
	try {
		process.exit(freeze(process.argv[2]));
	} catch (error) {
		process.stderr.write(`${/** @type {Error} */ (error).message}\n`);
		process.exit(1);
	}
}
