/** The cancellable wait on both kinds of n8n-workflow: with sleepWithAbort (1.x, 2.8) and without (2.41). */
type Wait = typeof import('../nodes/VoiceAssistant/shared/cancellation').waitUnlessCancelled;

function loadWait(withSleepWithAbort: boolean): Wait {
	let wait: Wait | undefined;
	jest.isolateModules(() => {
		if (!withSleepWithAbort) {
			jest.doMock('n8n-workflow', () => ({ ...jest.requireActual('n8n-workflow'), sleepWithAbort: undefined }));
		}
		wait = (require('../nodes/VoiceAssistant/shared/cancellation') as { waitUnlessCancelled: Wait }).waitUnlessCancelled;
	});
	jest.dontMock('n8n-workflow');
	return wait as Wait;
}

describe.each([
	['n8n-workflow with sleepWithAbort', true],
	['n8n-workflow without sleepWithAbort', false],
])('%s', (_name, withSleepWithAbort) => {
	const wait = loadWait(withSleepWithAbort);

	it('a full wait reports true', async () => {
		await expect(wait(5, new AbortController().signal)).resolves.toBe(true);
		await expect(wait(5, undefined)).resolves.toBe(true);
	});

	it('an abort ends a long wait at once and reports false', async () => {
		const controller = new AbortController();
		const waiting = wait(200_000, controller.signal);
		controller.abort();
		await expect(waiting).resolves.toBe(false); // jest's 30 s timeout would fail it otherwise
	});

	it('an already aborted signal does not wait', async () => {
		const controller = new AbortController();
		controller.abort();
		await expect(wait(200_000, controller.signal)).resolves.toBe(false);
	});
});
