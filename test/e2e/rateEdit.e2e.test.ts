/**
 * An edited Rate Limit in real n8n on every version claimed: a credential edited
 * between two executions in the same `n8n start` (1 a minute → 10 a second, saved as the
 * editor saves it) sends the second execution's first request at once, not when 1 a minute
 * would have allowed it (~a minute after the first execution's request: the account's rate
 * lives in the n8n process and outlasts a run), and spaces its requests at 10 a second.
 */
import {
	API_KEY,
	CREDENTIAL,
	expectSuccess,
	manualTrigger,
	requestedVersions,
	simulatorCredential,
	useImportedN8n,
	useSimulatorProcess,
	workflow,
} from './helpers';
import { callStart, callStarts, emailOf, people } from './calls';
import { apart } from '../helpers/arrivals';
import type { RecordedRequest } from '../simulator';

const sim = useSimulatorProcess();

/** Execution 2's items, sent at 10 a second. */
const SECOND_ITEMS = 5;
/** 10 a second with the start times' 1% margin. */
const SPACING_MS = 101;
/** Execution 2's first request arrives this soon after the test asked n8n to run it. */
const FIRST_WITHIN_MS = 1_500;
/** How long execution 2 may take before the test stops it and fails (1 a minute would hold it ~a minute). */
const SECOND_RUN_BOUND_MS = 20_000;

const calls = (id: string, prefix: string, count: number) =>
	workflow(id, `e2e: ${count} call starts (edited rate)`, [
		manualTrigger(),
		people(prefix, count),
		callStart(),
	]);

/** The call starts of the people `prefix`N, in the order they arrived. */
const callsOf = (received: RecordedRequest[], prefix: string) =>
	callStarts(received)
		.filter((request) => emailOf(request).startsWith(prefix))
		.sort((a, b) => a.receivedAt - b.receivedAt);

describe.each(requestedVersions())('n8n %s: a Rate Limit edited between executions', (version) => {
	const { n8n, execute } = useImportedN8n(sim, version, () => ({
		credentials: [
			{
				...simulatorCredential(sim().url),
				data: { apiKey: API_KEY, baseUrl: sim().url, rateLimit: 1, rateLimitUnit: 'minute' },
			},
		],
		workflows: [calls('vaRateEditOne', 'eo', 1), calls('vaRateEditMany', 'em', SECOND_ITEMS)],
	}));

	/** Changes the credential's fields as the editor's Save does: its data read back (the key redacted), sent whole. */
	async function editCredential(change: Record<string, unknown>) {
		const { id } = n8n().credentialRef(CREDENTIAL);
		const stored = await n8n().api.call('GET', `/rest/credentials/${id}?includeData=true`);
		expect(stored.data.apiKey).not.toBe(API_KEY);
		await n8n().api.call('PATCH', `/rest/credentials/${id}`, {
			id,
			name: stored.name,
			type: stored.type,
			data: { ...stored.data, ...change },
		});
		const saved = await n8n().api.call('GET', `/rest/credentials/${id}?includeData=true`);
		expect(saved.data).toMatchObject(change);
	}

	test('1 a minute → 10 a second between two executions: the second sends its first request at once', async () => {
		// Execution 1 at 1 a minute: one request, sent at once.
		expectSuccess(await execute('vaRateEditOne'));
		const [one] = callsOf(await sim().requests(), 'eo');
		expect(one).toBeDefined();

		await editCredential({ rateLimit: 10, rateLimitUnit: 'second' });

		// Execution 2, seconds later, in the same n8n process.
		const askedAt = Date.now();
		const executionId = await n8n().api.startManually(n8n().idOf('vaRateEditMany'), 'Start');
		const run = await n8n()
			.api.finished(executionId, SECOND_RUN_BOUND_MS)
			.catch(async () => {
				await n8n().api.send('POST', `/rest/executions/${executionId}/stop`);
				return undefined;
			});
		const many = callsOf(await sim().requests(), 'em');
		// Under 1 a minute still, execution 2 would wait until ~a minute after execution 1's request.
		expect(askedAt - one.receivedAt).toBeLessThan(10_000);
		// Its first request's wait (none arrived within the bound: the whole bound).
		const firstWaitMs = (many[0]?.receivedAt ?? Date.now()) - askedAt;
		expect(firstWaitMs).toBeLessThan(FIRST_WITHIN_MS);
		expect(run?.status).toBe('success');
		expect(many).toHaveLength(SECOND_ITEMS);
		// 10 a second, not faster.
		for (let i = 1; i < many.length; i++)
			expect(many[i].receivedAt - many[i - 1].receivedAt).toBeGreaterThanOrEqual(apart(SPACING_MS));
	}, 60_000);
});
