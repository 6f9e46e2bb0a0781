'use strict';

const fs = require('fs');

module.exports = async function globalTeardown() {
	const workDir = process.env.VA_E2E_WORKDIR;
	if (workDir && !process.env.VA_E2E_KEEP) fs.rmSync(workDir, { recursive: true, force: true });
};
