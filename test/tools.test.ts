/**
 * The harness (tools/) and the npm entry points (scripts/) import one way: scripts/ use tools/,
 * tools/ never reach into scripts/ (docs/development.md, "The n8n harness").
 */
import fs from 'fs';
import path from 'path';
import { REPO_ROOT } from '../tools/repo';

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
