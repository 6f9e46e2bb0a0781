/**
 * The run's options as the node reads them (shared/requestPolicy.ts): Max Retry Wait bounds
 * every wait, held to an hour, and switches set by expressions are read strictly. The
 * readings alone, and in n8n's engine against the simulator over HTTP.
 */
import type { INodeParameters } from 'n8n-workflow';
import { readRequestPolicy } from '../nodes/VoiceAssistant/shared/requestPolicy';
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

describe('Max Retry Wait bounds every wait', () => {
	it('a Retry-After longer than a timer can hold (2^31 ms) fails at once, with one request', async () => {
		sim().failNext({
			status: 429,
			path: CONTACTS,
			headers: { 'retry-after': '3000000' },
			times: 40,
		});
		const { error } = await run({
			...segmentContactParameters,
			options: { maxRetryWaitSeconds: 10_000_000 },
		});
		expect(error?.message).toBe(
			'The service asked to wait 3000000 s before trying again (HTTP 429, Retry-After), longer than "Max Retry Wait" allows',
		);
		expect(sim().requests).toHaveLength(1);
	});

	it('Max Retry Wait is held to an hour', () => {
		expect(readRequestPolicy({ maxRetryWaitSeconds: 10_000_000 }).maxRetryWaitMs).toBe(3_600_000);
	});
});

describe('switches from expressions', () => {
	it.each([0, 1, 'no', 'off', 'yes', 'FALSE ', 'True'])('%j is read strictly', (value) => {
		const policy = readRequestPolicy({ retryOnFailure: value });
		if (typeof value === 'string' && ['false', 'true'].includes(value.trim().toLowerCase())) {
			expect(policy.problem).toBeUndefined();
			expect(policy.retry).toBe(value.trim().toLowerCase() === 'true');
		} else {
			expect(policy.problem).toBe(
				`"Retry on Rate Limit and Transient Errors" (Options) must be true or false, not ${JSON.stringify(value)}`,
			);
		}
	});

	it('a refused switch sends nothing and names the option', async () => {
		const { error } = await run({
			...segmentContactParameters,
			options: { adaptiveConcurrency: 'off' },
		});
		expect(error?.message).toBe(
			'Invalid input: "Adapt Concurrency to the Service" (Options) must be true or false, not "off" [item 0]',
		);
		expect(sim().requests).toHaveLength(0);
	});
});
