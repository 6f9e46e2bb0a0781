'use strict';

/**
 * The node's recorded contract (test/contract/<node>-v<version>.json, one per light version) as
 * the scripts reach it: test/contract.test.ts compares the built node with it, and records it
 * when asked (`npm run contract`, scripts/contract.js); the release check (scripts/release-check.js)
 * runs the comparison. The comparison runs the node in n8n's engine, so it runs in jest.
 */
const path = require('path');
const { spawnSync } = require('child_process');
const { REPO_ROOT, binOf } = require('./repo');

const CONTRACT_DIR = path.join(REPO_ROOT, 'test', 'contract');

/** The test that compares (and, in record mode, records); the contract test reads these. */
const CONTRACT_TEST = {
	file: 'test/contract.test.ts',
	name: 'each light version is as recorded',
	/** Set to 1: record the contracts when nothing breaks a recorded version. */
	recordVariable: 'VA_RECORD_CONTRACT',
	/** The folder of the recorded contracts, when not test/contract/ (the release check's own tests). */
	dirVariable: 'VA_CONTRACT_DIR',
};

/**
 * Runs the comparison with the recorded contracts (in `dir`, default test/contract/), or records
 * them; returns jest's exit status and what it printed.
 * @param {{ record?: boolean, dir?: string, stdio?: 'inherit' | 'pipe' }} [options]
 * @returns {{ status: number, output: string }}
 */
function runContractTest({ record = false, dir, stdio = 'pipe' } = {}) {
	const result = spawnSync(
		process.execPath,
		[binOf('jest'), CONTRACT_TEST.file, '--testNamePattern', CONTRACT_TEST.name],
		{
			cwd: REPO_ROOT,
			encoding: 'utf8',
			stdio,
			env: {
				...process.env,
				[CONTRACT_TEST.recordVariable]: record ? '1' : '',
				[CONTRACT_TEST.dirVariable]: dir ?? '',
			},
		},
	);
	if (result.error) throw result.error;
	return { status: result.status ?? 1, output: `${result.stdout ?? ''}${result.stderr ?? ''}` };
}

module.exports = { CONTRACT_DIR, CONTRACT_TEST, runContractTest };
