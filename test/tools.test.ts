/**
 * The harness (tools/) and the npm entry points (scripts/) import one way: scripts/ use tools/,
 * tools/ never reach into scripts/ (docs/development.md, "The n8n harness"). The property-test
 * loop (scripts/test-properties.js) finds the property files and reads its options; a test's
 * failure names its own line (tsconfig.test.json keeps source maps for ts-jest).
 */
import fs from 'fs';
import path from 'path';
import { REPO_ROOT } from '../tools/repo';
import { propertyFiles, readArgs, replayCommand } from '../scripts/test-properties';

/** Every .js file under `dir`, the pinned n8n harness folders (package manifests only) aside. */
function scripts(dir: string): string[] {
	return fs.readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
		const full = path.join(dir, entry.name);
		if (entry.isDirectory()) return entry.name === 'node_modules' ? [] : scripts(full);
		return entry.name.endsWith('.js') ? [full] : [];
	});
}

/** The repo files a script requires by a relative path, as paths from the repo's root. */
function localRequires(file: string): string[] {
	const source = fs.readFileSync(file, 'utf8');
	return [...source.matchAll(/require\(\s*'(\.{1,2}\/[^']+)'\s*\)/g)].map(([, target]) =>
		path.relative(REPO_ROOT, path.resolve(path.dirname(file), target)),
	);
}

describe('tools/ and scripts/', () => {
	const tools = scripts(path.join(REPO_ROOT, 'tools'));

	it('finds the harness and reads its imports', () => {
		expect(tools.map((file) => path.relative(REPO_ROOT, file))).toEqual(
			expect.arrayContaining(['tools/dist.js', 'tools/n8n/package.js']),
		);
		expect(localRequires(path.join(REPO_ROOT, 'tools/n8n/package.js'))).toEqual(
			expect.arrayContaining(['tools/dist', 'tools/package-tarball']),
		);
	});

	it('tools/ imports nothing from scripts/', () => {
		const intoScripts = tools.flatMap((file) =>
			localRequires(file)
				.filter((target) => target.split(path.sep)[0] === 'scripts')
				.map((target) => `${path.relative(REPO_ROOT, file)} → ${target}`),
		);
		expect(intoScripts).toEqual([]);
	});

	it('scripts/ use tools/ for what they share', () => {
		expect(localRequires(path.join(REPO_ROOT, 'scripts/check-dist.js'))).toEqual(['tools/dist']);
	});
});

describe('npm run test:properties', () => {
	it('runs every unit test file with a property, and no other', () => {
		const files = propertyFiles();
		expect(files).toEqual(
			expect.arrayContaining(['test/rateTickets.test.ts', 'test/engine.model.test.ts']),
		);
		const withProperty = (file: string) =>
			/\bfc\.(assert|check)\(/.test(fs.readFileSync(path.join(REPO_ROOT, file), 'utf8'));
		expect(files.filter((file) => !withProperty(file))).toEqual([]);
		expect(files).not.toContain('test/tools.test.ts');
		expect(files.filter((file) => /^test\/(e2e|queue|helpers)\//.test(file))).toEqual([]);
	});

	it('reads how many runs, the first seed and the files; replays a seed in any shell', () => {
		expect(readArgs([])).toEqual({ runs: 15, seed: undefined, files: [] });
		expect(readArgs(['--runs', '3', '--seed', '-7', 'test/a.test.ts'])).toEqual({
			runs: 3,
			seed: -7,
			files: ['test/a.test.ts'],
		});
		expect(() => readArgs(['--runs', 'many'])).toThrow('--runs takes a whole number, not many');
		expect(() => readArgs(['--runs', '0'])).toThrow('--runs must be at least 1');
		expect(replayCommand(42, ['test/a.test.ts'])).toBe(
			'npm run test:properties -- --runs 1 --seed 42 test/a.test.ts',
		);
	});
});

describe('a failing test', () => {
	/*
	 * Below this comment, and below types the build removes, the stack still names the line the
	 * error was made on: tsconfig.test.json keeps source maps (tsconfig.json, the build's, has
	 * none), so jest reports a failure at its assertion's line.
	 */
	type Line = { file: string; line: number };
	it('is reported at its own line', () => {
		const made: Line = { file: path.basename(__filename), line: 0 };
		const { stack = '' } = new Error('here');
		const source = fs.readFileSync(__filename, 'utf8').split('\n');
		made.line = source.findIndex((text) => text.includes("new Error('here')")) + 1;
		expect(stack).toContain(`${made.file}:${made.line}:`);
	});
});
