/**
 * The cancellable wait (shared/clock.ts) on each kind of n8n-workflow: 1.x and 2.8 export
 * sleepWithAbort(ms, signal); 2.39 and later drop it and re-export @n8n/utils' sleep(ms, signal),
 * which takes the signal itself (and 2.8's sleep(ms) ignores a second argument). On each, an
 * aborted wait ends at once and leaves no timer armed, and a wait longer than a timer holds is
 * kept exactly. The clock's time is monotonic: a wall clock stepped back moves nothing.
 */
import { sleepTakingSignal } from './helpers/sleepTakingSignal';

type Wait = (ms: number, signal: AbortSignal | undefined) => Promise<boolean>;

const N8N_WORKFLOW = {
	'1.x and 2.8 (sleepWithAbort)': () => jest.requireActual('n8n-workflow'),
	'2.39 and later (sleep takes the signal, no sleepWithAbort)': () => ({
		...jest.requireActual('n8n-workflow'),
		sleepWithAbort: undefined,
		sleep: sleepTakingSignal,
	}),
};

function loadWait(kind: keyof typeof N8N_WORKFLOW): Wait {
	let wait: Wait | undefined;
	jest.isolateModules(() => {
		jest.doMock('n8n-workflow', N8N_WORKFLOW[kind]);
		type ClockModule = typeof import('../nodes/VoiceAssistant/shared/clock');
		// eslint-disable-next-line @typescript-eslint/no-require-imports -- a fresh copy of the module per mock
		const clock = require('../nodes/VoiceAssistant/shared/clock') as ClockModule;
		wait = async (ms, signal) => await clock.wait(ms, signal ?? new AbortController().signal);
	});
	jest.dontMock('n8n-workflow');
	return wait as Wait;
}

/** What a promise has settled to so far ('pending' if nothing), after pending callbacks ran. */
async function settledValue<T>(promise: Promise<T>): Promise<T | 'pending'> {
	let value: T | 'pending' = 'pending';
	void promise.then((result) => (value = result));
	await new Promise((resolve) => setImmediate(resolve));
	return value;
}

describe.each(Object.keys(N8N_WORKFLOW) as Array<keyof typeof N8N_WORKFLOW>)(
	'n8n-workflow %s',
	(kind) => {
		const wait = loadWait(kind);

		// n8n's sleep runs on setTimeout: fake timers let a 200 s wait be checked without waiting.
		beforeEach(() => jest.useFakeTimers({ doNotFake: ['setImmediate'] }));
		afterEach(() => {
			jest.clearAllTimers();
			jest.useRealTimers();
		});

		it('a full wait reports true, not before its time', async () => {
			for (const signal of [new AbortController().signal, undefined]) {
				const waiting = wait(5000, signal);
				await jest.advanceTimersByTimeAsync(4999);
				expect(await settledValue(waiting)).toBe('pending');
				await jest.advanceTimersByTimeAsync(1);
				expect(await settledValue(waiting)).toBe(true);
			}
		});

		it('an abort ends a long wait at once, reports false and clears its timer', async () => {
			const controller = new AbortController();
			const waiting = wait(200_000, controller.signal);
			expect(await settledValue(waiting)).toBe('pending');
			expect(jest.getTimerCount()).toBe(1);
			controller.abort();
			expect(await settledValue(waiting)).toBe(false);
			expect(jest.getTimerCount()).toBe(0);
		});

		it('a wait longer than one timer holds (2^31 ms) takes several, each at most that long, and ends at its time', async () => {
			const LONGEST = 2 ** 31 - 1;
			for (const signal of [new AbortController().signal, undefined]) {
				const waiting = wait(LONGEST + 5000, signal);
				await jest.advanceTimersByTimeAsync(LONGEST);
				expect(await settledValue(waiting)).toBe('pending');
				await jest.advanceTimersByTimeAsync(4999);
				expect(await settledValue(waiting)).toBe('pending');
				await jest.advanceTimersByTimeAsync(1);
				expect(await settledValue(waiting)).toBe(true);
			}
		});

		it('an already aborted signal does not wait', async () => {
			const controller = new AbortController();
			controller.abort();
			expect(await settledValue(wait(200_000, controller.signal))).toBe(false);
			expect(jest.getTimerCount()).toBe(0);
		});
	},
);

describe("the clock's time", () => {
	it('is monotonic: a wall clock stepped back 20 s (NTP, a restored VM) moves neither now() nor a wait', async () => {
		const { realClock } = jest.requireActual(
			'../nodes/VoiceAssistant/shared/clock',
		) as typeof import('../nodes/VoiceAssistant/shared/clock');
		const before = realClock.now();
		const wall = Date.now();
		const stepped = jest.spyOn(Date, 'now').mockReturnValue(wall - 20_000);
		try {
			expect(realClock.now()).toBeGreaterThanOrEqual(before);
			expect(realClock.date()).toBe(wall - 20_000);
			const started = realClock.now();
			await realClock.sleep(20);
			expect(realClock.now() - started).toBeGreaterThanOrEqual(19);
			expect(realClock.now() - started).toBeLessThan(1000);
		} finally {
			stepped.mockRestore();
		}
	});
});
