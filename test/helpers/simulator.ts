import { createSimulator, type Simulator } from '../simulator';
import { API_KEY } from './fixtures';

/**
 * One simulator per test file on 127.0.0.1, in this process, started before the tests and
 * closed after them; each test starts with no recorded requests and no load modes. Returns a
 * getter. (The e2e suite runs the same simulator as a process: useSimulatorProcess.)
 */
export function useSimulator(): () => Simulator {
	let sim: Simulator;
	beforeAll(async () => {
		sim = await createSimulator({ apiKey: API_KEY });
	});
	afterAll(async () => sim.close());
	beforeEach(() => {
		sim.reset();
		sim.setOptions({ latencyMs: 0, chaos: null, rateLimit: null });
	});
	return () => sim;
}

/** Resolves once `sim` has received `count` requests. */
export async function requestsReceived(sim: Simulator, count: number): Promise<void> {
	while (sim.requests.length < count) await new Promise((resolve) => setTimeout(resolve, 10));
}
