/**
 * `npm run dev` as a developer runs it: n8n (the demo's version) with this folder linked by
 * `n8n-node dev --external-n8n`, reloading the node when its sources change. A field's
 * description changed in nodes/ reaches the running n8n's node types without a restart, and the
 * change undone does too. It changes a source file for a moment (put back however the test ends).
 */
import { spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { DEMO_VERSION, requestedVersions, signIn } from '../../tools/n8n';
import { REPO_ROOT } from '../../tools/repo';
import { poll } from '../../tools/processes';
import { DEV_NODE_TYPE } from '../../demo/dev';

const SOURCE = path.join(REPO_ROOT, 'nodes/VoiceAssistant/resources/playgroundCall/start.ts');
const DESCRIPTION = 'ID of the dialer (phone line) that places the call';
const CHANGED = `${DESCRIPTION} (changed while n8n runs)`;

const onDemoVersion = requestedVersions().includes(DEMO_VERSION) ? describe : describe.skip;

onDemoVersion(`npm run dev (n8n ${DEMO_VERSION})`, () => {
	let dev: ChildProcess;
	let output = '';
	const original = fs.readFileSync(SOURCE, 'utf8');

	beforeAll(async () => {
		dev = spawn('npm', ['run', 'dev'], { cwd: REPO_ROOT, detached: true });
		dev.stdout?.on('data', (data: Buffer) => (output += String(data)));
		dev.stderr?.on('data', (data: Buffer) => (output += String(data)));
		await poll('npm run dev', () => output.includes('Press Ctrl-C to stop.'), {
			timeoutMs: 8 * 60_000,
		});
	}, 9 * 60_000);

	afterAll(async () => {
		fs.writeFileSync(SOURCE, original);
		if (dev.exitCode === null) {
			process.kill(-(dev.pid as number), 'SIGINT');
			await new Promise((resolve) => dev.once('exit', resolve));
		}
	}, 60_000);

	test(
		'a changed description shows in the running n8n, and so does the change undone',
		async () => {
			expect(original).toContain(`description: '${DESCRIPTION}',`);
			const url = /n8n editor {3}(http:\/\/\S+)/.exec(output)?.[1] as string;
			const api = await signIn(url);
			/**
			 * The Dialer ID's description in n8n's node types; undefined while n8n does not answer
			 * with the whole list (n8n rewrites the file on a reload: a read then can get part of it).
			 */
			const dialerDescription = async () => {
				const types: unknown = await api.call('GET', '/types/nodes.json').catch(() => undefined);
				if (!Array.isArray(types)) return undefined;
				const node = (
					types as Array<{
						name: string;
						properties: Array<{ name: string; description?: string }>;
					}>
				).find((type) => type.name === DEV_NODE_TYPE);
				return node?.properties.find((property) => property.name === 'dialerId')?.description;
			};
			const shows = async (description: string) =>
				await poll(
					`n8n showing "${description}"`,
					async () => (await dialerDescription()) === description,
					{
						timeoutMs: 120_000,
					},
				);
			await shows(DESCRIPTION);
			fs.writeFileSync(SOURCE, original.replace(`'${DESCRIPTION}'`, `'${CHANGED}'`));
			await shows(CHANGED);
			fs.writeFileSync(SOURCE, original);
			await shows(DESCRIPTION);
			// TypeScript compiled each change, and the dev loop had n8n reload the node after each.
			expect(output.match(/TypeScript: .*Found 0 errors/g)?.length).toBeGreaterThanOrEqual(3);
			await poll('two reloads', () => (output.match(/n8n reloaded the node/g)?.length ?? 0) >= 2, {
				timeoutMs: 60_000,
			});
		},
		5 * 60_000,
	);
});
