'use strict';

/**
 * The live reload of `npm run dev`: n8n's own `n8n-node dev --external-n8n` links this folder
 * into the user folder's .n8n/custom/node_modules, copies the icons and keeps dist/ compiled
 * (`tsc --watch`). The n8n the demo starts with N8N_DEV_RELOAD=true reloads its custom nodes on
 * `POST /rest/dev/reload`, asked for here each time a compilation ends without errors, and the
 * open editor follows. (n8n also watches what the link points to and reloads on each change
 * there, but a reload that starts with the source's change may load dist/ before tsc rewrote it.)
 * n8n loads what is in .n8n/custom as custom nodes, typed `CUSTOM.<name>`: the examples are
 * imported with that type (devTypes). The tool draws its terminal screen into a log file here;
 * TypeScript's verdicts and n8n's reloads are printed as they come.
 */

const fs = require('fs');
const path = require('path');
const { NODE_NAME, NODE_TYPE, PACKAGE_NAME } = require('../tools/package-names');
const { poll, startProcess } = require('../tools/processes');
const { REPO_ROOT } = require('../tools/repo');

/** The node's type when n8n loads it from .n8n/custom (n8n-core's CUSTOM_NODES_PACKAGE_NAME). */
const DEV_NODE_TYPE = `CUSTOM.${NODE_NAME}`;

/**
 * A workflow whose Voice Assistant nodes (and their AI tool variant) are the dev node.
 * @param {import('../tools/workflows').Workflow} workflow
 */
function devTypes(workflow) {
	const nodes = workflow.nodes.map((node) =>
		node.type.startsWith(NODE_TYPE)
			? { ...node, type: `${DEV_NODE_TYPE}${node.type.slice(NODE_TYPE.length)}` }
			: node,
	);
	return { ...workflow, nodes };
}

// eslint-disable-next-line no-control-regex
const ANSI = /\x1b\[[0-9;?]*[A-Za-z]/g;
/** TypeScript's lines worth a developer's eye: a compilation's end (timed) and its errors. */
const VERDICT = /Found \d+ errors?\. Watching|error TS\d+/;

/**
 * New lines of a growing log file, read from where the last call stopped.
 * @param {string} file
 */
function follow(file) {
	let offset = 0;
	return () => {
		if (!fs.existsSync(file)) return [];
		const text = fs.readFileSync(file, 'utf8');
		const fresh = text.slice(offset);
		offset = text.length;
		return fresh.replace(ANSI, '').split('\n');
	};
}

/**
 * Starts `n8n-node dev --external-n8n` for `userFolder` and resolves once the link is there and
 * the first compilation ended. Once `reloads` has n8n's address, each later compilation without
 * errors reloads the node there.
 * @param {string} userFolder
 * @param {string} logDir
 * @param {(line: string) => void} log
 */
async function startDevLoop(userFolder, logDir, log) {
	const tool = startProcess(
		path.join(REPO_ROOT, 'node_modules', '.bin', 'n8n-node'),
		['dev', '--external-n8n', '--custom-user-folder', userFolder],
		{ cwd: REPO_ROOT, logDir, name: 'n8n-node-dev' },
	);
	const link = path.join(userFolder, '.n8n', 'custom', 'node_modules', PACKAGE_NAME);
	const toolLines = follow(tool.stdoutFile);
	/** The lines printed so far: the tool draws its whole screen again at every change. */
	const printed = new Set();
	let compiled = false;
	/** @type {string | undefined} */
	let n8nUrl;
	/**
	 * n8n's own watcher may reload from a dist/ tsc is still writing, and that reload fails (n8n's
	 * log: "Hot reload failed for CUSTOM"); so may one asked for then. A failed reload is asked
	 * for again, at most twice, a second apart (three asks in all).
	 */
	const reload = async () => {
		for (let attempt = 1; ; attempt++) {
			const response = await fetch(`${n8nUrl}/rest/dev/reload`, { method: 'POST' }).catch(
				(error) => ({ ok: false, status: String(error) }),
			);
			if (response.ok) return log('n8n reloaded the node');
			if (attempt === 3) return log(`n8n did not reload the node (${response.status})`);
			await new Promise((resolve) => setTimeout(resolve, 1000));
		}
	};
	const printVerdicts = () => {
		for (const raw of toolLines()) {
			const line = raw.replace(/^[\s│]+/, '').trim();
			if (!VERDICT.test(line) || printed.has(line)) continue;
			printed.add(line);
			log(`TypeScript: ${line}`);
			if (n8nUrl && compiled && line.includes('Found 0 errors')) void reload();
			compiled ||= /Found \d+ errors?/.test(line);
		}
	};
	await poll(
		'n8n-node dev (the link and the first compilation)',
		() => {
			printVerdicts();
			return fs.existsSync(link) && compiled;
		},
		{ timeoutMs: 180_000, proc: tool },
	);
	const timer = setInterval(printVerdicts, 500);
	return {
		tool,
		/** @param {string} url the running n8n's address */
		reloads: (url) => void (n8nUrl = url),
		stop: async () => {
			clearInterval(timer);
			await tool.stop(5_000);
		},
	};
}

module.exports = { DEV_NODE_TYPE, devTypes, startDevLoop };
