'use strict';

/**
 * A real n8n for the e2e and queue suites, the demo, the benchmark and `npm run example`: pinned
 * installs in a cache folder (install.js, harness folders in versions/), the package installed
 * into a user folder (package.js), the n8n CLI and `n8n start` (run.js) and the REST API its
 * editor uses (rest.js).
 *
 * @typedef {import('./rest').EditorApi} EditorApi
 * @typedef {import('./rest').Execution} Execution
 * @typedef {import('./rest').ExecutionSummary} ExecutionSummary
 * @typedef {import('./rest').N8nItem} N8nItem
 * @typedef {import('./rest').N8nRun} N8nRun
 * @typedef {import('./run').RunningN8n} RunningN8n
 */

module.exports = {
	...require('./install'),
	...require('./package'),
	...require('./run'),
	...require('./rest'),
};
