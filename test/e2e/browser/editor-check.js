#!/usr/bin/env node
'use strict';

/**
 * The Voice Assistant node in n8n's editor, in a real browser (Debian's Chromium, driven by
 * playwright-core; no browser is ever downloaded). Against a running n8n that has the package
 * installed and a Voice Assistant credential pointing at the API simulator, it:
 *
 * - opens the credential modal and waits for n8n's own connection test to pass;
 * - opens the node in the nodes panel and reads its five actions;
 * - saves a workflow with one node per operation and, for each, opens the parameter panel,
 *   checks that the fields the spec requires are shown (by their labels), runs the node
 *   ("Execute step") and checks that output items are shown; for Playground Call → Start it
 *   opens the Assistant picker, checks it lists the simulator's assistants and picks one;
 * - saves a PNG of each of these views into the output folder, then deletes the workflow.
 *
 * Every operation runs once against the credential's service (a call is started, a knowledge
 * base created...), so it refuses a credential whose Base URL is not on this machine.
 *
 *   node test/e2e/browser/editor-check.js [--url http://127.0.0.1:5678] [--email demo@example.com]
 *     [--password Demo-password-1] [--out .demo/editor-check] [--only operations,credential-modal]
 *     [--expect-label "Start a playground call=Caller ID"]
 *
 * The defaults fit `npm run demo`. Exit code 0 when every check passed, 1 otherwise.
 */

const fs = require('fs');
const path = require('path');
const { OWNER, signIn } = require('../../../tools/n8n');
const { CREDENTIAL_TYPE, NODE_TYPE } = require('../../../tools/package-names');
const { openLoopbackBrowser } = require('./chromium');

const VIEWPORT = { width: 1280, height: 800 };
const TIMEOUT_MS = 90_000;

/** The seeded knowledge base, updated with its own content (the demo's data stay as they are). */
const WORKSHOP_HOURS = {
	id: '6650a1b2c3d4e5f6a7b8c9d1',
	title: 'Autohaus Weber workshop hours',
	pairs: [
		{
			question: 'When is the workshop open?',
			answer: 'Monday to Friday from 7:30 to 18:00, Saturday from 8:00 to 13:00.',
		},
		{
			question: 'Do you offer a courtesy car?',
			answer: 'Yes, a courtesy car is available if booked together with the appointment.',
		},
	],
};

/**
 * One node per operation, named like the action n8n lists; `labels`: what the spec requires.
 * @type {Array<{ file: string, node: string, parameters: Record<string, unknown>, labels: string[], picker?: boolean }>}
 */
const PANELS = [
	{
		file: 'assistant-get-many',
		node: 'Get many assistants',
		parameters: { resource: 'assistant', operation: 'getAll', returnAll: false, limit: 50 },
		labels: ['Return All', 'Limit', 'Filters', 'Simplify'],
	},
	{
		file: 'playground-call-start',
		node: 'Start a playground call (rings the phone now)',
		// The assistant is left empty: the check picks it from the list.
		parameters: {
			resource: 'playgroundCall',
			operation: 'start',
			dialerId: 'dialer-main',
			firstName: 'Ada',
			lastName: 'Lovelace',
			email: 'ada@example.com',
			phoneNumbers: '+14155550101',
		},
		labels: ['Assistant', 'Dialer ID', 'First Name', 'Last Name', 'Email', 'Phone Numbers'],
		picker: true,
	},
	{
		file: 'knowledge-base-create',
		node: 'Create a knowledge base',
		parameters: {
			resource: 'knowledgeBase',
			operation: 'create',
			title: 'Opening hours',
			language: 'en',
			qaInputMode: 'list',
			questionsAndAnswers: {
				pairs: [
					{ question: 'What are your opening hours?', answer: 'Monday to Friday, 9am to 5pm.' },
				],
			},
		},
		labels: ['Title', 'Language', 'Questions and Answers'],
	},
	{
		file: 'knowledge-base-update',
		node: 'Replace a knowledge base (all its pairs)',
		parameters: {
			resource: 'knowledgeBase',
			operation: 'update',
			knowledgeBaseId: WORKSHOP_HOURS.id,
			title: WORKSHOP_HOURS.title,
			language: 'en',
			qaInputMode: 'list',
			questionsAndAnswers: { pairs: WORKSHOP_HOURS.pairs },
		},
		labels: ['Knowledge Base ID', 'Title', 'Language', 'Questions and Answers'],
	},
	{
		file: 'segment-contact-update',
		node: 'Update a segment contact',
		parameters: {
			resource: 'segmentContact',
			operation: 'update',
			contactId: 'crm-1001',
			contactFirstName: 'Grace',
			contactLastName: 'Hopper',
			phone: '+14155550102',
		},
		labels: ['Contact ID', 'First Name', 'Last Name', 'Phone'],
	},
];

// Every operation's Options hold Max Requests per Second: set, it shows in each panel.
for (const panel of PANELS) {
	panel.parameters.options = { maxRequestsPerSecond: 10 };
	panel.labels.push('Max Requests per Second');
}

const ACTIONS = PANELS.map((panel) => panel.node);

/** Every picture the check takes, by file name (without .png). */
const PICTURES = [
	'credential-modal',
	'operations',
	...PANELS.map((panel) => panel.file),
	'playground-call-start-picker',
];

/** Node ids of the check's workflow: the Manual Trigger, then one per panel. */
/** @param {number} i */
const nodeId = (i) => `00000000-0000-4000-8000-${String(i).padStart(12, '0')}`;

/**
 * A Manual Trigger connected to one Voice Assistant node per panel.
 * @param {{ id: string, name: string }} credential
 */
function editorWorkflow(credential) {
	const nodes = PANELS.map((panel, i) => ({
		id: nodeId(i + 1),
		name: panel.node,
		type: NODE_TYPE,
		typeVersion: 1,
		position: [260, i * 160 - 320],
		parameters: panel.parameters,
		credentials: { [CREDENTIAL_TYPE]: { id: credential.id, name: credential.name } },
	}));
	const start = {
		id: nodeId(0),
		name: 'Start',
		type: 'n8n-nodes-base.manualTrigger',
		typeVersion: 1,
		position: [0, 0],
		parameters: {},
	};
	return {
		name: `Voice Assistant editor check ${new Date().toISOString()}`,
		active: false,
		settings: { executionOrder: 'v1' },
		nodes: [start, ...nodes],
		connections: {
			Start: { main: [nodes.map((node) => ({ node: node.name, type: 'main', index: 0 }))] },
		},
	};
}

/**
 * The labels of the input labels in a part of the page.
 * @param {Locator} labels
 * @param {{ visibleOnly?: boolean }} [options] without the labels of hidden tabs
 * @returns {Promise<string[]>}
 */
function labelTexts(labels, { visibleOnly = false } = {}) {
	return labels.evaluateAll(
		(elements, visible) =>
			/** @type {Array<{ offsetParent: unknown, textContent: string | null, querySelector(selector: string): { textContent: string | null } | null }>} */ (
				/** @type {unknown} */ (elements)
			)
				.filter((label) => !visible || label.offsetParent !== null)
				.map(
					(label) =>
						(label.querySelector('.n8n-text') ?? label).textContent?.replace(/\*\s*$/, '').trim() ??
						'',
				),
		visibleOnly,
	);
}

/** The labels of the parameters shown in the open node panel (hidden tabs left out). @param {Page} page */
const shownLabels = (page) =>
	labelTexts(page.locator('[data-test-id="node-parameters"] label.n8n-input-label'), {
		visibleOnly: true,
	});

/** Runs the node of the open panel; resolves with the number of output items it shows. @param {Page} page */
async function executeStep(page) {
	await page.locator('[data-test-id="node-execute-button"]').first().click();
	const output = page.locator('[data-test-id="output-panel"]');
	const ran = output.locator('[data-test-id="node-run-info"]');
	// A run n8n refuses to start ("The workflow has issues...") only shows a toast.
	const refused = page.locator('.el-notification').filter({ hasText: /problem/i });
	await ran.or(refused).first().waitFor({ timeout: TIMEOUT_MS });
	if (await refused.count())
		throw new Error((await refused.first().innerText()).replace(/\s+/g, ' ').trim());
	const error = output.locator('[data-test-id="node-error-message"]');
	if (await error.count())
		throw new Error(`the node failed: ${(await error.first().innerText()).trim()}`);
	const count = output.locator('[data-test-id="ndv-items-count"]');
	if (!(await count.count())) return 0; // "No output data returned"
	const match = /(\d+)\s+items?/.exec(await count.first().innerText());
	return match ? Number(match[1]) : 0;
}

/**
 * The names the Assistant picker lists; picks the one starting with `pick`.
 * @param {Page} page
 * @param {string} pick
 * @param {(target: Locator) => Promise<void>} screenshot
 */
async function useAssistantPicker(page, pick, screenshot) {
	await page.locator('[data-test-id="rlc-input"]').first().click();
	const items = page.locator('[data-test-id="rlc-item"]');
	await items
		.first()
		.waitFor({ timeout: 30_000 })
		.catch(() => {});
	const names = (await items.allInnerTexts()).map((name) => name.trim());
	await screenshot(page.locator('[data-test-id="ndv"]'));
	const chosen = items.filter({
		hasText: new RegExp(`^\\s*${pick.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')} \\(`),
	});
	if (await chosen.count()) await chosen.first().click();
	else await page.keyboard.press('Escape');
	return names;
}

/**
 * @typedef {import('playwright-core').Locator} Locator
 * @typedef {import('playwright-core').Page} Page
 * @typedef {{
 *   credential: { test?: string, labels?: string[] },
 *   actions: string[],
 *   panels: Array<{ node: string, labels: string[], missing: string[], items: number }>,
 *   assistants: string[],
 *   pictures: string[],
 *   problems: string[],
 * }} EditorReport
 *   actions: what the nodes panel lists for the node; assistants: what the Assistant picker
 *   (From List) listed; problems: empty when every check passed.
 * @typedef {{
 *   url: string, email: string, password: string, outDir: string, only?: string[],
 *   assistants?: string[], expectLabels?: Record<string, string[]>, log?: (line: string) => void,
 * }} CheckOptions
 *   `assistants`: names the picker must list (the first one is picked); `expectLabels`: more
 *   labels to require, by node name (to see the check fail).
 */

/**
 * Runs every check; resolves with what it saw and the list of problems (empty when all passed).
 * @param {CheckOptions} options
 * @returns {Promise<EditorReport>}
 */
async function checkEditor(options) {
	const { url, outDir, assistants = ['Maya'], expectLabels = {}, log = () => {} } = options;
	const only = options.only?.length ? options.only : PICTURES;
	const unknown = only.filter((name) => !PICTURES.includes(name));
	if (unknown.length)
		throw new Error(`unknown pictures: ${unknown.join(', ')}; known: ${PICTURES.join(', ')}`);
	fs.mkdirSync(outDir, { recursive: true });

	const api = await signIn(url, { ...OWNER, email: options.email, password: options.password });
	/** @type {Array<{ id: string, name: string, type: string, data?: { baseUrl?: string } }>} */
	const credentials = (await api.call('GET', '/rest/credentials?includeData=true')).filter(
		(/** @type {{ type: string }} */ c) => c.type === CREDENTIAL_TYPE,
	);
	const credential = credentials.find((c) =>
		/^https?:\/\/(127\.0\.0\.1|localhost)(:|\/|$)/.test(c.data?.baseUrl ?? ''),
	);
	if (!credential) {
		throw new Error(
			`no ${CREDENTIAL_TYPE} credential with a Base URL on 127.0.0.1 (found: ${credentials.map((c) => c.data?.baseUrl).join(', ') || 'none'})`,
		);
	}
	/** @type {string[]} */
	const problems = [];
	/** @type {EditorReport} */
	const report = {
		credential: {},
		actions: [],
		panels: [],
		assistants: [],
		pictures: [],
		problems,
	};
	const { context, close } = await openLoopbackBrowser({
		url,
		cookie: api.cookie,
		viewport: VIEWPORT,
	});
	/** @type {{ id: string } | undefined} */
	let workflow;
	try {
		const saved = await api.call('POST', '/rest/workflows', editorWorkflow(credential));
		workflow = saved;
		log(`workflow ${saved.id}, credential "${credential.name}" -> ${credential.data?.baseUrl}`);
		const page = context.pages()[0] ?? (await context.newPage());
		page.setDefaultTimeout(TIMEOUT_MS);
		/** @param {string} file @returns {(target: Locator) => Promise<void>} */
		const picture = (file) => async (target) => {
			if (!only.includes(file)) return;
			// No "Node executed successfully" toasts over the pictures (only while taking them).
			const hideToasts = await page.addStyleTag({
				content: '.el-notification { display: none !important; }',
			});
			const png = path.join(outDir, `${file}.png`);
			await target.screenshot({ path: png, animations: 'disabled' });
			await hideToasts.evaluate((style) => style.remove());
			report.pictures.push(png);
		};
		/** @param {string} what @param {() => Promise<void>} run */
		const step = async (what, run) => {
			const started = Date.now();
			try {
				await run();
			} catch (error) {
				problems.push(`${what}: ${error.message.split('\n')[0]}`);
			}
			log(`${what}: ${Math.round((Date.now() - started) / 100) / 10} s`);
		};

		await step('credential modal', async () => {
			await page.goto(`${url}/home/credentials/${credential.id}`);
			const modal = page.locator('[data-test-id="editCredential-modal"]');
			await modal.waitFor();
			// n8n tests the saved credential when the modal opens.
			const success = modal.locator('[data-test-id="credentials-config-container-test-success"]');
			const failure = modal.getByText(/connect with these settings/i);
			await success.or(failure).first().waitFor();
			if (await failure.count()) {
				const banner = (await failure.first().locator('xpath=..').innerText())
					.replace(/\s+/g, ' ')
					.trim();
				throw new Error(`the connection test failed: ${banner}`);
			}
			report.credential.test = (await success.innerText()).split('\n')[0].trim();
			const labels = await labelTexts(modal.locator('label.n8n-input-label'));
			report.credential.labels = labels;
			const missing = ['API Key', 'Base URL', 'Rate Limit', 'Rate Limit Per'].filter(
				(label) => !labels.includes(label),
			);
			if (missing.length) problems.push(`credential modal: missing ${missing.join(', ')}`);
			if (only.includes('credential-modal')) {
				// The modal scrolls its fields (Rate Limit last): unrolled in a taller window, the
				// picture shows them all.
				await page.setViewportSize({ ...VIEWPORT, height: 1400 });
				await modal.evaluate((root) => {
					for (const element of [root, ...root.querySelectorAll('*')]) {
						const style = /** @type {any} */ (globalThis).getComputedStyle(element);
						if (!/auto|scroll/.test(style.overflowY) && style.maxHeight === 'none') continue;
						element.style.maxHeight = 'none';
						element.style.height = 'auto';
						element.style.overflowY = 'visible';
					}
				});
				await picture('credential-modal')(modal);
				await page.setViewportSize(VIEWPORT);
			}
		});

		await step('nodes panel', async () => {
			await page.goto(`${url}/workflow/${saved.id}`);
			await page.locator('[data-test-id="canvas-node"]').first().waitFor();
			await page.locator('[data-test-id="node-creator-plus-button"]').click();
			const creator = page.locator('[data-test-id="node-creator"]');
			await creator.locator('input').first().fill('Voice Assistant');
			await creator
				.locator('[data-test-id="node-creator-item-name"]')
				.getByText('Voice Assistant', { exact: true })
				.click();
			await creator.getByText(ACTIONS[0], { exact: true }).waitFor();
			report.actions = (
				await creator.locator('[data-test-id="node-creator-item-name"]').allInnerTexts()
			).map((a) => a.trim());
			const missing = ACTIONS.filter((action) => !report.actions.includes(action));
			if (missing.length) problems.push(`nodes panel: missing actions ${missing.join(', ')}`);
			await picture('operations')(creator);
		});

		for (const [i, panel] of PANELS.entries()) {
			/** @type {EditorReport['panels'][number]} */
			const seen = { node: panel.node, labels: [], missing: [], items: 0 };
			report.panels.push(seen);
			await step(panel.node, async () => {
				await page.goto(`${url}/workflow/${saved.id}/${nodeId(i + 1)}`);
				const ndv = page.locator('[data-test-id="ndv"]');
				await ndv.locator('[data-test-id="node-parameters"]').waitFor();
				const expected = [...panel.labels, ...(expectLabels[panel.node] ?? [])];
				// A long panel renders its last parameters a moment later (2.41): read again until they show.
				for (let tries = 0; tries < 20; tries++) {
					seen.labels = await shownLabels(page);
					seen.missing = expected.filter((label) => !seen.labels.includes(label));
					if (!seen.missing.length) break;
					await page.waitForTimeout(250);
				}
				if (seen.missing.length)
					problems.push(`${panel.node}: missing ${seen.missing.map((l) => `"${l}"`).join(', ')}`);
				if (panel.picker) {
					report.assistants = await useAssistantPicker(
						page,
						assistants[0],
						picture('playground-call-start-picker'),
					);
					const absent = assistants.filter(
						(a) => !report.assistants.some((listed) => listed.startsWith(`${a} (`)),
					);
					if (!report.assistants.length) problems.push('Assistant picker: the list is empty');
					else if (absent.length)
						problems.push(
							`Assistant picker: ${absent.join(', ')} not listed (${report.assistants.join(', ')})`,
						);
				}
				seen.items = await executeStep(page);
				if (seen.items < 1) problems.push(`${panel.node}: no output items`);
				await picture(panel.file)(ndv);
			});
		}
	} finally {
		await close();
		if (workflow) {
			// n8n 2.x deletes only archived workflows; 1.x has no archive.
			await api.send('POST', `/rest/workflows/${workflow.id}/archive`);
			await api.send('DELETE', `/rest/workflows/${workflow.id}`);
		}
	}
	return report;
}

/**
 * @param {string[]} argv
 * @returns {CheckOptions & { expectLabels: Record<string, string[]> }}
 */
function parseArgs(argv) {
	/** @type {CheckOptions & { expectLabels: Record<string, string[]> }} */
	const options = {
		url: 'http://127.0.0.1:5678',
		email: OWNER.email,
		password: OWNER.password,
		outDir: '.demo/editor-check',
		only: [],
		expectLabels: {},
	};
	for (let i = 0; i < argv.length; i += 2) {
		const [flag, value] = [argv[i], argv[i + 1]];
		if (value === undefined) throw new Error(`${flag} needs a value`);
		if (flag === '--url') options.url = value.replace(/\/$/, '');
		else if (flag === '--email') options.email = value;
		else if (flag === '--password') options.password = value;
		else if (flag === '--out') options.outDir = value;
		else if (flag === '--only') options.only = value.split(',');
		else if (flag === '--assistants') options.assistants = value.split(',');
		else if (flag === '--expect-label') {
			const [node, label] = value.split('=');
			options.expectLabels[node] = [...(options.expectLabels[node] ?? []), label];
		} else throw new Error(`unknown option ${flag}`);
	}
	return options;
}

if (require.main === module) {
	/** @param {string} line */
	const log = (line) => process.stdout.write(`[editor-check] ${line}\n`);
	Promise.resolve()
		.then(() => checkEditor({ ...parseArgs(process.argv.slice(2)), log }))
		.then((report) => {
			for (const panel of report.panels)
				log(`${panel.node}: ${panel.items} item(s); labels ${panel.labels.join(', ')}`);
			log(`assistant picker: ${report.assistants.join(', ')}`);
			log(`credential modal: ${report.credential.test}`);
			log(`pictures: ${report.pictures.join(', ')}`);
			for (const problem of report.problems) log(`FAIL ${problem}`);
			log(report.problems.length ? `${report.problems.length} problem(s)` : 'all checks passed');
			process.exitCode = report.problems.length ? 1 : 0;
		})
		.catch((error) => {
			log(`Failed: ${error.stack}`);
			process.exitCode = 1;
		});
}

module.exports = { ACTIONS, PANELS, PICTURES, checkEditor };
