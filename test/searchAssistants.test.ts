/**
 * The Assistant picker (listSearch/searchAssistants.ts) as the editor fills it, in n8n-core's
 * load-options context with the node's credential, against the simulator: the list the service
 * gives (its one GET), searched in the node; a failure in the words of the node's failure model.
 */
import { faultSockets, connectTimedOut } from './helpers/socketFaults';
import { API_KEY } from './helpers/fixtures';
import { searchAssistants } from './helpers/runNode';
import { useSimulator } from './helpers/simulator';

const sim = useSimulator();
const credentials = () => ({ apiKey: API_KEY, baseUrl: sim().url });

test('lists the assistants that have an id, searched by name or id, from one GET with the key', async () => {
	const { results } = await searchAssistants(credentials(), 'maya');
	expect(results).toEqual([{ name: 'Maya (outbound, en)', value: expect.any(String) }]);
	const requests = sim().requests;
	expect(requests).toHaveLength(1);
	expect(requests[0]).toMatchObject({
		method: 'GET',
		path: '/api/v1/user/listAssistant',
		query: {},
		headers: expect.objectContaining({ 'x-api-key': API_KEY }),
	});
	expect((await searchAssistants(credentials())).results.length).toBeGreaterThan(1);
});

test('a connect that timed out says so, without a time it did not measure ("within 0 ms")', async () => {
	const stop = faultSockets(Number(new URL(sim().url).port), connectTimedOut);
	try {
		await expect(searchAssistants(credentials())).rejects.toThrow(
			/^Could not connect to http:\/\/127\.0\.0\.1:\d+: the connection timed out$/,
		);
	} finally {
		stop();
	}
	expect(sim().requests).toEqual([]);
});
