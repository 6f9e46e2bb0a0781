'use strict';

/**
 * `prepack`: refuses to pack when dist/ is missing or older than the sources (tools/dist.js says
 * what is), so a package without the node (or with a stale one) cannot be packed or published
 * from this folder.
 *
 * The repo's .npmrc sets ignore-scripts=true, under which npm skips prepack: `npm pack` and
 * `npm publish` run this check only with --ignore-scripts=false (the publish workflow does).
 */
const { distProblems } = require('../tools/dist');

// npm runs prepack in the package's folder.
const problems = distProblems(process.cwd());
if (problems.length) {
	process.stderr.write(
		[
			'Refusing to pack: dist/ is missing or older than the sources. Run `npm run build` first.',
			...problems.slice(0, 10).map((problem) => `  ${problem}`),
			...(problems.length > 10 ? [`  ...and ${problems.length - 10} more`] : []),
			'',
		].join('\n'),
	);
	process.exit(1);
}
