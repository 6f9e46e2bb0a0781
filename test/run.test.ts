/**
 * A run (shared/request/run.ts) ended by a cancelled execution: it stops waiting out a
 * Retry-After, and the items queued for a slot leave without being sent. In n8n's engine, in
 * process, against the simulator over HTTP.
 */
import type { INodeExecutionData, INodeParameters } from 'n8n-workflow';
import { useSimulator } from './helpers/simulator';
import { nodeRuns, runNode, type RunOptions } from './helpers/runNode';
import { API_KEY, segmentContactParameters } from './helpers/fixtures';

const sim = useSimulator();

const CONTACTS = '/api/v1/segment/contact/update';
const rows = (count: number): INodeExecutionData[] =>
	Array.from({ length: count }, (_, i) => ({ json: { id: `c-${i}` } }));
const contacts = (options: INodeParameters = {}): INodeParameters => ({
	...segmentContactParameters,
	contactId: '={{ $json.id }}',
	options,
});

async function run(
	parameters: INodeParameters,
	items: INodeExecutionData[],
	more: Partial<RunOptions> = {},
) {
	return await runNode({
		parameters,
		items,
		credentials: { apiKey: API_KEY, baseUrl: sim().url },
		...more,
	});
}

/** Resolves once the simulator has received `count` requests. */
async function requestsReceived(count: number): Promise<void> {
	while (sim().requests.length < count) await new Promise((resolve) => setTimeout(resolve, 10));
}

describe('a cancelled execution', () => {
	it('stops waiting out a Retry-After and sends nothing more', async () => {
		sim().failNext({ status: 429, headers: { 'retry-after': '200' }, path: CONTACTS });
		const started = nodeRuns.length;
		await run(contacts(), rows(1), {
			onStart: (cancel) => void requestsReceived(1).then(cancel),
		});
		// The node's own run settles long before the 200 s wait (the test would time out).
		await Promise.all(nodeRuns.slice(started));
		expect(sim().requests.map((r) => r.status)).toEqual([429]);
	});

	it('items queued for a slot leave the queue without being sent', async () => {
		sim().failNext({ status: 429, headers: { 'retry-after': '200' }, path: CONTACTS });
		const started = nodeRuns.length;
		await run(contacts({ maxConcurrency: 1 }), rows(5), {
			onStart: (cancel) => void requestsReceived(1).then(cancel),
		});
		await Promise.all(nodeRuns.slice(started));
		expect(sim().requests.map((r) => `${r.query.id}:${r.status}`)).toEqual(['c-0:429']);
	});
});
