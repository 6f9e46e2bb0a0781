/**
 * The ways n8n runs a node besides one manual run, in real n8n with the packed package: n8n's
 * own Retry On Fail, the credential's Allowed HTTP Request Domains (`n8n execute`), and an
 * execution stopped from the editor during a Retry-After wait (`n8n start` + its REST API).
 */
import {
	API_KEY,
	CONTACT_PATH,
	itemsNode,
	manualTrigger,
	outputOf,
	removeUserFolder,
	simulatorCredential,
	useImportedN8n,
	useSimulatorProcess,
	userFolderWithPackage,
	voiceAssistant,
	workflow,
	type Workflow,
} from './helpers';
import type { RunningN8n } from '../../tools/n8n';
import { executeWorkflow, n8nBin, requestedVersions, setupOwner, startN8n } from '../../tools/n8n';
import { sleep } from '../../tools/processes';

const RESTRICTED = { id: 'vaRestrictedCr1', name: 'Voice Assistant (restricted)' };
const OWNER = { email: 'paths@example.com', firstName: 'Run', lastName: 'Paths', password: 'E2e-password-1' };

const contactUpdate = (name: string, options: Record<string, unknown> = {}) =>
	voiceAssistant(name, {
		resource: 'segmentContact',
		operation: 'update',
		mappingMode: 'auto',
		options,
	});
const contacts = (count: number) =>
	itemsNode(
		'Contacts',
		Array.from({ length: count }, (_, i) => ({ id: `rp-${i}`, first_name: 'Ada', last_name: `Lovelace ${i}`, phone: `+1415555${1000 + i}` })),
	);

const sim = useSimulatorProcess();

describe.each(requestedVersions())('n8n %s: Retry On Fail and Allowed HTTP Request Domains (n8n execute)', (version) => {
	const bin = n8nBin(version);
	const { userFolder, requests } = useImportedN8n(sim, `run-paths-${version}`, bin, () => {
		const restricted = contactUpdate('Update');
		restricted.credentials = { voiceAssistantApi: RESTRICTED };
		const credential = simulatorCredential(sim().url);
		return {
			credentials: [
				credential,
				{ ...credential, ...RESTRICTED, data: { ...credential.data, allowedHttpRequestDomains: 'domains', allowedDomains: 'api.example.com' } },
			],
			workflows: [
				workflow('vaRpRetry', 'e2e: n8n Retry On Fail', [
					manualTrigger(),
					contacts(3),
					// One at a time, so the failed try stops before sending the other items.
					{ ...contactUpdate('Update', { retryOnFailure: false, maxConcurrency: 1 }), retryOnFail: true, maxTries: 3, waitBetweenTries: 0 },
				]),
				workflow('vaRpDomains', 'e2e: allowed domains', [manualTrigger(), contacts(2), restricted]),
				workflow('vaRpOnce', 'e2e: n8n Execute Once', [manualTrigger(), contacts(3), { ...contactUpdate('Update'), executeOnce: true }]),
			],
		};
	});

	test("n8n's Retry On Fail: the try after a 503 sends every item again and succeeds", async () => {
		await sim().failNext({ status: 503, method: 'PUT', path: CONTACT_PATH, body: { message: 'Try later' } });
		const { code, run } = await executeWorkflow(bin, 'vaRpRetry', userFolder());
		expect(run.data.resultData.error).toBeUndefined();
		expect(code).toBe(0);
		const received = await requests();
		expect(received.map((request) => `${request.query.id}:${request.status}`)).toEqual([
			'rp-0:503',
			'rp-0:200',
			'rp-1:200',
			'rp-2:200',
		]);
		expect(outputOf(run, 'Update').map((item) => item.json.message)).toEqual(Array(3).fill('Contact updated successfully.'));
	});

	test("n8n's Execute Once: only the first item is sent, and the run's summary counts that one item", async () => {
		const { code, run, stdout, stderr } = await executeWorkflow(bin, 'vaRpOnce', userFolder());
		expect(run.data.resultData.error).toBeUndefined();
		expect(code).toBe(0);
		const received = await requests();
		expect(received.map((request) => `${request.method} ${request.path}?id=${request.query.id}:${request.status}`)).toEqual([
			`PUT ${CONTACT_PATH}?id=rp-0:200`,
		]);
		expect(outputOf(run, 'Update').map((item) => item.json)).toEqual([{ id: 'rp-0', message: 'Contact updated successfully.' }]);
		expect(`${stdout}\n${stderr}`).toMatch(/Voice Assistant "Update": done: 1 items in [0-9.]+ s: 1 succeeded, 0 failed/);
	});

	test('a Base URL outside Allowed HTTP Request Domains: nothing sent, n8n\'s message', async () => {
		const { code, run } = await executeWorkflow(bin, 'vaRpDomains', userFolder());
		expect(code).not.toBe(0);
		const host = new URL(sim().url).host;
		expect(run.data.resultData.error?.message).toBe(
			`Domain not allowed: This credential is restricted from accessing ${host}. Only the following domains are allowed: api.example.com`,
		);
		expect(await requests()).toEqual([]);
	});
});

describe.each(requestedVersions())('n8n %s: an execution stopped during a Retry-After wait (n8n start)', (version) => {
	let userFolder: string;
	let n8n: RunningN8n;
	let cookie: string;

	async function rest(method: string, pathname: string, body?: unknown): Promise<any> {
		const response = await fetch(`${n8n.url}/rest${pathname}`, {
			method,
			headers: { cookie, 'content-type': 'application/json' },
			body: body === undefined ? undefined : JSON.stringify(body),
		});
		const text = await response.text();
		if (!response.ok) throw new Error(`${method} /rest${pathname} answered ${response.status}: ${text}`);
		return JSON.parse(text).data;
	}

	beforeAll(async () => {
		userFolder = await userFolderWithPackage(`cancel-${version}`);
		n8n = await startN8n(n8nBin(version), userFolder, { logDir: userFolder });
		cookie = (await setupOwner(n8n.url, OWNER)) as string;
	});

	afterAll(async () => {
		await n8n?.stop();
		removeUserFolder(userFolder);
	});

	test('nothing is sent after the stop, and the execution ends within 2 s', async () => {
		await sim().reset();
		const credential = await rest('POST', '/credentials', {
			name: 'Voice Assistant (simulator)',
			type: 'voiceAssistantApi',
			data: { apiKey: API_KEY, baseUrl: sim().url },
		});
		const update = contactUpdate('Update');
		update.credentials = { voiceAssistantApi: { id: credential.id, name: credential.name } };
		const definition: Partial<Workflow> = workflow('vaRpCancel', 'e2e: cancel during Retry-After', [manualTrigger(), contacts(3), update]);
		delete definition.id; // n8n gives it one
		const created = await rest('POST', '/workflows', definition);

		// The first update waits 4 s before its retry, holding its slot; the others run.
		await sim().failNext({ status: 429, method: 'PUT', path: CONTACT_PATH, headers: { 'retry-after': '4' } });
		const { executionId } = await rest('POST', `/workflows/${created.id}/run`, {
			workflowData: created,
			triggerToStartFrom: { name: 'Start' },
		});
		while ((await sim().requests()).filter((request) => request.status === 429).length === 0) await sleep(20);

		const stoppedAt = Date.now();
		await rest('POST', `/executions/${executionId}/stop`);
		let execution: any;
		for (;;) {
			execution = await rest('GET', `/executions/${executionId}`);
			if (execution.finished || execution.stoppedAt) break;
			await sleep(50);
		}
		const endedAfterMs = Date.now() - stoppedAt;
		expect(execution.status).toBe('canceled');
		expect(endedAfterMs).toBeLessThan(2000);

		// Past the 4 s Retry-After: the waiting item was never sent again.
		await sleep(5000);
		const received = await sim().requests();
		expect(received.filter((request) => request.status === 429)).toHaveLength(1);
		const retried = received.filter((request) => request.receivedAt > stoppedAt);
		expect(retried).toEqual([]);
	});
});
