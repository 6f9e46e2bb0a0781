/**
 * The end-to-end suite: the packed package inside real, pinned n8n installs (see test/e2e).
 * globalSetup starts one `n8n start` per version for every test file; one worker, as the test
 * files take turns in those instances (and n8n already uses both cores).
 * @type {import('jest').Config}
 */
module.exports = {
	preset: 'ts-jest',
	testEnvironment: 'node',
	roots: ['<rootDir>/test/e2e'],
	testMatch: ['**/test/e2e/**/*.e2e.test.ts'],
	transform: {
		'^.+\\.ts$': ['ts-jest', { tsconfig: 'tsconfig.test.json' }],
	},
	globalSetup: '<rootDir>/test/e2e/globalSetup.js',
	globalTeardown: '<rootDir>/test/e2e/globalTeardown.js',
	maxWorkers: 1,
	testTimeout: 10 * 60_000,
	slowTestThreshold: 60,
	verbose: true,
};
