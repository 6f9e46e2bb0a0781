'use strict';

/**
 * Runs once before the e2e suite: prepare.js (build, pack, the n8n installs), then one
 * `n8n start` per version with the packed package installed in its user folder as the Community
 * Nodes screen installs it, its owner set up, and a few names of its own (HOSTS_LINES). Every test
 * file works in these instances over their REST API (test/e2e/session.ts); globalTeardown.js
 * stops them.
 */

const fs = require('fs');
const path = require('path');
const {
	installPackage,
	n8nBin,
	requestedVersions,
	signIn,
	startN8n,
	withHostsLines,
} = require('../../tools/n8n');
const { prepare } = require('./prepare');

/**
 * Names every instance resolves besides the machine's (in /etc/hosts of its own, where the
 * machine allows it: withHostsLines): a host with an IPv6 and an IPv4 address, both on this
 * machine, as a name with an AAAA and an A record has them (failureModel.e2e.test.ts).
 */
const HOSTS_LINES = ['::1 dualstack.va-e2e.test', '127.0.0.1 dualstack.va-e2e.test'];

/** @param {string} line */
const log = (line) => process.stdout.write(`[e2e] ${line}\n`);

/**
 * @param {string} version
 * @param {string} workDir
 * @param {string} tarball
 */
async function startInstance(version, workDir, tarball) {
	const started = Date.now();
	const bin = n8nBin(version);
	const userFolder = path.join(workDir, `n8n-${version}`);
	await installPackage(userFolder, tarball);
	// n8n 2.x reads and writes files only in ~/.n8n-files unless told otherwise.
	const filesDir = path.join(userFolder, 'files');
	fs.mkdirSync(filesDir);
	const hosts = withHostsLines(HOSTS_LINES, userFolder);
	const n8n = await startN8n(bin, userFolder, {
		logDir: userFolder,
		extra: { N8N_RESTRICT_FILE_ACCESS_TO: filesDir },
		hosts,
	});
	await signIn(n8n.url);
	log(`n8n ${version} started on ${n8n.url} in ${Math.round((Date.now() - started) / 1000)} s`);
	const { stdoutFile, stderrFile } = n8n.proc;
	return {
		n8n,
		instance: {
			version,
			url: n8n.url,
			bin,
			userFolder,
			filesDir,
			stdoutFile,
			stderrFile,
			hosts: hosts ? HOSTS_LINES : [],
		},
	};
}

module.exports = async function globalSetup() {
	const versions = requestedVersions();
	const { workDir, tarball } = await prepare(versions, log);
	const started = await Promise.allSettled(
		versions.map((version) => startInstance(version, workDir, tarball)),
	);
	const running = started.flatMap((result) =>
		result.status === 'fulfilled' ? [result.value] : [],
	);
	/** @type {any} */ (globalThis).vaE2eInstances = running.map(({ n8n }) => n8n);
	const failed = started.find((result) => result.status === 'rejected');
	if (failed) throw failed.reason;
	process.env.VA_E2E_N8N = JSON.stringify(
		Object.fromEntries(running.map(({ instance }) => [instance.version, instance])),
	);
};
