/** @type {import('jest').Config} */
module.exports = {
	preset: 'ts-jest',
	testEnvironment: 'node',
	roots: ['<rootDir>/test'],
	testMatch: ['**/*.test.ts'],
	testPathIgnorePatterns: ['/node_modules/', '/test/e2e/', '/test/queue/'],
	transform: {
		'^.+\\.ts$': ['ts-jest', { tsconfig: 'tsconfig.test.json' }],
	},
	setupFiles: ['<rootDir>/test/env.ts'],
	setupFilesAfterEnv: ['<rootDir>/test/setup.ts'],
	testTimeout: 30000,
	// Two test files at once, also on 2 cores (jest's default is one worker per core but one): most
	// of a file's time is spent waiting for the simulator and the node's timers, not computing.
	maxWorkers: 2,
};
