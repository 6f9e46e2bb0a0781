/**
 * The queue-mode suite: n8n main + workers on Redis and PostgreSQL with the packed package
 * (see test/queue). One worker: the n8n processes already use both cores.
 * @type {import('jest').Config}
 */
module.exports = {
	preset: 'ts-jest',
	testEnvironment: 'node',
	roots: ['<rootDir>/test/queue'],
	testMatch: ['**/test/queue/**/*.queue.test.ts'],
	transform: {
		'^.+\\.ts$': ['ts-jest', { tsconfig: 'tsconfig.test.json' }],
	},
	globalSetup: '<rootDir>/test/queue/globalSetup.js',
	globalTeardown: '<rootDir>/test/e2e/globalTeardown.js',
	maxWorkers: 1,
	testTimeout: 15 * 60_000,
	slowTestThreshold: 120,
	verbose: true,
};
