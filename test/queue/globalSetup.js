'use strict';

/** Runs once before the queue-mode suite: build, pack and the n8n installs (test/e2e/prepare.js) for its versions. */

const { prepare } = require('../e2e/prepare');
const { queueVersions } = require('./lib/cluster');

module.exports = async function globalSetup() {
	await prepare(queueVersions(), (line) => process.stdout.write(`[queue] ${line}\n`));
};
