'use strict';

/**
 * Runs once before the queue-mode suite: the e2e suite's setup (build, pack, the n8n installs
 * in the cache) for the versions the queue suite runs on.
 */

const e2eSetup = require('../e2e/globalSetup');
const { queueVersions } = require('./lib/cluster');

module.exports = async function globalSetup() {
	process.env.N8N_E2E_VERSIONS = queueVersions().join(',');
	await e2eSetup();
};
