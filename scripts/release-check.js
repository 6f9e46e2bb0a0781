'use strict';

/**
 * What a release needs before it ships, checked by `npm run release` (after a build, before
 * `n8n-node release`), by release-it's hook once the version is chosen (.release-it.json:
 * `before:bump`, with the new version) and by `prepublishOnly` (after `n8n-node prerelease`,
 * with package.json's version):
 *
 * - package.json names the real public repository and author: `repository`, `homepage`, `bugs`
 *   and `author` hold no placeholder (OWNER in a GitHub address, AUTHOR, an address at a reserved
 *   domain such as example.com) and the three addresses name one GitHub repository. n8n's
 *   verification compares the npm package's repository and author with the public repository,
 *   and npm refuses a provenance publish from another repository;
 * - CHANGELOG.md has a dated entry for the version (`## [0.2.0] - 2026-12-01`, with at least one
 *   line; a pre-release such as 0.0.0-bootstrap.0 needs none), and its links name no placeholder
 *   repository;
 * - the node's recorded contract is up to date (test/contract.test.ts, tools/contract.js).
 *
 * Each problem is one line saying what to do. `--notes <version>` prints the version's entry
 * instead (release-it's GitHub release notes).
 */
const fs = require('fs');
const path = require('path');
const { runContractTest } = require('../tools/contract');
const { REPO_ROOT } = require('../tools/repo');

/** The placeholder package.json ships with until its owner fills it in (RELEASING.md). */
const PLACEHOLDER_OWNER = 'OWNER';
const PLACEHOLDER_AUTHOR = 'AUTHOR';
/** Domains reserved for examples and tests (RFC 2606, RFC 6761): no one reads mail there. */
const RESERVED_DOMAIN = /(^|\.)(example\.(com|net|org)|example|invalid|test|localhost)$/i;
const GITHUB = /^(?:git\+)?https:\/\/github\.com\/([\w.-]+)\/([\w.-]+?)(?:\.git)?(?:[/#?].*)?$/;

const FILL_IN = '(RELEASING.md, "Before the first release")';

/**
 * The problems of package.json's repository, homepage, bugs and author fields.
 * @param {Record<string, any>} pkg
 * @returns {string[]}
 */
function packageProblems(pkg) {
	/** @type {string[]} */
	const problems = [];
	/** @type {Array<[string, unknown]>} */
	const addresses = [
		['repository.url', typeof pkg.repository === 'string' ? pkg.repository : pkg.repository?.url],
		['homepage', pkg.homepage],
		['bugs.url', typeof pkg.bugs === 'string' ? pkg.bugs : pkg.bugs?.url],
	];
	/** @type {Set<string>} */
	const repositories = new Set();
	for (const [field, value] of addresses) {
		const github = typeof value === 'string' ? GITHUB.exec(value) : null;
		if (!github) {
			problems.push(
				`package.json "${field}" is ${JSON.stringify(value)}, not an address on github.com ${FILL_IN}`,
			);
		} else if (github[1].toUpperCase() === PLACEHOLDER_OWNER) {
			problems.push(
				`package.json "${field}" is the placeholder ${value}: put the owner of your public GitHub repository in place of ${github[1]} ${FILL_IN}`,
			);
		} else repositories.add(`${github[1]}/${github[2]}`.toLowerCase());
	}
	if (repositories.size > 1)
		problems.push(
			`package.json's repository, homepage and bugs name different repositories (${[...repositories].join(', ')}): all three must be the one the package is published from`,
		);
	const author =
		typeof pkg.author === 'string'
			? {
					name: pkg.author.replace(/[<(].*$/, '').trim(),
					email: /<([^>]*)>/.exec(pkg.author)?.[1],
				}
			: (pkg.author ?? {});
	const name = String(author.name ?? '').trim();
	const email = String(author.email ?? '').trim();
	if (!name || name.toUpperCase() === PLACEHOLDER_AUTHOR)
		problems.push(
			`package.json "author.name" is ${JSON.stringify(author.name)}: your name or your organisation's, as on the npm account that publishes ${FILL_IN}`,
		);
	if (!/^[^@\s]+@[^@\s]+$/.test(email) || RESERVED_DOMAIN.test(email.split('@')[1]))
		problems.push(
			`package.json "author.email" is ${JSON.stringify(author.email)}: an address that reaches you ${FILL_IN}`,
		);
	return problems;
}

const escape = (/** @type {string} */ text) => text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

/**
 * The lines of CHANGELOG.md's entry for `version` (after its heading, before the next), or
 * undefined when it has no dated entry.
 * @param {string} changelog
 * @param {string} version
 */
function changelogEntry(changelog, version) {
	const heading = new RegExp(`^## \\[${escape(version)}\\] - \\d{4}-\\d{2}-\\d{2}\\s*$`, 'm');
	const found = heading.exec(changelog);
	if (!found) return undefined;
	const rest = changelog.slice(found.index + found[0].length);
	const next = rest.search(/^## |^\[[^\]]+\]: /m);
	return (next === -1 ? rest : rest.slice(0, next)).trim();
}

/**
 * The problems of CHANGELOG.md for a release of `version`.
 * @param {string} changelog
 * @param {string} version
 * @returns {string[]}
 */
function changelogProblems(changelog, version) {
	/** @type {string[]} */
	const problems = [];
	const entry = changelogEntry(changelog, version);
	// A pre-release (the bootstrap placeholder of RELEASING.md) is no version users upgrade to.
	const preRelease = version.includes('-');
	if (!preRelease && entry === undefined)
		problems.push(
			`CHANGELOG.md has no entry for ${version}: add "## [${version}] - YYYY-MM-DD" (today's date) with what changed for users, moving the lines under [Unreleased] there (RELEASING.md, "A release")`,
		);
	else if (!preRelease && !/^\s*- /m.test(entry ?? ''))
		problems.push(
			`CHANGELOG.md's entry for ${version} lists nothing: say what changed for users (Added, Changed, Fixed, Breaking)`,
		);
	if (changelog.includes(`github.com/${PLACEHOLDER_OWNER}/`))
		problems.push(
			`CHANGELOG.md's links name the placeholder repository github.com/${PLACEHOLDER_OWNER}/: point them at your public repository`,
		);
	return problems;
}

/**
 * Every problem of a release of `version` (default: package.json's) from `root`; none means ready.
 * @param {{ root?: string, version?: string, contractDir?: string, contract?: boolean }} [options]
 *   contractDir: the recorded contracts to compare with (default test/contract/); contract: false
 *   leaves that comparison out.
 * @returns {string[]}
 */
function releaseProblems({ root = REPO_ROOT, version, contractDir, contract = true } = {}) {
	const pkg = JSON.parse(fs.readFileSync(path.join(root, 'package.json'), 'utf8'));
	const changelog = fs.readFileSync(path.join(root, 'CHANGELOG.md'), 'utf8');
	const problems = [
		...packageProblems(pkg),
		...changelogProblems(changelog, version ?? pkg.version),
	];
	if (contract) {
		const { status, output } = runContractTest({ dir: contractDir });
		if (status !== 0) {
			const found = output
				.split('\n')
				.filter((line) => /^\s*(✗|\+ |Version \d|Additions|Nothing|dist\/ is)/.test(line))
				.map((line) => `  ${line.trim()}`);
			problems.push(
				[
					"The node's recorded contract is not up to date (test/contract.test.ts fails; `npx jest test/contract.test.ts` shows why):",
					...found,
				].join('\n'),
			);
		}
	}
	return problems;
}

if (require.main === module) {
	const [first, second] = process.argv.slice(2);
	if (first === '--notes') {
		const entry = changelogEntry(
			fs.readFileSync(path.join(REPO_ROOT, 'CHANGELOG.md'), 'utf8'),
			second,
		);
		process.stdout.write(`${entry ?? ''}\n`);
		process.exit(entry === undefined ? 1 : 0);
	}
	const problems = releaseProblems({ version: first });
	if (problems.length) {
		process.stderr.write(
			`Not ready to release:\n${problems.map((problem) => `- ${problem}`).join('\n')}\n`,
		);
		process.exit(1);
	}
	process.stdout.write('Ready to release: package.json, CHANGELOG.md and the contract.\n');
}

module.exports = { changelogEntry, changelogProblems, packageProblems, releaseProblems };
