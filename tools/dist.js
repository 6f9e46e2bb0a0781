'use strict';

/**
 * Whether dist/ is complete and current, for `prepack` (scripts/check-dist.js) and for everything
 * that packs the package into n8n (tools/n8n/package.js builds first when it is not).
 * Every .ts file under nodes/ and credentials/ needs its compiled .js in dist/, written after
 * the source was last changed; every other file there and in icons/ (the codex .node.json, the
 * icons) needs an
 * identical copy in dist/ (gulp keeps the source's modification time, so only the content
 * tells; tsc re-indents the codex, so JSON is compared by value). The files package.json's
 * "n8n" section lists must exist, and nothing in dist/ may be left from a deleted source.
 */
const fs = require('fs');
const path = require('path');
const SOURCE_FOLDERS = ['nodes', 'credentials', 'icons'];

/**
 * @param {string} dir
 * @returns {string[]}
 */
function filesUnder(dir) {
	if (!fs.existsSync(dir)) return [];
	return fs.readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
		const full = path.join(dir, entry.name);
		return entry.isDirectory() ? filesUnder(full) : [full];
	});
}

/**
 * Byte for byte; JSON by value (tsc re-indents the codex it copies).
 * @param {string} built
 * @param {string} source
 */
function sameContent(built, source) {
	if (source.endsWith('.json')) {
		/** @param {string} file */
		const parse = (file) => JSON.stringify(JSON.parse(fs.readFileSync(file, 'utf8')));
		return parse(built) === parse(source);
	}
	return fs.readFileSync(built).equals(fs.readFileSync(source));
}

/**
 * What is missing or stale in <root>/dist, one line each; empty when dist/ is complete and current.
 * @param {string} root the package's folder
 */
function distProblems(root) {
	/** @type {string[]} */
	const problems = [];
	for (const source of SOURCE_FOLDERS.flatMap((folder) => filesUnder(path.join(root, folder)))) {
		const relative = path.relative(root, source);
		const isTypeScript = relative.endsWith('.ts');
		const built = path.join('dist', isTypeScript ? relative.replace(/\.ts$/, '.js') : relative);
		const builtPath = path.join(root, built);
		if (!fs.existsSync(builtPath)) problems.push(`${built} is missing (from ${relative})`);
		else if (isTypeScript && fs.statSync(builtPath).mtimeMs < fs.statSync(source).mtimeMs) {
			problems.push(`${built} is older than ${relative}`);
		} else if (!isTypeScript && !sameContent(builtPath, source)) {
			problems.push(`${built} differs from ${relative}`);
		}
	}
	for (const built of filesUnder(path.join(root, 'dist'))) {
		const relative = path.relative(path.join(root, 'dist'), built);
		const source = relative.replace(/(\.d\.ts|\.js\.map|\.js)$/, '.ts');
		if (!fs.existsSync(path.join(root, source)))
			problems.push(`dist/${relative} has no source (${source} is gone)`);
	}
	const { n8n = {} } = JSON.parse(fs.readFileSync(path.join(root, 'package.json'), 'utf8'));
	for (const listed of [...(n8n.nodes ?? []), ...(n8n.credentials ?? [])]) {
		const reported = problems.some((problem) => problem.startsWith(`${path.normalize(listed)} `));
		if (!reported && !fs.existsSync(path.join(root, listed)))
			problems.push(`${listed} (listed in package.json) is missing`);
	}
	return problems;
}

module.exports = { distProblems };
