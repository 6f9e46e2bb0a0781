/**
 * package.json's npm scripts run in Windows' default shell (cmd.exe) as in sh: npm runs a script
 * with `cmd /d /s /c` there, which reads no env prefix (`VAR=value cmd`), `exec`, `export`,
 * `rm`, `$VAR`, single quotes, `;` between commands, backticks or globs as sh does. `&&` (and
 * `||`, `|`) mean the same in both. What a script needs beyond that belongs in a Node script
 * (scripts/lint.js sets ESLint's flag so).
 */
import fs from 'fs';
import path from 'path';
import { REPO_ROOT } from '../tools/repo';

/** Commands of sh that cmd.exe does not have. */
const POSIX_COMMANDS = ['exec', 'export', 'rm', 'unset', 'source', '.'];

/** What in one npm script only a POSIX shell reads as intended, one line each; empty when nothing. */
function posixOnly(script: string): string[] {
	const problems: string[] = [];
	if (script.includes("'")) problems.push('single quotes (cmd.exe passes them on as they are)');
	if (script.includes('`')) problems.push('backticks');
	if (script.includes(';')) problems.push('`;` between commands (cmd.exe has `&&` and `&`)');
	if (/\$[A-Za-z_{(]/.test(script)) problems.push('a $variable (cmd.exe writes %VAR%)');
	if (/[*?]/.test(script)) problems.push('a glob (sh expands it, cmd.exe passes it on)');
	for (const command of script.split(/&&|\|\||\|/).map((part) => part.trim())) {
		const [first = ''] = command.split(/\s+/);
		if (/^[A-Za-z_][A-Za-z0-9_]*=/.test(first)) problems.push(`an environment prefix: ${command}`);
		if (POSIX_COMMANDS.includes(first)) problems.push(`sh's ${first}: ${command}`);
	}
	return problems;
}

describe('npm scripts', () => {
	const { scripts } = JSON.parse(fs.readFileSync(path.join(REPO_ROOT, 'package.json'), 'utf8'));

	it('run in cmd.exe as in sh', () => {
		const found = Object.entries(scripts as Record<string, string>).flatMap(([name, script]) =>
			posixOnly(script).map((problem) => `${name}: ${problem}`),
		);
		expect(found).toEqual([]);
	});

	it('the check bites: what only sh reads is found, what cmd.exe reads alike is not', () => {
		expect(
			posixOnly(
				'ESLINT_FLAGS=unstable_config_lookup_from_file n8n-node lint && tsc -p tsconfig.test.json',
			),
		).toEqual([
			'an environment prefix: ESLINT_FLAGS=unstable_config_lookup_from_file n8n-node lint',
		]);
		expect(posixOnly('exec node demo/run.js')).toEqual(["sh's exec: exec node demo/run.js"]);
		expect(posixOnly('rm -rf dist && n8n-node build')).toEqual(["sh's rm: rm -rf dist"]);
		expect(posixOnly('export A=1; node a.js')).toHaveLength(2);
		for (const script of [
			"prettier --check 'src'",
			'node $SCRIPT',
			'echo `date`',
			'jest test/*.test.ts',
		])
			expect(posixOnly(script)).toHaveLength(1);
		for (const script of [
			'node scripts/lint.js',
			'node scripts/ensure-dev-deps.js && npm run build && npm run lint && jest',
			'jest --config jest.e2e.config.js',
			'node bench/run.js',
		])
			expect(posixOnly(script)).toEqual([]);
	});
});

/**
 * `npm run dev` links this folder into n8n's custom folder, and n8n loads every file named
 * `*.node.js` or `*.credentials.js` below it (n8n-core's CustomDirectoryLoader, node_modules
 * included) as a node or a credential: one a dependency ships stops n8n from starting
 * (pkce-challenge's dist/index.node.js: "require(...).index is not a constructor").
 */
describe('npm run dev', () => {
	/** Files n8n would load from this folder that are not the package's own or the bench probe's. */
	const strangers = (files: string[]) =>
		files.filter(
			(file) =>
				/\.(node|credentials)\.js$/.test(file) &&
				!/^(dist|bench[\\/]probe-node)[\\/]/.test(file) &&
				!file.startsWith('.git'),
		);

	it('n8n finds no node or credential file of a dependency below the linked folder', () => {
		const files = fs.readdirSync(REPO_ROOT, { recursive: true }) as string[];
		expect(strangers(files)).toEqual([]);
	});

	it("the check bites: a dependency's index.node.js is found, the package's own files are not", () => {
		expect(
			strangers([
				'node_modules/pkce-challenge/dist/index.node.js',
				'dist/nodes/VoiceAssistant/VoiceAssistant.node.js',
				'dist/credentials/VoiceAssistantApi.credentials.js',
				'bench/probe-node/nodes/BenchProbe/BenchProbe.node.js',
			]),
		).toEqual(['node_modules/pkce-challenge/dist/index.node.js']);
	});
});
