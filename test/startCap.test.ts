/**
 * Max Requests per Second (shared/request/startCap.ts, held by the account's pace): at most that
 * many attempts start in any window of CAP_WINDOW_MS, across the runs of one account. The model
 * runs on a fake clock; the runs in n8n's engine count the simulator's arrival times.
 */
import fc from 'fast-check';
import { Container } from '@n8n/di';
// The logger alone: the package's index loads modules that keep timers running.
import { Logger } from '@n8n/backend-common/dist/logging/logger';
import { realClock, useClock } from '../nodes/VoiceAssistant/shared/clock';
import {
	CAP_WINDOW_MS,
	CATCH_UP_MS,
	StartCap,
} from '../nodes/VoiceAssistant/shared/request/startCap';
import { AccountPace } from '../nodes/VoiceAssistant/shared/request/accountPace';
import { contacts, rows, runAgainst } from './helpers/contactRuns';
import { useSimulator } from './helpers/simulator';
import { ARRIVAL_SLACK_MS, mostInWindow } from './helpers/arrivals';

let now = 1_000_000;
const fakeClock = { now: () => now, sleep: realClock.sleep };

describe('StartCap, on a fake clock', () => {
	beforeEach(() => useClock(fakeClock));
	afterEach(() => useClock(realClock));

	it('never lets more than the rate start in any window, and each attempt waits at most one spacing (and the catch-up) behind the one before', () => {
		fc.assert(
			fc.property(
				fc.integer({ min: 1, max: 300 }),
				fc.array(fc.integer({ min: 0, max: 50 }), { minLength: 1, maxLength: 600 }),
				(rate, gaps) => {
					const cap = new StartCap();
					const starts: number[] = [];
					for (const gap of gaps) {
						now += gap; // the attempt arrives
						const wait = cap.nextTurnIn(rate);
						expect(wait).toBeLessThanOrEqual(Math.ceil(CAP_WINDOW_MS / rate) + CATCH_UP_MS);
						now += wait;
						expect(cap.nextTurnIn(rate)).toBe(0);
						cap.takeTurn(rate);
						starts.push(now);
					}
					expect(mostInWindow(starts, CAP_WINDOW_MS)).toBeLessThanOrEqual(rate);
				},
			),
		);
	});

	it('without a rate it never holds an attempt back', () => {
		const cap = new StartCap();
		for (let i = 0; i < 100; i++) cap.takeTurn(Infinity);
		expect(cap.nextTurnIn(Infinity)).toBe(0);
	});

	it("an account's pace holds the lowest rate its runs set, and the next one once that run left", () => {
		const pace = new AccountPace('account');
		const [bulk, agent] = [{}, {}];
		pace.members.set(bulk, 100);
		pace.members.set(agent, 10);
		pace.takeTurn(false);
		const spacing = (rate: number) => CAP_WINDOW_MS / rate;
		expect(pace.nextTurnIn()).toBeGreaterThanOrEqual(spacing(10) - CATCH_UP_MS);
		pace.members.delete(agent);
		now += 1000;
		pace.takeTurn(false);
		expect(pace.nextTurnIn()).toBeLessThanOrEqual(Math.ceil(spacing(100)));
		expect(pace.nextTurnIn()).toBeGreaterThanOrEqual(spacing(100) - CATCH_UP_MS);
	});
});

describe('Max Requests per Second, in n8n', () => {
	const sim = useSimulator();
	const run = runAgainst(sim);
	const arrivals = () => sim().requests.map((request) => request.receivedAt);

	it('starts at most that many requests in any second, from the first item, across two runs of the account', async () => {
		const options = { maxRequestsPerSecond: 20 };
		const started = Date.now();
		const [first, second] = await Promise.all([
			run(contacts(options), rows(15)),
			run(contacts(options), rows(15)),
		]);
		expect(first.error ?? second.error).toBeUndefined();
		expect(sim().requests).toHaveLength(30);
		expect(mostInWindow(arrivals(), 1000 - ARRIVAL_SLACK_MS)).toBeLessThanOrEqual(20);
		expect(Math.min(...arrivals()) - started).toBeLessThan(1000);
	});

	it('holds a retry after Retry-After to it too', async () => {
		sim().failNext({ status: 429, headers: { 'retry-after': '0' }, times: 5 });
		const { error } = await run(contacts({ maxRequestsPerSecond: 10 }), rows(10));
		expect(error).toBeUndefined();
		expect(sim().requests).toHaveLength(15);
		expect(mostInWindow(arrivals(), 1000 - ARRIVAL_SLACK_MS)).toBeLessThanOrEqual(10);
	});

	it('a failure without Continue On Fail stops the run: nothing waiting for its turn starts after it', async () => {
		sim().failNext({ status: 422, body: { message: 'Phone rejected' } });
		const { error } = await run(contacts({ maxRequestsPerSecond: 5 }), rows(20));
		expect(error?.message).toMatch(/HTTP 422/);
		expect(sim().requests.length).toBeLessThanOrEqual(2);
	});

	it("a run with n8n's Batching says in its summary what Batching cost and names Max Requests per Second", async () => {
		const lines: string[] = [];
		const log = (message: string) => void lines.push(message);
		const logger = { info: log, warn: log, error: log, debug: () => undefined };
		Container.set(Logger, { ...logger, scoped: () => logger } as unknown as Logger);
		const batching = { batching: { batch: { batchSize: 2, batchInterval: 50 } } };
		const { error } = await run({ ...contacts(), requestOptions: batching }, rows(4));
		expect(error).toBeUndefined();
		expect(lines.filter((line) => line.includes(': done: 4 items'))).toEqual([
			expect.stringMatching(
				/Batching held back the first request until the last batch was prepared: to space requests, set Max Requests per Second \(Options\) and turn Batching off$/,
			),
		]);
	});

	it('set by an expression that is not a number: a clear error, nothing sent', async () => {
		const { error } = await run(contacts({ maxRequestsPerSecond: '={{ "fast" }}' }), rows(3));
		expect(error?.message).toMatch(/"Max Requests per Second" \(Options\) must be a number/);
		expect(sim().requests).toHaveLength(0);
	});
});
