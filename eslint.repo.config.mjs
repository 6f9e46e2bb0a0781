// The repository's own ESLint config: the code that does not ship (tests, tools, benchmarks,
// scripts, the demo, CI). The package itself (package.json, nodes/, credentials/) is linted by
// n8n's default config, eslint.config.mjs, which `n8n-node lint` requires unchanged in strict
// mode. Each of those folders has an eslint.config.mjs that re-exports this one, and ESLint lints
// each file with the config nearest to it: ESLint 10's default, which `npm run lint` turns on for
// ESLint 9 (ESLINT_FLAGS=unstable_config_lookup_from_file).
import js from '@eslint/js';
import tseslint from 'typescript-eslint';

export default tseslint.config(
	{
		files: ['**/*.ts'],
		extends: [js.configs.recommended, tseslint.configs.recommended],
		rules: { 'prefer-spread': 'off', '@typescript-eslint/no-explicit-any': 'off' },
	},
	{
		files: ['**/*.js'],
		extends: [js.configs.recommended],
		rules: {
			'no-unused-vars': ['error', { ignoreRestSiblings: true }],
			'no-empty': ['error', { allowEmptyCatch: true }],
		},
		languageOptions: {
			sourceType: 'commonjs',
			globals: {
				require: 'readonly',
				module: 'writable',
				process: 'readonly',
				console: 'readonly',
				__dirname: 'readonly',
				Buffer: 'readonly',
				setTimeout: 'readonly',
				clearTimeout: 'readonly',
				setInterval: 'readonly',
				clearInterval: 'readonly',
				setImmediate: 'readonly',
				URL: 'readonly',
				fetch: 'readonly',
				AbortController: 'readonly',
				exports: 'writable',
				performance: 'readonly',
			},
		},
	},
);
