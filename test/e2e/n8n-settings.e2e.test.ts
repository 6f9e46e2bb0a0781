/**
 * n8n's own settings and controls around a node run, in real n8n with the packed package: the
 * node settings Retry On Fail and Execute Once, the credential's Allowed HTTP Request Domains,
 * and an execution stopped from the editor during a Retry-After wait.
 */
import {
	CONTACT_PATH,
	CREDENTIAL_TYPE,
	itemsNode,
	manualTrigger,
	outputOf,
	requestedVersions,
	simulatorCredential,
	expectSuccess,
	useImportedN8n,
	useSimulatorProcess,
	voiceAssistant,
	workflow,
} from './helpers';
import { poll, sleep } from '../../tools/processes';
import type { EditorApi } from '../../tools/n8n';

const RESTRICTED = { id: 'vaRestrictedCr1', name: 'Voice Assistant (restricted)' };

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
		Array.from({ length: count }, (_, i) => ({
			id: `rp-${i}`,
			first_name: 'Ada',
			last_name: `Lovelace ${i}`,
			phone: `+1415555${1000 + i}`,
		})),
	);

const sim = useSimulatorProcess();

/** Stops an execution as the editor's Stop button does; resolves with it once it has ended. */
async function stop(api: EditorApi, executionId: string) {
	await api.call('POST', `/rest/executions/${executionId}/stop`);
	return await poll(
		'the stopped execution to end',
		async () => {
			const found = await api.call('GET', `/rest/executions/${executionId}`);
			return found.finished || found.stoppedAt ? found : undefined;
		},
		{ everyMs: 50 },
	);
}

describe.each(requestedVersions())(
	'n8n %s: Retry On Fail, Execute Once, Allowed HTTP Request Domains, a stop from the editor',
	(version) => {
		const { n8n, execute, requests } = useImportedN8n(sim, version, () => {
			const restricted = contactUpdate('Update');
			restricted.credentials = { [CREDENTIAL_TYPE]: RESTRICTED };
			const credential = simulatorCredential(sim().url);
			return {
				credentials: [
					credential,
					{
						...credential,
						...RESTRICTED,
						data: {
							...credential.data,
							allowedHttpRequestDomains: 'domains',
							allowedDomains: 'api.example.com',
						},
					},
				],
				workflows: [
					workflow('vaRpRetry', 'e2e: n8n Retry On Fail', [
						manualTrigger(),
						contacts(3),
						// One at a time, so the failed try stops before sending the other items.
						{
							...contactUpdate('Update', { retryOnFailure: false, maxConcurrency: 1 }),
							retryOnFail: true,
							maxTries: 3,
							waitBetweenTries: 0,
						},
					]),
					workflow('vaRpDomains', 'e2e: allowed domains', [
						manualTrigger(),
						contacts(2),
						restricted,
					]),
					workflow('vaRpOnce', 'e2e: n8n Execute Once', [
						manualTrigger(),
						contacts(3),
						{ ...contactUpdate('Update'), executeOnce: true },
					]),
					workflow('vaRpCancel', 'e2e: cancel during Retry-After', [
						manualTrigger(),
						contacts(3),
						contactUpdate('Update'),
					]),
					workflow('vaRpBatchStop', 'e2e: stop during a Batching pause', [
						manualTrigger(),
						contacts(6),
						{
							...contactUpdate('Update'),
							parameters: {
								...contactUpdate('Update').parameters,
								requestOptions: { batching: { batch: { batchSize: 2, batchInterval: 1500 } } },
							},
						},
					]),
				],
			};
		});

		test("n8n's Retry On Fail: the try after a 503 sends every item again and succeeds", async () => {
			await sim().failNext({
				status: 503,
				method: 'PUT',
				path: CONTACT_PATH,
				body: { message: 'Try later' },
			});
			const { run } = expectSuccess(await execute('vaRpRetry'));
			const received = await requests();
			expect(received.map((request) => `${request.query.id}:${request.status}`)).toEqual([
				'rp-0:503',
				'rp-0:200',
				'rp-1:200',
				'rp-2:200',
			]);
			expect(outputOf(run, 'Update').map((item) => item.json.message)).toEqual(
				Array(3).fill('Contact updated successfully.'),
			);
		});

		test("n8n's Execute Once: only the first item is sent, and the run's summary counts that one item", async () => {
			const { run, log } = expectSuccess(await execute('vaRpOnce'));
			const received = await requests();
			expect(
				received.map(
					(request) => `${request.method} ${request.path}?id=${request.query.id}:${request.status}`,
				),
			).toEqual([`PUT ${CONTACT_PATH}?id=rp-0:200`]);
			expect(outputOf(run, 'Update').map((item) => item.json)).toEqual([
				{ id: 'rp-0', message: 'Contact updated successfully.' },
			]);
			expect(log).toMatch(
				/Voice Assistant "Update": done: 1 items in [0-9.]+ s: 1 succeeded, 0 failed/,
			);
		});

		test("a Base URL outside Allowed HTTP Request Domains: nothing sent, n8n's message", async () => {
			const { status, run } = await execute('vaRpDomains');
			expect(status).toBe('error');
			const host = new URL(sim().url).host;
			expect(run.data.resultData.error?.message).toBe(
				`Domain not allowed: This credential is restricted from accessing ${host}. Only the following domains are allowed: api.example.com`,
			);
			expect(await requests()).toEqual([]);
		});

		test('an execution stopped during a Retry-After wait: nothing is sent after the stop, and it ends within 2 s', async () => {
			const { api } = n8n();
			// The first update waits 4 s before its retry, holding its slot; the others run.
			await sim().failNext({
				status: 429,
				method: 'PUT',
				path: CONTACT_PATH,
				headers: { 'retry-after': '4' },
			});
			const executionId = await api.startManually(n8n().idOf('vaRpCancel'), 'Start');
			// Stop once the other two are answered (within the wait), so that any request after the
			// stop can only be one the stop should have prevented.
			await poll(
				'the 429 and the other two items answered',
				async () => {
					// The simulator records a request on arrival, with status 0 until it answers.
					const statuses = (await sim().requests()).map((request) => request.status);
					return (
						statuses.length === 3 &&
						!statuses.includes(0) &&
						statuses.filter((status) => status === 429).length === 1
					);
				},
				{ everyMs: 20, timeoutMs: 3000 },
			);

			const stoppedAt = Date.now();
			const execution = await stop(api, executionId);
			const endedAfterMs = Date.now() - stoppedAt;
			expect(execution.status).toBe('canceled');
			expect(endedAfterMs).toBeLessThan(2000);

			// Past the 4 s Retry-After: the waiting item was never sent again.
			await sleep(5000);
			const received = await requests();
			expect(received.filter((request) => request.status === 429)).toHaveLength(1);
			const retried = received.filter((request) => request.receivedAt > stoppedAt);
			expect(retried).toEqual([]);
		});

		test("an execution stopped during n8n's Batching pause: nothing sent, no rejection n8n leaves unhandled", async () => {
			const { api } = n8n();
			const logAt = n8n().log().length;
			const executionId = await api.startManually(n8n().idOf('vaRpBatchStop'), 'Start');
			// n8n prepared the first batch and sleeps 1.5 s before the next: stop within that pause.
			await sleep(500);
			const execution = await stop(api, executionId);
			expect(execution.status).toBe('canceled');
			// n8n's loop sleeps on (two more pauses), then prepares the rest of the items.
			await sleep(4000);
			expect(await requests()).toEqual([]);
			const log = n8n().log().slice(logAt);
			expect(log).not.toMatch(/unhandled|handled asynchronously|The execution was cancelled/i);
			// n8n still answers: nothing took its process down.
			expect((await api.call('GET', `/rest/executions/${executionId}`)).status).toBe('canceled');
		});
	},
);
