/** The cancellable wait on both kinds of n8n-workflow: with sleepWithAbort (1.x, 2.8) and without (2.41). */
type Wait = (ms: number, signal: AbortSignal | undefined) => Promise<boolean>;

function loadWait(withSleepWithAbort: boolean): Wait {
	let wait: Wait | undefined;
	jest.isolateModules(() => {
		if (!withSleepWithAbort) {
			jest.doMock('n8n-workflow', () => ({ ...jest.requireActual('n8n-workflow'), sleepWithAbort: undefined }));
		}
		// eslint-disable-next-line @typescript-eslint/no-require-imports -- a fresh copy of the module per mock
		const limiter = require('../nodes/VoiceAssistant/shared/request/limiter') as typeof import('../nodes/VoiceAssistant/shared/request/limiter');
		wait = async (ms, signal) => await limiter.wait(ms, signal ?? new AbortController().signal);
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

describe.each([
	['n8n-workflow with sleepWithAbort', true],
	['n8n-workflow without sleepWithAbort', false],
])('%s', (_name, withSleepWithAbort) => {
	const wait = loadWait(withSleepWithAbort);

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

	it('an abort ends a long wait at once and reports false', async () => {
		const controller = new AbortController();
		const waiting = wait(200_000, controller.signal);
		expect(await settledValue(waiting)).toBe('pending');
		controller.abort();
		expect(await settledValue(waiting)).toBe(false);
	});

	it('an already aborted signal does not wait', async () => {
		const controller = new AbortController();
		controller.abort();
		expect(await settledValue(wait(200_000, controller.signal))).toBe(false);
	});
});
