/**
 * What each answer of a run moves (shared/request/attemptFeedback.ts): the limit on requests in
 * flight, when pacing starts, and that once paced 429s move the pace, not the limit. Scripted
 * answers against the real limit, window and account admission (its pacer), all within a few
 * milliseconds of the real clock.
 */
import type { AttemptEnd } from '../nodes/VoiceAssistant/shared/failureModel';
import { AttemptFeedback } from '../nodes/VoiceAssistant/shared/request/attemptFeedback';
import { WindowSizer } from '../nodes/VoiceAssistant/shared/request/windowSizer';
import { RunWindow } from '../nodes/VoiceAssistant/shared/request/runWindow';
import { AccountAdmission } from '../nodes/VoiceAssistant/shared/request/admission';

/** An account without a Rate Limit: what its pacer learned. */
const learned = (account: AccountAdmission) => account.rateInForce.now;

function automatic(ceiling = 64) {
	const limit = new WindowSizer(ceiling);
	const window = new RunWindow(limit.limit);
	const pacer = new AccountAdmission('account');
	return { limit, window, pacer, feedback: new AttemptFeedback(limit, window) };
}

/** Answers the service handled in the last second: pacing starts at that many a second. */
const HANDLED: AttemptEnd[] = Array(8).fill('answered');

/** How many of `wanting` holders the window lets in at once; the others wait (and then leave). */
function holders(window: RunWindow, wanting: number): number {
	const done = new AbortController();
	const releases: Array<() => void> = [];
	for (let i = 0; i < wanting; i++)
		void window.use(
			async () => await new Promise<void>((release) => releases.push(release)),
			done.signal,
		);
	const admitted = window.inUse;
	done.abort();
	releases.forEach((release) => release());
	return admitted;
}

const tell = (feedback: AttemptFeedback, account: AccountAdmission, failures: AttemptEnd[]) =>
	failures.forEach((failure) => feedback.onAttemptEnd(failure, account, 1));

describe('AttemptFeedback', () => {
	it('a round that mostly pushed back halves the limit, and the window follows it', () => {
		const { limit, window, pacer, feedback } = automatic();
		tell(feedback, pacer, Array(32).fill('unavailable'));
		expect(limit.limit).toBe(16);
		expect(limit.cuts).toBe(1);
		expect(learned(pacer)).toBeUndefined(); // 503s are no rate limit
		// The window admits no more than the new limit.
		expect(holders(window, 17)).toBe(16);
	});

	it('a cut round with two 429s in it starts pacing, at what the service handled in the last second', () => {
		const { pacer, feedback } = automatic(40);
		tell(feedback, pacer, [
			...HANDLED,
			...Array(22).fill('unavailable'),
			'rate-limited',
			'rate-limited',
		]);
		expect(learned(pacer)).toBe(HANDLED.length);
	});

	it('16 of the latest 20 answers 429 start pacing before any round is cut', () => {
		const { limit, pacer, feedback } = automatic(1000);
		tell(feedback, pacer, [...HANDLED, ...Array(15).fill('rate-limited')]);
		expect(learned(pacer)).toBeUndefined();
		tell(feedback, pacer, ['rate-limited']);
		expect(learned(pacer)).toBe(HANDLED.length);
		expect(limit.cuts).toBe(0);
	});

	it('without evidence of a rate (nothing handled in the last second) pacing does not start', () => {
		const { limit, pacer, feedback } = automatic();
		tell(feedback, pacer, Array(40).fill('rate-limited'));
		expect(limit.cuts).toBe(1);
		expect(learned(pacer)).toBeUndefined();
	});

	it('a single 429 that cuts a window of one (Max Concurrent Requests 1) does not start pacing: its Retry-After answers it', () => {
		const { limit, pacer, feedback } = automatic(1);
		tell(feedback, pacer, [...HANDLED, 'rate-limited', ...HANDLED]);
		expect(limit.cuts).toBe(1);
		expect(learned(pacer)).toBeUndefined();
	});

	it('random 429s among answers move nothing', () => {
		const { limit, pacer, feedback } = automatic();
		for (let i = 0; i < 500; i++)
			feedback.onAttemptEnd(i % 4 === 0 ? 'rate-limited' : 'answered', pacer, 1);
		expect(learned(pacer)).toBeUndefined();
		expect(limit.cuts).toBe(0);
	});

	it('once paced, 429s move the pace, not the limit; with a Rate Limit in force too', () => {
		const { limit, pacer, feedback } = automatic();
		tell(feedback, pacer, [...HANDLED, ...Array(16).fill('rate-limited')]);
		expect(learned(pacer)).toBe(HANDLED.length);
		tell(feedback, pacer, Array(64).fill('rate-limited'));
		expect(limit.cuts).toBe(0);
		const set = automatic();
		set.pacer.join({ limit: { perSecond: 100, words: '' }, held: { rateMs: 0, pauseMs: 0 } });
		tell(set.feedback, set.pacer, Array(64).fill('rate-limited'));
		expect(set.limit.cuts).toBe(0);
	});

	it('a fixed Max Concurrent Requests: only the account hears the answers, and starts no pacing', () => {
		const window = new RunWindow(5);
		const pacer = new AccountAdmission('account');
		const attemptEnded = jest.spyOn(pacer, 'attemptEnded');
		const feedback = new AttemptFeedback(undefined, window);
		tell(feedback, pacer, [...HANDLED, ...Array(40).fill('rate-limited')]);
		expect(attemptEnded).toHaveBeenCalledTimes(48);
		expect(attemptEnded.mock.calls[47][2]).toBeUndefined();
		expect(learned(pacer)).toBeUndefined();
	});

	it('counts an answer or a refusal as handled, a 429 as rate-limited, any other failure as failed', () => {
		const ends: AttemptEnd[] = [
			'answered',
			'unusable',
			'redirect',
			'client-error',
			'rate-limited',
			'unavailable',
			'server-error',
			'timeout',
			'cut',
			'not-connected',
		];
		const pacer = new AccountAdmission('account');
		const attemptEnded = jest.spyOn(pacer, 'attemptEnded');
		tell(new AttemptFeedback(undefined, new RunWindow(5)), pacer, ends);
		expect(attemptEnded.mock.calls.map(([kind]) => kind)).toEqual([
			...Array(4).fill('handled'),
			'rate-limited',
			...Array(5).fill('failed'),
		]);
	});
});
