/**
 * The deadlines of a run's attempts (shared/request/deadlines.ts): one timer for all of them,
 * armed only while an attempt is in flight, cleared when the run ends. Fake timers.
 */
import { Deadlines } from '../nodes/VoiceAssistant/shared/request/deadlines';

/** Lets every pending promise callback run. */
const settle = async () => await new Promise<void>((resolve) => setImmediate(resolve));

describe('Deadlines (the attempts of a run on one timer)', () => {
	beforeEach(() => jest.useFakeTimers({ doNotFake: ['setImmediate'] }));
	afterEach(() => jest.useRealTimers());

	it('expires each attempt at its own deadline, in order, with one timer armed; a settled one never', async () => {
		const deadlines = new Deadlines(new AbortController().signal);
		const expired: string[] = [];
		const settleA = deadlines.start(100, () => expired.push('a'));
		await jest.advanceTimersByTimeAsync(10);
		deadlines.start(100, () => expired.push('b'));
		await jest.advanceTimersByTimeAsync(10);
		deadlines.start(100, () => expired.push('c'));
		settleA();
		expect(jest.getTimerCount()).toBe(1);
		await jest.advanceTimersByTimeAsync(85); // 105 ms: a settled, b due at 110
		expect(expired).toEqual([]);
		await jest.advanceTimersByTimeAsync(10);
		expect(expired).toEqual(['b']);
		await jest.advanceTimersByTimeAsync(10);
		expect(expired).toEqual(['b', 'c']);
		expect(jest.getTimerCount()).toBe(0);
	});

	it("the run's end clears the timer of attempts still in flight", async () => {
		const end = new AbortController();
		const deadlines = new Deadlines(end.signal);
		const expire = jest.fn();
		deadlines.start(300_000, expire);
		await settle();
		expect(jest.getTimerCount()).toBe(1);
		end.abort();
		await settle();
		expect(jest.getTimerCount()).toBe(0);
		expect(expire).not.toHaveBeenCalled();
	});

	it('the timer is cleared once no attempt is in flight, and armed again by the next one', async () => {
		const deadlines = new Deadlines(new AbortController().signal);
		const expire = jest.fn();
		const settleA = deadlines.start(300_000, expire);
		const settleB = deadlines.start(300_000, expire);
		await settle();
		expect(jest.getTimerCount()).toBe(1);
		settleA();
		await settle();
		expect(jest.getTimerCount()).toBe(1); // B is still in flight
		settleB();
		await settle();
		expect(jest.getTimerCount()).toBe(0);
		deadlines.start(50, () => expire('c'));
		await settle();
		expect(jest.getTimerCount()).toBe(1);
		await jest.advanceTimersByTimeAsync(50);
		expect(expire).toHaveBeenCalledTimes(1);
		expect(expire).toHaveBeenCalledWith('c');
		expect(jest.getTimerCount()).toBe(0);
	});
});
