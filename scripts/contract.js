'use strict';

/**
 * `npm run contract` (after `npm run build`): records the contract of each light version of the
 * built node in test/contract/<node>-v<version>.json, by running test/contract.test.ts in record
 * mode (tools/contract.js). It records additions and a new light version; a change that breaks a
 * recorded version is refused, with the change named and what to do instead.
 */
const { runContractTest } = require('../tools/contract');

if (require.main === module) {
	const { status } = runContractTest({ record: true, stdio: 'inherit' });
	if (status === 0) process.stdout.write('Recorded: test/contract/ (commit it).\n');
	process.exit(status);
}
