import { createSimulator, type Simulator } from '../simulator';
import { API_KEY } from './fixtures';

/**
 * One simulator per test file on 127.0.0.1, in this process, started before the tests and
 * closed after them; each test starts with no recorded requests and no load modes, and receives
 * nothing of the tests before it (`freshStart`). Returns a getter. (The e2e suite runs the same
 * simulator as a process: useSimulatorProcess.)
 */
export function useSimulator(): () => Simulator {
	let sim: Simulator;
	beforeAll(async () => {
		sim = await createSimulator({ apiKey: API_KEY });
	});
	afterAll(async () => sim.close());
	beforeEach(async () => {
		await freshStart(sim);
		sim.setOptions({ latencyMs: 0, chaos: null, rateLimit: null });
	});
	return () => sim;
}

/**
 * Resets `sim` once it has read everything the last test's runs wrote: a request written to the
 * kernel before a run ended (an attempt that timed out) is read by the simulator only in a later
 * poll phase of the event loop, which a busy machine delays past the next test's start. Two turns
 * of the loop take it in: one accepts a connection still waiting, the next reads what it holds.
 * reset() then cuts whatever is still in flight (simulator/index.js), so the test counts only its own.
 */
export async function freshStart(sim: Simulator): Promise<void> {
	for (let turn = 0; turn < 2; turn++) await new Promise((resolve) => setImmediate(resolve));
	sim.reset();
}

/** Resolves once `sim` has received `count` requests. */
export async function requestsReceived(sim: Simulator, count: number): Promise<void> {
	while (sim.requests.length < count) await new Promise((resolve) => setTimeout(resolve, 10));
}

/**
 * The simulator's URL as another account (host name `localhost`): a test whose Retry-After keeps
 * its account quiet long after it ends leaves the file's other tests their own.
 */
export const asOtherAccount = (url: string): string => url.replace('127.0.0.1', 'localhost');
