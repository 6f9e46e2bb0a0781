'use strict';

/**
 * A real n8n for the e2e suite, the demo, the benchmark and `npm run example`: pinned installs
 * in a cache folder (install.js, harness folders in versions/), the package installed into a
 * user folder (package.js), the n8n CLI and `n8n start` (run.js) and its REST API (rest.js).
 */

module.exports = {
	...require('./install'),
	...require('./package'),
	...require('./run'),
	...require('./rest'),
};
