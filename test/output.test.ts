/**
 * What the node makes of an answer (shared/request/output.ts): a redirect is a failure that names
 * where it pointed, the key redacted from that host. In n8n's engine, in process, against the
 * simulator over HTTP.
 */
import type { INodeParameters } from 'n8n-workflow';
import { useSimulator } from './helpers/simulator';
import { runNode, type RunOptions } from './helpers/runNode';
import { API_KEY, segmentContactParameters } from './helpers/fixtures';

const sim = useSimulator();
const CONTACTS = '/api/v1/segment/contact/update';

async function run(parameters: INodeParameters, extra: Partial<RunOptions> = {}) {
	return await runNode({
		parameters,
		credentials: { apiKey: API_KEY, baseUrl: sim().url },
		...extra,
	});
}

describe('the key never reaches an error', () => {
	it('a redirect to a host named after the key: the host is redacted in the message', async () => {
		sim().failNext({
			status: 302,
			path: CONTACTS,
			headers: { location: `https://${API_KEY}.collector.example/steal` },
		});
		const { error } = await run(segmentContactParameters);
		expect(error?.message).toBe(
			'The service redirected the request (HTTP 302) to https://[redacted].collector.example: check the Base URL in the credential',
		);
		expect(JSON.stringify(error)).not.toContain(API_KEY);
	});
});
