'use strict';

/** Runs once after the e2e and queue suites: stops the n8n instances globalSetup started, removes the working folder. */

const fs = require('fs');

module.exports = async function globalTeardown() {
	/** @type {Array<{ stop(): Promise<void> }>} */
	const instances = /** @type {any} */ (globalThis).vaE2eInstances ?? [];
	await Promise.all(instances.map((n8n) => n8n.stop()));
	const workDir = process.env.VA_E2E_WORKDIR;
	if (workDir && !process.env.VA_E2E_KEEP) fs.rmSync(workDir, { recursive: true, force: true });
};
