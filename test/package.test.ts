/**
 * The npm package as it would be published: `npm pack` of this folder (after `npm run build`;
 * prepack refuses a missing or stale dist/), unpacked. It must hold what n8n loads and nothing
 * to install; a package packed without a build must be refused by the same checks.
 */
import fs from 'fs';
import os from 'os';
import path from 'path';
import { distProblems } from '../tools/dist';
import { REPO_ROOT, listFiles, packAndUnpack, packageProblems } from '../tools/package-tarball';
import { NODE_TYPE } from '../tools/package-names';

const work = fs.mkdtempSync(path.join(os.tmpdir(), 'va-package-test-'));
afterAll(() => fs.rmSync(work, { recursive: true, force: true }));

/** A folder with this package's manifest, LICENSE and README and the given folders, but no dist/. */
function cloneWithoutBuild(name: string, folders: string[] = []): string {
	const dir = path.join(work, name);
	fs.mkdirSync(dir);
	for (const entry of ['package.json', 'README.md', 'LICENSE', '.npmrc', ...folders]) {
		fs.cpSync(path.join(REPO_ROOT, entry), path.join(dir, entry), { recursive: true });
	}
	return dir;
}

describe('the packed package', () => {
	let dir: string;
	let files: string[];
	let manifest: Record<string, any>;
	beforeAll(() => {
		fs.mkdirSync(path.join(work, 'real'));
		dir = packAndUnpack(path.join(work, 'real')).dir;
		files = listFiles(dir);
		manifest = JSON.parse(fs.readFileSync(path.join(dir, 'package.json'), 'utf8'));
	}, 120_000);

	test('holds what n8n loads, LICENSE and README, and nothing else', () => {
		expect(packageProblems(dir)).toEqual([]);
		expect(files).toEqual(
			expect.arrayContaining([
				'package.json',
				'README.md',
				'LICENSE',
				'dist/nodes/VoiceAssistant/VoiceAssistant.node.js',
				'dist/nodes/VoiceAssistant/VoiceAssistant.node.json',
				'dist/credentials/VoiceAssistantApi.credentials.js',
				'dist/icons/voiceAssistant.svg',
				'dist/icons/voiceAssistant.dark.svg',
			]),
		);
		// One icon pair, for the node and the credential alike.
		expect(files.filter((file) => /\.(svg|png)$/.test(file))).toEqual([
			'dist/icons/voiceAssistant.dark.svg',
			'dist/icons/voiceAssistant.svg',
		]);
		expect(manifest.n8n).toMatchObject({
			nodes: ['dist/nodes/VoiceAssistant/VoiceAssistant.node.js'],
			credentials: ['dist/credentials/VoiceAssistantApi.credentials.js'],
		});
		const codex = JSON.parse(
			fs.readFileSync(path.join(dir, 'dist/nodes/VoiceAssistant/VoiceAssistant.node.json'), 'utf8'),
		);
		expect(codex).toMatchObject({ node: NODE_TYPE, categories: expect.any(Array) });
	});

	test('has no dependencies and only n8n-workflow as peer dependency', () => {
		expect(manifest.dependencies).toBeUndefined();
		expect(Object.keys(manifest.peerDependencies)).toEqual(['n8n-workflow']);
	});

	test('is refused once dist/ holds what n8n does not load (a picture of the docs, declarations)', () => {
		const extra = path.join(work, 'extra');
		fs.cpSync(dir, extra, { recursive: true });
		for (const file of ['dist/docs/images/operations.png', 'dist/nodes/VoiceAssistant/x.d.ts']) {
			fs.mkdirSync(path.dirname(path.join(extra, file)), { recursive: true });
			fs.writeFileSync(path.join(extra, file), '');
		}
		expect(packageProblems(extra)).toEqual([
			'files in dist/ that n8n does not load: dist/docs/images/operations.png, dist/nodes/VoiceAssistant/x.d.ts',
		]);
	});
});

describe('a package without a build', () => {
	test('is refused by the tarball checks (as the repo packs it: .npmrc skips prepack)', () => {
		fs.mkdirSync(path.join(work, 'unbuilt'));
		const { dir } = packAndUnpack(path.join(work, 'unbuilt'), {
			cwd: cloneWithoutBuild('clone-unbuilt'),
			runScripts: false,
		});
		expect(listFiles(dir)).toEqual(['LICENSE', 'README.md', 'package.json']);
		expect(packageProblems(dir)).toEqual(
			expect.arrayContaining([
				'dist/nodes/VoiceAssistant/VoiceAssistant.node.js is missing (listed in n8n.nodes)',
				'dist/credentials/VoiceAssistantApi.credentials.js is missing (listed in n8n.credentials)',
			]),
		);
	}, 60_000);

	test('cannot be packed when npm runs prepack', () => {
		const clone = cloneWithoutBuild('clone-prepack', [
			'nodes',
			'credentials',
			'scripts/check-dist.js',
			'tools/dist.js',
		]);
		expect(distProblems(clone)).toEqual(
			expect.arrayContaining([
				'dist/nodes/VoiceAssistant/VoiceAssistant.node.js is missing (from nodes/VoiceAssistant/VoiceAssistant.node.ts)',
			]),
		);
		fs.mkdirSync(path.join(work, 'prepack'));
		expect(() => packAndUnpack(path.join(work, 'prepack'), { cwd: clone })).toThrow(
			/Refusing to pack: dist\/ is missing or older/,
		);
		expect(fs.readdirSync(path.join(work, 'prepack'))).toEqual([]);
	}, 60_000);

	test('is refused by prepack when a source changed after the build', () => {
		const clone = cloneWithoutBuild('clone-stale', ['nodes', 'credentials', 'icons', 'dist']);
		expect(distProblems(clone)).toEqual([]);
		const source = path.join(clone, 'nodes/VoiceAssistant/shared/spec/schemas.ts');
		const later = new Date(Date.now() + 60_000);
		fs.utimesSync(source, later, later);
		expect(distProblems(clone)).toEqual([
			'dist/nodes/VoiceAssistant/shared/spec/schemas.js is older than nodes/VoiceAssistant/shared/spec/schemas.ts',
		]);
	});
});
