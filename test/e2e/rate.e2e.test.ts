/**
 * The account's rate in real n8n on every version claimed, with the packed package: the
 * credential's Rate Limit holds a manual run at most that many requests in any second, from the
 * first item, and two executions of the account at once plus one right after together, counted
 * per second of the clock at the service; a node's Max Requests per Second holds its own run and
 * no other. The simulator is a process of its own, so its clock is the service's.
 */
import {
	API_KEY,
	expectSuccess,
	manualTrigger,
	requestedVersions,
	simulatorCredential,
	useImportedN8n,
	useSimulatorProcess,
	workflow,
} from './helpers';
import { callStart, callStarts, emailOf, people } from './calls';
import { ARRIVAL_SLACK_MS, apart, mostInWindow } from '../helpers/arrivals';
import type { RecordedRequest } from '../simulator';

const sim = useSimulatorProcess();
/** The account's limit, set on the credential. */
const PER_SECOND = 20;

/** Call starts for `count` people (ids `${prefix}N`), with these Options. */
const calls = (
	id: string,
	prefix: string,
	count: number,
	options: Record<string, unknown> = {},
) => {
	const call = callStart();
	return workflow(id, `e2e: ${count} call starts (rate)`, [
		manualTrigger(),
		people(prefix, count),
		{ ...call, parameters: { ...call.parameters, options } },
	]);
};

/** The most requests received in one second of the clock, and in any 1,000 ms less the slack for n8n's own path. */
const mostInASecond = (received: RecordedRequest[]) => {
	const perClockSecond = new Map<number, number>();
	for (const { receivedAt } of received) {
		const second = Math.floor(receivedAt / 1000);
		perClockSecond.set(second, (perClockSecond.get(second) ?? 0) + 1);
	}
	const times = received.map((request) => request.receivedAt);
	return {
		clockSecond: Math.max(0, ...perClockSecond.values()),
		anyWindow: mostInWindow(times, 1000 - ARRIVAL_SLACK_MS),
	};
};

describe.each(requestedVersions())("n8n %s: the credential's Rate Limit", (version) => {
	const { execute } = useImportedN8n(sim, version, () => ({
		credentials: [
			{
				...simulatorCredential(sim().url),
				data: { apiKey: API_KEY, baseUrl: sim().url, rateLimit: PER_SECOND },
			},
		],
		workflows: [
			calls('vaRateA', 'ra', 50),
			calls('vaRateB', 'rb', 30),
			calls('vaRateC', 'rc', 20),
			calls('vaRateOwn', 'ro', 4, { maxRequestsPerSecond: 2 }),
		],
	}));

	test(`a manual run: at most ${PER_SECOND} requests in any second, evenly from the first`, async () => {
		expectSuccess(await execute('vaRateA'));
		const received = await sim().requests();
		expect(received).toHaveLength(50);
		const most = mostInASecond(received);
		expect(most.clockSecond).toBeLessThanOrEqual(PER_SECOND);
		expect(most.anyWindow).toBeLessThanOrEqual(PER_SECOND);
		// 50 at 20 a second: 49 spacings of 50.5 ms from the first request to the last.
		const summary = await sim().summary();
		const sending = (summary.lastAt ?? 0) - (summary.firstAt ?? 0);
		expect(sending).toBeGreaterThanOrEqual(apart(49 * 50.5));
		expect(sending).toBeLessThan(3_500);
	});

	test('two executions of the account at once, then one right after: together no second with more than the limit at the service', async () => {
		const [a, b] = await Promise.all([execute('vaRateA'), execute('vaRateB')]);
		expectSuccess(a);
		expectSuccess(b);
		expectSuccess(await execute('vaRateC'));
		const received = await sim().requests();
		expect(callStarts(received)).toHaveLength(100);
		const most = mostInASecond(received);
		expect(most.clockSecond).toBeLessThanOrEqual(PER_SECOND);
		expect(most.anyWindow).toBeLessThanOrEqual(PER_SECOND);
	});

	test("a node's Max Requests per Second holds its own run under the account's rate", async () => {
		expectSuccess(await execute('vaRateOwn'));
		const times = (await sim().requests())
			.filter((request) => emailOf(request).startsWith('ro'))
			.map((request) => request.receivedAt);
		expect(times).toHaveLength(4);
		// 2 a second: 505 ms apart, where the account alone allows 50.5.
		for (let i = 1; i < times.length; i++)
			expect(times[i] - times[i - 1]).toBeGreaterThanOrEqual(apart(505));
	});
});
