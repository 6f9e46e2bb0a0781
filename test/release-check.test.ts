/**
 * The release check (scripts/release-check.js): `npm run release` and `prepublishOnly` refuse
 * this repository as it is (package.json's placeholders), a version CHANGELOG.md has no entry for,
 * and a recorded contract the node no longer matches; a filled-in copy passes. Each case runs on
 * a copy of package.json and CHANGELOG.md in a folder of its own; nothing is published, nothing
 * reaches the network.
 */
import { spawnSync } from 'child_process';
import fs from 'fs';
import os from 'os';
import path from 'path';
import { CONTRACT_DIR } from '../tools/contract';
import { REPO_ROOT } from '../tools/repo';
import {
	changelogEntry,
	changelogProblems,
	packageProblems,
	releaseProblems,
} from '../scripts/release-check';

const work = fs.mkdtempSync(path.join(os.tmpdir(), 'va-release-check-'));
afterAll(() => fs.rmSync(work, { recursive: true, force: true }));

const pkg = JSON.parse(fs.readFileSync(path.join(REPO_ROOT, 'package.json'), 'utf8'));
const filled = {
	...pkg,
	homepage: 'https://github.com/ada-lovelace/n8n-nodes-voice-assistant#readme',
	bugs: { url: 'https://github.com/ada-lovelace/n8n-nodes-voice-assistant/issues' },
	repository: {
		type: 'git',
		url: 'git+https://github.com/ada-lovelace/n8n-nodes-voice-assistant.git',
	},
	author: { name: 'Ada Lovelace', email: 'ada@analytical-engine.dev' },
};
const CHANGELOG = [
	'# Changelog',
	'',
	'## [Unreleased]',
	'',
	'## [0.2.0] - 2026-12-01',
	'',
	'### Fixed',
	'',
	'- Something users see.',
	'',
	'## [0.1.0] - 2026-11-30',
	'',
	'### Added',
	'',
	'- The node.',
	'',
	'[Unreleased]: https://github.com/ada-lovelace/n8n-nodes-voice-assistant/compare/v0.2.0...HEAD',
	'',
].join('\n');

/** A folder holding `manifest` as package.json and `changelog` as CHANGELOG.md. */
function copy(name: string, manifest: object, changelog: string): string {
	const dir = path.join(work, name);
	fs.mkdirSync(dir);
	fs.writeFileSync(path.join(dir, 'package.json'), JSON.stringify(manifest));
	fs.writeFileSync(path.join(dir, 'CHANGELOG.md'), changelog);
	return dir;
}

describe("package.json's repository, homepage, bugs and author", () => {
	test("this repository's placeholders are refused, each named", () => {
		expect(packageProblems(pkg)).toEqual([
			expect.stringMatching(/^package\.json "repository\.url" is the placeholder .*OWNER/),
			expect.stringMatching(/^package\.json "homepage" is the placeholder /),
			expect.stringMatching(/^package\.json "bugs\.url" is the placeholder /),
			expect.stringMatching(/^package\.json "author\.name" is "AUTHOR"/),
			expect.stringMatching(/^package\.json "author\.email" is "author@example\.com"/),
		]);
	});

	test('a filled-in package.json passes; another repository, a missing field or a reserved domain does not', () => {
		expect(packageProblems(filled)).toEqual([]);
		expect(
			packageProblems({ ...filled, author: 'Ada Lovelace <ada@analytical-engine.dev>' }),
		).toEqual([]);
		expect(
			packageProblems({ ...filled, bugs: 'https://github.com/someone-else/other-repo/issues' }),
		).toEqual([expect.stringMatching(/name different repositories/)]);
		expect(packageProblems({ ...filled, homepage: undefined })).toEqual([
			'package.json "homepage" is undefined, not an address on github.com (RELEASING.md, "Before the first release")',
		]);
		expect(packageProblems({ ...filled, author: { name: 'Ada', email: 'ada@mail.test' } })).toEqual(
			[expect.stringMatching(/^package\.json "author\.email"/)],
		);
	});
});

describe("CHANGELOG.md's entry for the version", () => {
	test("a dated entry with a line passes, and is the release's notes", () => {
		expect(changelogProblems(CHANGELOG, '0.2.0')).toEqual([]);
		expect(changelogEntry(CHANGELOG, '0.2.0')).toBe('### Fixed\n\n- Something users see.');
		expect(changelogEntry(CHANGELOG, '0.1.0')).toBe('### Added\n\n- The node.');
	});

	test('a version without an entry, an entry without a date or a line, a placeholder link are refused; a pre-release needs no entry', () => {
		expect(changelogProblems(CHANGELOG, '0.3.0')).toEqual([
			expect.stringMatching(
				/^CHANGELOG\.md has no entry for 0\.3\.0: add "## \[0\.3\.0\] - YYYY-MM-DD"/,
			),
		]);
		expect(changelogProblems(CHANGELOG.replace('] - 2026-12-01', ']'), '0.2.0')).toHaveLength(1);
		expect(changelogProblems(CHANGELOG.replace('- Something users see.', ''), '0.2.0')).toEqual([
			expect.stringMatching(/entry for 0\.2\.0 lists nothing/),
		]);
		expect(changelogProblems(CHANGELOG, '0.0.0-bootstrap.0')).toEqual([]);
		expect(changelogProblems(CHANGELOG.replace('ada-lovelace', 'OWNER'), '0.2.0')).toEqual([
			expect.stringMatching(/links name the placeholder repository/),
		]);
	});

	test("this repository's CHANGELOG.md has no entry for 0.1.0 yet: its lines wait under [Unreleased]", () => {
		const changelog = fs.readFileSync(path.join(REPO_ROOT, 'CHANGELOG.md'), 'utf8');
		expect(changelogProblems(changelog, pkg.version)).toEqual([
			expect.stringMatching(/^CHANGELOG\.md has no entry for 0\.1\.0/),
			expect.stringMatching(/links name the placeholder repository/),
		]);
	});
});

describe('the whole check, with the recorded contract', () => {
	test('a filled-in copy with an entry for the version and the contract as recorded passes', () => {
		const dir = copy('ready', filled, CHANGELOG);
		expect(releaseProblems({ root: dir, version: '0.2.0' })).toEqual([]);
	}, 300_000);

	test('a stale contract (a default recorded otherwise) is refused, naming the parameter', () => {
		const stale = path.join(work, 'stale-contract');
		fs.cpSync(CONTRACT_DIR, stale, { recursive: true });
		const file = path.join(stale, 'voiceAssistant-v1.json');
		const contract = JSON.parse(fs.readFileSync(file, 'utf8'));
		contract.operations['assistant:getAll'].parameters.limit.default = 40;
		fs.writeFileSync(file, JSON.stringify(contract));
		const dir = copy('stale', filled, CHANGELOG);
		expect(releaseProblems({ root: dir, version: '0.2.0', contractDir: stale })).toEqual([
			expect.stringMatching(
				/^The node's recorded contract is not up to date [\s\S]*\n {2}✗ assistant:getAll › parameter "limit" › default: 40 → 50\n[\s\S]*npm run contract/,
			),
		]);
	}, 300_000);

	test('`node scripts/release-check.js` refuses this repository, one line per problem, and exits 1', () => {
		const result = spawnSync(process.execPath, ['scripts/release-check.js', '0.1.0'], {
			cwd: REPO_ROOT,
			encoding: 'utf8',
		});
		expect(result.status).toBe(1);
		const lines = result.stderr.split('\n').filter((line) => line.startsWith('- '));
		expect(lines).toEqual([
			expect.stringMatching(/^- package\.json "repository\.url" is the placeholder /),
			expect.stringMatching(/^- package\.json "homepage" is the placeholder /),
			expect.stringMatching(/^- package\.json "bugs\.url" is the placeholder /),
			expect.stringMatching(/^- package\.json "author\.name" is "AUTHOR"/),
			expect.stringMatching(/^- package\.json "author\.email" is "author@example\.com"/),
			expect.stringMatching(/^- CHANGELOG\.md has no entry for 0\.1\.0/),
			expect.stringMatching(/^- CHANGELOG\.md's links name the placeholder repository/),
		]);
	}, 300_000);
});

describe('release-it, as `n8n-node release` runs it on a machine (.release-it.json)', () => {
	const config = JSON.parse(fs.readFileSync(path.join(REPO_ROOT, '.release-it.json'), 'utf8'));
	// The command line n8n-node passes to release-it wins over .release-it.json, key by key.
	const cli = fs.readFileSync(
		path.join(REPO_ROOT, 'node_modules/@n8n/node-cli/dist/commands/release.js'),
		'utf8',
	);
	const passed = [...cli.matchAll(/['`]--([\w.:]+)(?:=|['`])/g)].map(([, option]) => option);

	test("checks the chosen version before bumping, tags v<version> (Publish's trigger), restores CHANGELOG.md before committing, takes its entry as the release notes", () => {
		expect(config).toEqual({
			git: { tagName: 'v${version}' },
			npm: { allowSameVersion: true },
			github: { releaseNotes: 'node scripts/release-check.js --notes ${version}' },
			hooks: {
				'before:bump': 'node scripts/release-check.js ${version}',
				'before:git:release': 'git checkout HEAD -- CHANGELOG.md',
			},
		});
		expect(fs.readFileSync(path.join(REPO_ROOT, '.github/workflows/publish.yml'), 'utf8')).toMatch(
			/tags: \['v\*'\]/,
		);
	});

	test('n8n-node passes none of these keys itself; its own hooks still rewrite CHANGELOG.md after the bump', () => {
		expect(passed).toEqual(expect.arrayContaining(['hooks.before:init', 'hooks.after:bump']));
		for (const key of [
			'git.tagName',
			'npm.allowSameVersion',
			'github.releaseNotes',
			'hooks.before:bump',
			'hooks.before:git:release',
		])
			expect(passed).not.toContain(key);
		expect(cli).toContain('--hooks.after:bump="npx auto-changelog -p"');
	});
});
