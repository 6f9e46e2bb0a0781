'use strict';

/**
 * The package as npm publishes it: `npm pack` into a folder and unpacked there, and what must
 * (and must not) be in it. The one place that packs: used by the unit test
 * test/package.test.ts, by n8n's scan in `npm run lint` (scripts/scan-package.js), and by the
 * e2e and queue suites, the demo, the benchmark and `npm run example` (tools/n8n/package.js).
 */
const { spawnSync } = require('child_process');
const fs = require('fs');
const path = require('path');
const { cleanEnv } = require('./processes');
const { REPO_ROOT } = require('./repo');

/** Files npm adds to every package whatever `files` says. */
const ALWAYS_SHIPPED = /^(package\.json|README(\.md)?|LICEN[CS]E(\.md)?)$/i;

/**
 * `npm pack` of the package in `cwd` into `destination`; returns the tarball's path. With
 * `runScripts` (the default) npm runs prepack, which refuses a missing or stale dist/; the
 * repo's .npmrc (ignore-scripts=true) would otherwise skip it.
 * @param {string} destination
 * @param {{ cwd?: string, runScripts?: boolean }} [options]
 */
function pack(destination, { cwd = REPO_ROOT, runScripts = true } = {}) {
	// On Windows npm is npm.cmd, which only a shell runs: there the folder is quoted for cmd.exe.
	const windows = process.platform === 'win32';
	const packed = spawnSync(
		'npm',
		[
			'pack',
			'--json',
			'--pack-destination',
			windows ? `"${destination}"` : destination,
			`--ignore-scripts=${!runScripts}`,
		],
		{ cwd, env: cleanEnv(), encoding: 'utf8', shell: windows },
	);
	if (packed.status !== 0)
		throw new Error(`npm pack failed (code ${packed.status}):\n${packed.stderr}`);
	const [{ filename }] = JSON.parse(packed.stdout);
	return path.join(destination, filename);
}

/**
 * `pack`, then the tarball unpacked to `<destination>/package`.
 * @param {string} destination
 * @param {{ cwd?: string, runScripts?: boolean }} [options]
 */
function packAndUnpack(destination, options) {
	const tarball = pack(destination, options);
	const untar = spawnSync('tar', ['-xzf', tarball, '-C', destination], { encoding: 'utf8' });
	if (untar.status !== 0) throw new Error(`tar -xzf ${tarball} failed:\n${untar.stderr}`);
	return { tarball, dir: path.join(destination, 'package') };
}

/**
 * Every file under `dir`, as sorted POSIX paths relative to it.
 * @param {string} dir
 * @returns {string[]}
 */
function listFiles(dir, base = dir) {
	return fs
		.readdirSync(dir, { withFileTypes: true })
		.flatMap((entry) => {
			const full = path.join(dir, entry.name);
			return entry.isDirectory()
				? listFiles(full, base)
				: [path.relative(base, full).split(path.sep).join('/')];
		})
		.sort();
}

/**
 * What is wrong with an unpacked package for n8n, one line each; empty when nothing is. n8n
 * loads the node and credential files package.json lists, the codex (.node.json) next to each
 * node and the icons they reference (light and dark); the package must ship LICENSE and README,
 * of the build output only what n8n loads (the JavaScript, the codex, the icons), no
 * dependencies of its own and n8n-workflow as its only peer.
 * @param {string} dir
 */
function packageProblems(dir) {
	const files = listFiles(dir);
	/** @type {string[]} */
	const problems = [];
	/** Whether `file` is in the package; reports it when not. @type {(file: string, why: string) => boolean} */
	const need = (file, why) => {
		if (!files.includes(file)) problems.push(`${file} is missing (${why})`);
		return files.includes(file);
	};
	for (const file of ['package.json', 'README.md', 'LICENSE']) need(file, 'every release ships it');
	if (!files.includes('package.json')) return problems;

	const manifest = JSON.parse(fs.readFileSync(path.join(dir, 'package.json'), 'utf8'));
	/** @type {string[]} */
	const nodes = manifest.n8n?.nodes ?? [];
	/** @type {string[]} */
	const credentials = manifest.n8n?.credentials ?? [];
	if (!nodes.length) problems.push('package.json lists no node under n8n.nodes');
	if (!credentials.length) problems.push('package.json lists no credential under n8n.credentials');
	for (const file of nodes) need(file, 'listed in n8n.nodes');
	for (const file of credentials) need(file, 'listed in n8n.credentials');

	for (const node of nodes.filter((file) => files.includes(file))) {
		const codex = node.replace(/\.js$/, '.json');
		if (!need(codex, `the codex of ${node}`)) continue;
		const { node: type, categories } = JSON.parse(fs.readFileSync(path.join(dir, codex), 'utf8'));
		if (!String(type).startsWith(`${manifest.name}.`) || !Array.isArray(categories)) {
			problems.push(`${codex} does not name a node of ${manifest.name} with its categories`);
		}
	}
	/** The codex files and icons n8n reads besides the JavaScript. @type {Set<string>} */
	const loaded = new Set(nodes.map((node) => node.replace(/\.js$/, '.json')));
	for (const file of [...nodes, ...credentials].filter((listed) => files.includes(listed))) {
		const source = fs.readFileSync(path.join(dir, file), 'utf8');
		const icons = [...source.matchAll(/(light|dark):\s*'file:([\w./-]+\.svg)'/g)];
		for (const theme of ['light', 'dark']) {
			if (!icons.some(([, which]) => which === theme))
				problems.push(`${file} has no ${theme} SVG icon`);
		}
		for (const [, , icon] of icons) {
			const iconFile = path.posix.join(path.posix.dirname(file), icon);
			loaded.add(iconFile);
			need(iconFile, `an icon of ${file}`);
		}
	}
	// Declarations, source maps, pictures of the docs: nothing n8n loads.
	const unused = files.filter(
		(file) => file.startsWith('dist/') && !file.endsWith('.js') && !loaded.has(file),
	);
	if (unused.length) problems.push(`files in dist/ that n8n does not load: ${unused.join(', ')}`);

	const stray = files.filter((file) => !ALWAYS_SHIPPED.test(file) && !file.startsWith('dist/'));
	const sources = files.filter((file) => file.endsWith('.ts') && !file.endsWith('.d.ts'));
	if (stray.length) problems.push(`files outside dist/: ${stray.join(', ')}`);
	if (sources.length) problems.push(`TypeScript sources: ${sources.join(', ')}`);

	for (const field of [
		'dependencies',
		'optionalDependencies',
		'bundleDependencies',
		'bundledDependencies',
	]) {
		if (Object.keys(manifest[field] ?? {}).length)
			problems.push(`package.json has ${field} (n8n installs none)`);
	}
	const peers = Object.keys(manifest.peerDependencies ?? {});
	if (peers.join() !== 'n8n-workflow')
		problems.push(
			`peerDependencies must be n8n-workflow alone, not: ${peers.join(', ') || 'none'}`,
		);
	return problems;
}

module.exports = { REPO_ROOT, listFiles, pack, packAndUnpack, packageProblems };
