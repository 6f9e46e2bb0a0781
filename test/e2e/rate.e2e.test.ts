/**
 * The account's rate in real n8n on every version claimed, with the packed package, behind a
 * strict service (at most the limit accepted in any trailing second) whose requests take 0 to
 * 100 ms to arrive: the credential's Rate Limit holds a manual run to at most that many arrivals
 * in any 1,000 ms, from the first item, and two executions of the account at once plus one right
 * after together; a node's Max Requests per Second holds its own run and no other; none is
 * answered 429. Behind a strict 200 a second that states its count on every answer (the IETF
 * draft's fields, or X-RateLimit-* with the reset as Unix seconds or an HTTP date), automatic pacing
 * (no Rate Limit) keeps to it from the count: at most one 429 in 1,000 call starts, and the run's
 * progress lines name the service's stated limit. The simulator is a process of its own, so its clock is
 * the service's.
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
import { apart, mostAcceptedInWindow, mostInWindow } from '../helpers/arrivals';
import type { RecordedRequest } from '../simulator';
import { summaryLines } from '../helpers/strictService';

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

/** The most requests accepted in any 1,000 ms at the service, and how many it refused. */
const atTheService = (received: RecordedRequest[]) => ({
	anyWindow: mostAcceptedInWindow(received),
	refused: received.filter((request) => request.status === 429).length,
});

describe.each(requestedVersions())("n8n %s: the credential's Rate Limit", (version) => {
	beforeEach(async () => {
		await sim().setOptions({ strictRate: { perSecond: PER_SECOND }, arrivalDelay: { maxMs: 100 } });
	});
	afterEach(async () => {
		await sim().setOptions({ strictRate: null, arrivalDelay: null });
	});
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
		expect(atTheService(received).refused).toBe(0);
		expect(atTheService(received).anyWindow).toBeLessThanOrEqual(PER_SECOND);
		// 50 at 20 a second: 49 spacings of 50 ms from the first request to the last, at least.
		const summary = await sim().summary();
		const sending = (summary.lastAt ?? 0) - (summary.firstAt ?? 0);
		expect(sending).toBeGreaterThanOrEqual(apart(49 * 50));
		expect(sending).toBeLessThan(3_500);
	});

	test('two executions of the account at once, then one right after: together no second with more than the limit at the service', async () => {
		const [a, b] = await Promise.all([execute('vaRateA'), execute('vaRateB')]);
		expectSuccess(a);
		expectSuccess(b);
		expectSuccess(await execute('vaRateC'));
		const received = await sim().requests();
		expect(callStarts(received)).toHaveLength(100);
		const most = atTheService(received);
		expect(most.refused).toBe(0);
		expect(most.anyWindow).toBeLessThanOrEqual(PER_SECOND);
	});

	test("a node's Max Requests per Second holds its own run under the account's rate", async () => {
		expectSuccess(await execute('vaRateOwn'));
		const times = (await sim().requests())
			.filter((request) => emailOf(request).startsWith('ro'))
			.map((request) => request.arrivedAt);
		expect(times).toHaveLength(4);
		// 2 a second at the service, where the account alone allows 20.
		expect(mostInWindow(times, 1000)).toBeLessThanOrEqual(2);
		expect(Math.max(...times) - Math.min(...times)).toBeGreaterThanOrEqual(1000);
	});
});

/** The service's limit, stated on every answer, and the run behind it. */
const STATED = 200;
const STATED_CALLS = 1000;

describe.each(requestedVersions())("n8n %s: the service's stated count", (version) => {
	afterEach(async () => {
		await sim().setOptions({ strictRate: null, statedCount: null });
	});
	const { execute } = useImportedN8n(sim, version, () => ({
		credentials: [simulatorCredential(sim().url)],
		workflows: [calls('vaRateStated', 'rs', STATED_CALLS)],
	}));

	test.each([
		["the IETF draft's fields, every second and every minute", { fields: 'ietf' }],
		['X-RateLimit-*, the reset as Unix seconds', { fields: 'x-ratelimit', reset: 'unix' }],
		['X-RateLimit-*, the reset as an HTTP date', { fields: 'x-ratelimit', reset: 'date' }],
	] as const)(
		`${STATED_CALLS} call starts, no Rate Limit, behind a strict ${STATED} a second stating %s: at most one 429, paced at the stated limit`,
		async (_label, statedCount) => {
			await sim().setOptions({
				strictRate: { perSecond: STATED, perMinute: STATED * 60 },
				statedCount,
			});
			const result = await execute('vaRateStated');
			expectSuccess(result);
			const received = await sim().requests();
			expect(callStarts(received.filter((request) => request.status !== 429))).toHaveLength(
				STATED_CALLS,
			);
			expect(atTheService(received).refused).toBeLessThanOrEqual(1);
			const [summary] = summaryLines(result.log);
			expect(summary?.line).toMatch(/: done: 1000 items in /);
			// Its progress lines say what paces it: the service's stated limit, read from the count.
			expect(result.log).toMatch(
				/, paced at \d+ requests\/s, the service's stated limit, 200 a second \(\d+ waiting for their turn\)/,
			);
		},
		120_000,
	);
});
