#!/usr/bin/env node
'use strict';

/**
 * n8n's verification scan, run locally (part of `npm run lint`). @n8n/scan-community-package
 * (a pinned dev dependency) lints a package with its own ESLint configuration, `buildScanConfig`
 * in scanner/scanner.mjs, in two legs; this script runs the scanner's own `analyzePackage` for
 * both, so its configuration, rule sets and plugin versions are used, not a copy:
 *
 * - the tarball: `npm pack` of this folder (prepack refuses a missing or stale dist/), unpacked,
 *   its compiled .js and package.json, as the scanner lints the published tarball;
 * - the sources: package.json, nodes/ and credentials/ (the scanner's SOURCE_FILE_PATTERNS), as
 *   it lints the source checkout that the package's provenance points at.
 *
 * Any finding fails. The scanner's CLI (`npx @n8n/scan-community-package <name>`) also checks
 * what needs the registry and so only happens after publishing: that the version has an npm
 * provenance attestation (SLSA v1), that the attested GitHub commit can be downloaded, and it
 * lints the tarball downloaded from the registry. See RELEASING.md.
 */
const fs = require('fs');
const os = require('os');
const path = require('path');
const { REPO_ROOT, packAndUnpack, packageProblems } = require('../tools/package-tarball');

const SCANNER = '@n8n/scan-community-package/scanner/scanner.mjs';

/** The scanner makes a temporary folder when loaded; its `tmp` removes it at exit only when asked to. */
function removeScannerTempAtExit() {
	const scannerDir = path.dirname(require.resolve('@n8n/scan-community-package/package.json'));
	require(require.resolve('tmp', { paths: [scannerDir] })).setGracefulCleanup();
}

async function main() {
	removeScannerTempAtExit();
	const scanner = await import(SCANNER);
	const work = fs.mkdtempSync(path.join(os.tmpdir(), 'va-scan-'));
	let failed = false;
	try {
		const { tarball, dir } = packAndUnpack(work);
		// An empty tarball would pass the lint leg with nothing to lint.
		const problems = packageProblems(dir);
		if (problems.length) {
			failed = true;
			process.stderr.write(
				`n8n scan: ${path.basename(tarball)} is not a complete node package:\n  ${problems.join('\n  ')}\n`,
			);
		}
		const legs = [
			{ name: `tarball ${path.basename(tarball)}`, dir, patterns: ['**/*.js', 'package.json'] },
			{ name: 'sources', dir: REPO_ROOT, patterns: scanner.SOURCE_FILE_PATTERNS },
		];
		for (const leg of legs) {
			const result = await scanner.analyzePackage(leg.dir, leg.patterns);
			if (result.passed && !result.message) {
				process.stdout.write(`n8n scan (${leg.name}): no findings\n`);
				continue;
			}
			failed = true;
			process.stderr.write(
				`n8n scan (${leg.name}): ${result.message ?? 'failed'}\n${result.details ?? ''}\n`,
			);
		}
	} finally {
		fs.rmSync(work, { recursive: true, force: true });
	}
	process.exitCode = failed ? 1 : 0;
}

main().catch((error) => {
	process.stderr.write(`n8n scan failed: ${error.stack ?? error}\n`);
	process.exitCode = 1;
});
