/**
 * The node in n8n's editor, in headless Chromium (Debian's `chromium` package, driven by
 * playwright-core): test/e2e/browser/editor-check.js opens the credential modal, the nodes
 * panel and the parameter panel of each operation, checks the labels the spec requires, the
 * Assistant picker and the output of "Execute step", and saves a PNG of each view.
 * Skipped when /usr/bin/chromium is missing (CI installs it: apt-get install -y chromium).
 */
import fs from 'fs';
import path from 'path';
import { checkEditor, PANELS, PICTURES } from './browser/editor-check';
import { CHROMIUM } from './browser/chromium';
import { requestedVersions, simulatorCredential, useSimulatorProcess } from './helpers';
import { useN8n } from './session';
import { OWNER } from '../../tools/n8n';

const hasChromium = fs.existsSync(CHROMIUM);
const describeWithChromium = hasChromium ? describe : describe.skip;
const skipped = hasChromium
	? ''
	: ` (SKIPPED: ${CHROMIUM} is missing; apt-get install -y chromium)`;
// Jest does not list the tests of a skipped file: say it on the terminal.
if (!hasChromium) process.stdout.write(`[e2e] editor checks in Chromium${skipped}\n`);

const sim = useSimulatorProcess(hasChromium);

describeWithChromium.each(requestedVersions())(
	`n8n %s: the editor in Chromium${skipped}`,
	(version) => {
		const n8n = useN8n(version);

		beforeAll(async () => {
			await n8n().saveCredentials([simulatorCredential(sim().url)]);
		});

		test('credential modal, actions, every operation panel: labels, picker, output items, pictures', async () => {
			const { assistants } = await sim().data();
			const names = assistants.map((assistant) => assistant.name as string);
			const maya = assistants.find((assistant) => assistant.name === 'Maya');
			expect(maya?._id).toEqual(expect.any(String));
			await sim().reset();

			const outDir = path.join(n8n().instance.userFolder, `pictures-${Date.now()}`);
			const workflowsBefore = await n8n().api.call('GET', '/rest/workflows');
			const report = await checkEditor({
				url: n8n().url,
				...OWNER,
				outDir,
				assistants: ['Maya', ...names.filter((name) => name !== 'Maya')],
				log: (line) => process.stdout.write(`[editor ${version}] ${line}\n`),
			});

			expect(report.problems).toEqual([]);
			expect(report.credential.test).toBe('Connection tested successfully');
			expect(report.panels.map((panel) => [panel.node, panel.missing])).toEqual(
				PANELS.map((panel) => [panel.node, []]),
			);
			// Get Many lists every assistant; each of the other operations sends one request for the one input item.
			expect(report.panels.map((panel) => panel.items)).toEqual([names.length, 1, 1, 1, 1]);
			expect(report.assistants).toHaveLength(names.length);
			expect(report.pictures.map((file) => path.basename(file, '.png')).sort()).toEqual(
				[...PICTURES].sort(),
			);
			for (const file of report.pictures) expect(fs.statSync(file).size).toBeGreaterThan(10_000);

			// What the browser's runs sent: the picked assistant reached the call.
			const requests = await sim().requests();
			const calls = requests.filter((request) => request.path === '/api/v1/playground/call');
			expect(calls).toHaveLength(1);
			expect(JSON.parse(calls[0].rawBody)).toMatchObject({
				assistant_id: maya?._id,
				dialer_id: 'dialer-main',
			});
			expect((await sim().ledger()).applied.map((entry) => entry.op).sort()).toEqual([
				'knowledgeBase.create',
				'knowledgeBase.update',
				'playground.call',
				'segment.contact.update',
			]);
			// The check deletes the workflow it made.
			expect(await n8n().api.call('GET', '/rest/workflows')).toEqual(workflowsBefore);
		});
	},
);
