/**
 * n8n's SSRF protection (N8N_SSRF_PROTECTION_ENABLED, n8n 2.41; n8n 3.0 blocks more ranges) with
 * the packed package, in an n8n of its own: a Base URL whose address is in the blocked ranges
 * (here 127.0.0.1, the simulator's) is refused by n8n before anything is sent, and the node says
 * so: nothing placed, not retried, not "may have been placed"; the same service reached through a
 * host name the instance allows (N8N_SSRF_ALLOWED_HOSTNAMES) works.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { NEWEST_VERSION, installPackage, n8nBin, signIn, startN8n } from '../../tools/n8n';
import type { RunningN8n } from '../../tools/n8n';
import { CALL_PATH, callStart, callStarts, people } from './calls';
import {
	TARBALL,
	expectSuccess,
	manualTrigger,
	outputOf,
	requestedVersions,
	simulatorCredential,
	useSimulatorProcess,
	voiceAssistant,
	workflow,
} from './helpers';
import { N8nSession } from './session';

const sim = useSimulatorProcess();
const onNewest = requestedVersions().includes(NEWEST_VERSION) ? describe : describe.skip;

onNewest(`n8n ${NEWEST_VERSION} with SSRF protection on`, () => {
	let n8n: RunningN8n;
	let session: N8nSession;
	const userFolder = fs.mkdtempSync(path.join(os.tmpdir(), 'va-e2e-ssrf-'));

	beforeAll(async () => {
		await installPackage(userFolder, TARBALL);
		n8n = await startN8n(n8nBin(NEWEST_VERSION), userFolder, {
			logDir: userFolder,
			extra: { N8N_SSRF_PROTECTION_ENABLED: 'true', N8N_SSRF_ALLOWED_HOSTNAMES: 'localhost' },
		});
		const { stdoutFile, stderrFile } = n8n.proc;
		const instance = {
			version: NEWEST_VERSION,
			url: n8n.url,
			bin: n8nBin(NEWEST_VERSION),
			userFolder,
			filesDir: userFolder,
			stdoutFile,
			stderrFile,
			hosts: [],
		};
		session = new N8nSession(instance, await signIn(n8n.url));
		const blocked = { ...simulatorCredential(sim().url), id: 'vaSsrfBlocked1', name: 'blocked' };
		const allowed = {
			...simulatorCredential(sim().url.replace('127.0.0.1', 'localhost')),
			id: 'vaSsrfAllowed1',
			name: 'allowed',
		};
		await session.saveCredentials([blocked, allowed]);
		const withCredential = (credential: { id: string; name: string }) => ({
			credentials: { voiceAssistantApi: credential },
		});
		const list = (credential: { id: string; name: string }) =>
			voiceAssistant(
				'List',
				{ resource: 'assistant', operation: 'getAll', returnAll: true },
				withCredential(credential),
			);
		for (const [id, credential] of [
			['vaSsrfCallBlk1', blocked],
			['vaSsrfCallAlw1', allowed],
		] as const)
			await session.saveWorkflow(
				workflow(id, `e2e: SSRF call ${credential.name}`, [
					manualTrigger(),
					people('ssrf', 1),
					callStart(withCredential(credential)),
				]),
			);
		await session.saveWorkflow(
			workflow('vaSsrfListBlk1', 'e2e: SSRF list blocked', [manualTrigger(), list(blocked)]),
		);
	}, 300_000);

	afterAll(async () => {
		await n8n?.stop();
		fs.rmSync(userFolder, { recursive: true, force: true });
	});

	beforeEach(async () => await sim().reset());

	test('a call start to a blocked address: refused by n8n before sending, not retried, never "may have been placed"', async () => {
		const { run } = await session.execute('vaSsrfCallBlk1');
		const error = run.data.resultData.runData.Call.at(-1)?.error;
		expect(error?.message).toMatch(
			/^The request to http:\/\/127\.0\.0\.1:\d+ could not be sent: n8n's SSRF protection refused the address 127\.0\.0\.1$/,
		);
		expect(error?.description).toMatch(/N8N_SSRF_ALLOWED_HOSTNAMES|N8N_SSRF_ALLOWED_IP_RANGES/);
		expect(`${error?.message} ${error?.description}`).not.toMatch(/may have been/);
		expect(await sim().requests()).toEqual([]);
	});

	test('a list to a blocked address fails at once (nothing to retry), nothing received', async () => {
		const started = Date.now();
		const { run } = await session.execute('vaSsrfListBlk1');
		expect(run.data.resultData.runData.List.at(-1)?.error?.message).toMatch(
			/could not be sent: n8n's SSRF protection refused the address/,
		);
		// Retried with backoff (8 retries) it would take seconds; refused at once, it does not.
		expect(Date.now() - started).toBeLessThan(5_000);
		expect(await sim().requests()).toEqual([]);
	});

	test('the same service through a host name the instance allows: the call is placed once', async () => {
		const { run } = expectSuccess(await session.execute('vaSsrfCallAlw1'));
		expect(outputOf(run, 'Call')).toHaveLength(1);
		expect(callStarts(await sim().requests()).map((request) => request.path)).toEqual([CALL_PATH]);
	});
});
