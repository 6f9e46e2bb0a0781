/**
 * The run's options as the node reads them (shared/requestPolicy.ts): Max Retry Wait bounds
 * every wait, held to an hour, switches set by expressions are read strictly, and Max Requests per
 * Second is read on every item (fractions work; a value that is not a positive number fails
 * naming the field and the item, nothing sent; the lowest value holds). The readings alone, and
 * in n8n's engine against the simulator over HTTP.
 */
import type { INodeParameters } from 'n8n-workflow';
import { asOtherAccount, useSimulator } from './helpers/simulator';
import { runNode, type RunOptions } from './helpers/runNode';
import { API_KEY, segmentContactParameters } from './helpers/fixtures';
import { apart } from './helpers/arrivals';
import {
	readRequestPolicy,
	requestPolicyOptions,
} from '../nodes/VoiceAssistant/shared/requestPolicy';

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
		const { error } = await run(
			{ ...segmentContactParameters, options: { maxRetryWaitSeconds: 10_000_000 } },
			{ credentials: { apiKey: API_KEY, baseUrl: asOtherAccount(sim().url) } },
		);
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

	it.each([' TRUE ', 'false', 'no', 1])(
		'Get Many reads its switches as the Options do: Return All %j',
		async (value) => {
			const accepted = readRequestPolicy({ retryOnFailure: value }).problem === undefined;
			const { error, outputs } = await run({
				resource: 'assistant',
				operation: 'getAll',
				returnAll: value,
				limit: 1,
			});
			if (accepted) {
				expect(error).toBeUndefined();
				expect(outputs[0].length).toBeGreaterThan(0);
				expect(sim().requests).toHaveLength(1);
			} else {
				expect(error?.message).toMatch(/"Return All" must be true or false/);
				expect(sim().requests).toHaveLength(0);
			}
		},
	);

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

describe('the Options read', () => {
	describe('request policy options', () => {
		it('applies the defaults shown in the UI', () => {
			expect(readRequestPolicy({})).toEqual({
				maxConcurrency: 1000,
				adaptiveConcurrency: true,
				retry: true,
				maxRetries: 8,
				maxRetryWaitMs: 300_000,
			});
			expect(requestPolicyOptions.options?.map((option) => option.name)).toEqual([
				'adaptiveConcurrency',
				'maxConcurrency',
				'maxRequestsPerSecond',
				'maxRetries',
				'maxRetryWaitSeconds',
				'retryOnFailure',
			]);
		});

		it('reads the values a user sets', () => {
			expect(
				readRequestPolicy({
					maxConcurrency: 3,
					adaptiveConcurrency: false,
					retryOnFailure: false,
					maxRetries: 0,
					maxRetryWaitSeconds: 5,
				}),
			).toEqual({
				maxConcurrency: 3,
				adaptiveConcurrency: false,
				retry: false,
				maxRetries: 0,
				maxRetryWaitMs: 5000,
			});
			expect(
				readRequestPolicy({ maxConcurrency: '4', maxRetries: ' 2 ', maxRetryWaitSeconds: '60' }),
			).toEqual({
				...readRequestPolicy({}),
				maxConcurrency: 4,
				maxRetries: 2,
				maxRetryWaitMs: 60_000,
			});
		});

		it.each([
			['maxConcurrency', 100_000, 1000],
			['maxConcurrency', 0, 1],
			['maxConcurrency', -3, 1],
			['maxConcurrency', 0.5, 1],
			['maxConcurrency', 2.9, 2],
			['maxRetries', 100_000, 50],
			['maxRetries', -1, 0],
			['maxRetryWaitSeconds', 0, 1],
			['maxRetryWaitSeconds', -5, 1],
		])('clamps %s = %j to the range the UI shows: %j', (name, given, expected) => {
			const policy = readRequestPolicy({ [name]: given });
			const read =
				name === 'maxRetryWaitSeconds'
					? policy.maxRetryWaitMs / 1000
					: policy[name as 'maxConcurrency' | 'maxRetries'];
			expect(read).toBe(expected);
			expect(policy.problem).toBeUndefined();
		});

		it.each([
			['maxConcurrency', ''],
			['maxRetries', '   '],
			['maxRetryWaitSeconds', null],
			['maxRetries', undefined],
		])('%s = %j is not set: the default applies', (name, given) => {
			expect(readRequestPolicy({ [name]: given })).toEqual(readRequestPolicy({}));
		});

		it.each([
			['maxConcurrency', 'ten', 'Max Concurrent Requests'],
			['maxRetries', 'x', 'Max Retries'],
			['maxRetries', true, 'Max Retries'],
			['maxRetryWaitSeconds', [5], 'Max Retry Wait (Seconds)'],
			['maxRetryWaitSeconds', 'Infinity', 'Max Retry Wait (Seconds)'],
			['maxConcurrency', Number.NaN, 'Max Concurrent Requests'],
		])('%s = %j is refused, naming the option', (name, given, label) => {
			expect(readRequestPolicy({ [name]: given }).problem).toBe(
				`"${label}" (Options) must be a number`,
			);
		});
	});
});

describe('Max Requests per Second, read on every item (n8n engine, simulator over HTTP)', () => {
	/** Contact updates whose Max Requests per Second is each item's `rate` column. */
	const byItemRate = (rates: unknown[], more: INodeParameters = {}) => ({
		parameters: {
			...segmentContactParameters,
			contactId: '={{ $json.id }}',
			options: { maxRequestsPerSecond: '={{ $json.rate }}' },
			...more,
		},
		items: rates.map((rate, i) => ({
			json: rate === undefined ? { id: `c-${i}` } : { id: `c-${i}`, rate },
		})),
	});
	const gaps = () => {
		const times = sim().requests.map((request) => request.receivedAt);
		return times.slice(1).map((time, i) => time - times[i]);
	};

	it('a value that is not a number on item 3: the error names the field and the item, nothing is sent', async () => {
		const { error } = await run(byItemRate([5, 5, 'abc']).parameters, {
			items: byItemRate([5, 5, 'abc']).items,
		});
		expect(error?.message).toBe(
			'Not sent: item 2 failed first: Invalid input: "Max Requests per Second" (Options) must be a positive number of requests (0: no limit), not "abc" [item 2]',
		);
		expect(sim().requests).toHaveLength(0);
	});

	it('an expression that gives nothing (a missing column) fails; it never turns the limit off', async () => {
		const { error } = await run(byItemRate([5, undefined]).parameters, {
			items: byItemRate([5, undefined]).items,
		});
		expect(error?.message).toMatch(
			/^Not sent: item 1 failed first: Invalid input: "Max Requests per Second" \(Options\) .*: its expression gave nothing \[item 1\]$/,
		);
		expect(sim().requests).toHaveLength(0);
	});

	it('fractions work: 0.5 is one request every 2 s', async () => {
		const { error } = await run(byItemRate([0.5, 0.5]).parameters, {
			items: byItemRate([0.5, 0.5]).items,
		});
		expect(error).toBeUndefined();
		expect(gaps()[0]).toBeGreaterThanOrEqual(apart(2020));
	});

	it('items that give different values: the lowest holds for the run', async () => {
		const { error } = await run(byItemRate([20, 1, 20]).parameters, {
			items: byItemRate([20, 1, 20]).items,
		});
		expect(error).toBeUndefined();
		for (const gap of gaps()) expect(gap).toBeGreaterThanOrEqual(apart(1010));
	});

	it('Dry Run shows the problem on its item; the others are valid; nothing is sent', async () => {
		const dry = byItemRate([5, -1, 5], { dryRun: true });
		const { outputs, error } = await run(dry.parameters, { items: dry.items });
		expect(error).toBeUndefined();
		expect(outputs[0].map((item) => item.json.valid)).toEqual([true, false, true]);
		expect(outputs[0][1].json.problems).toEqual([
			expect.objectContaining({
				field: 'Max Requests per Second',
				message:
					'"Max Requests per Second" (Options) must be a positive number of requests (0: no limit), not -1',
			}),
		]);
		expect(sim().requests).toHaveLength(0);
	});
});
