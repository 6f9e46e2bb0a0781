'use strict';

/** The repo's folder and its example workflows, for the tests, the demo, the benchmark and the scripts. */

const fs = require('fs');
const path = require('path');

const REPO_ROOT = path.resolve(__dirname, '..');
const EXAMPLES_DIR = path.join(REPO_ROOT, 'examples');

/**
 * One example workflow, as shipped.
 * @param {string} file its name in examples/
 * @returns {import('./workflows').Workflow}
 */
const readExample = (file) => JSON.parse(fs.readFileSync(path.join(EXAMPLES_DIR, file), 'utf8'));

/** Every example workflow, by file name. */
const readExamples = () =>
	fs
		.readdirSync(EXAMPLES_DIR)
		.filter((file) => file.endsWith('.json'))
		.sort()
		.map(readExample);

/**
 * The tables an example needs, as its sticky note gives them to the user (its ```sql block).
 * @param {import('./workflows').Workflow} example
 */
function exampleSql(example) {
	const note = example.nodes.find((node) => node.type === 'n8n-nodes-base.stickyNote')?.parameters
		.content;
	const sql = /```sql\n([\s\S]*?)```/.exec(String(note ?? ''))?.[1];
	if (!sql) throw new Error(`"${example.name}" has no SQL block in its note`);
	return sql;
}

/**
 * The file a dev dependency's command runs (its package.json's `bin`), for running it with this
 * Node.js: no shell, no node_modules/.bin shim (a .cmd file on Windows).
 * @param {string} pkg
 * @param {string} [command] the command's name when the package has several
 */
function binOf(pkg, command) {
	const dir = path.join(REPO_ROOT, 'node_modules', pkg);
	const { bin } = require(path.join(dir, 'package.json'));
	return path.join(dir, typeof bin === 'string' ? bin : bin[command ?? Object.keys(bin)[0]]);
}

module.exports = { EXAMPLES_DIR, REPO_ROOT, binOf, exampleSql, readExample, readExamples };
