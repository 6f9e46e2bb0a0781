/**
 * The node's clock (shared/clock.ts) run faster than real time, for tests whose waiting is the
 * node's own: retry waits, Retry-After, the floor between attempts. Every duration the node
 * measures or waits is `speed` times shorter in real time; what happens outside the node (the
 * simulator's latency, n8n's own pauses, the machine being slow) is not sped up. So a test may
 * use it only where its meaning holds when the node's times shrink against the rest: not where a
 * Timeout must outlast the simulator's latency by a real margin, nor where the node's waits race
 * n8n's Batching pauses, nor where the simulator counts real time (its rate limit).
 */
import { realClock, useClock, type Clock } from '../../nodes/VoiceAssistant/shared/clock';

/** How much faster the tests' fast clock runs: a Retry-After of 1 s takes 50 ms. */
export const FAST = 20;

export interface FastClock extends Clock {
	/** A real time (`Date.now()`, the simulator's `receivedAt`) as the node's clock read it then. */
	at(realMs: number): number;
}

export function fastClock(speed = FAST): FastClock {
	const start = Date.now();
	const at = (realMs: number) => start + (realMs - start) * speed;
	return {
		now: () => at(Date.now()),
		// The time of day stays real: an HTTP date a service sends counts down in real time.
		date: () => Date.now(),
		at,
		// Rounded up: a wait never ends before its time on this clock.
		sleep: async (ms, signal) => await realClock.sleep(Math.ceil(ms / speed), signal),
	};
}

/** The node runs on a fast clock in each test of this describe block, a clock of its own for each. */
export function useFastClock(speed = FAST): () => FastClock {
	let clock: FastClock | undefined;
	beforeEach(() => useClock((clock = fastClock(speed))));
	afterEach(() => useClock(realClock));
	return () => {
		if (!clock) throw new Error('the fast clock is not in use');
		return clock;
	};
}
