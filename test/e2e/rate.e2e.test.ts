/**
 * Max Requests per Second in real n8n on every version claimed, with the packed package: a manual
 * run starts at most that many requests in any second, from the first item; two executions of the
 * same credential at once share the bound.
 */
import {
	expectSuccess,
	manualTrigger,
	requestedVersions,
	simulatorCredential,
	useImportedN8n,
	useSimulatorProcess,
	workflow,
} from './helpers';
import { callStart, people } from './calls';
import { ARRIVAL_SLACK_MS, mostInWindow } from '../helpers/arrivals';

const sim = useSimulatorProcess();
const PER_SECOND = 20;
/** The most requests the simulator received in any second, less the slack for n8n's own path. */
const mostInASecond = async () =>
	mostInWindow(
		(await sim().requests()).map((request) => request.receivedAt),
		1000 - ARRIVAL_SLACK_MS,
	);

/** Call starts for `count` people with Max Requests per Second. */
const cappedCalls = (id: string, prefix: string, count: number) => {
	const call = callStart();
	return workflow(id, `e2e: ${count} call starts, Max Requests per Second ${PER_SECOND}`, [
		manualTrigger(),
		people(prefix, count),
		{ ...call, parameters: { ...call.parameters, options: { maxRequestsPerSecond: PER_SECOND } } },
	]);
};

describe.each(requestedVersions())('n8n %s: Max Requests per Second', (version) => {
	const { execute } = useImportedN8n(sim, version, () => ({
		credentials: [simulatorCredential(sim().url)],
		workflows: [cappedCalls('vaRateA', 'ra', 50), cappedCalls('vaRateB', 'rb', 30)],
	}));

	test(`a manual run: at most ${PER_SECOND} requests in any second, evenly from the first`, async () => {
		const result = await execute('vaRateA');
		expectSuccess(result);
		const summary = await sim().summary();
		expect(summary.total).toBe(50);
		expect(await mostInASecond()).toBeLessThanOrEqual(PER_SECOND);
		// 50 at 20 a second: about 2.5 s from the first request to the last answer.
		expect((summary.lastAt ?? 0) - (summary.firstAt ?? 0)).toBeLessThan(3_500);
	});

	test('two executions of the same credential at once share the bound', async () => {
		const [a, b] = await Promise.all([execute('vaRateA'), execute('vaRateB')]);
		expectSuccess(a);
		expectSuccess(b);
		const summary = await sim().summary();
		expect(summary.total).toBe(80);
		expect(await mostInASecond()).toBeLessThanOrEqual(PER_SECOND);
	});
});
