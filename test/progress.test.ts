/**
 * The lines a run writes to n8n's log (shared/request/progress.ts): its progress on long runs, and
 * one summary saying what held it back (the account's rate, its node's own rate, Retry-After
 * pauses, n8n's Batching) and for how long. In n8n's engine: test/run.test.ts, test/admission.test.ts.
 */
import { Progress } from '../nodes/VoiceAssistant/shared/progress';
import type { HeldBack } from '../nodes/VoiceAssistant/shared/runWords';
import type { SetLimit } from '../nodes/VoiceAssistant/shared/rate';
import type { Stated } from '../nodes/VoiceAssistant/shared/countShare';

type Held = HeldBack;
const NOTHING_HELD: Held = { rateMs: 0, ownMs: 0, pauseMs: 0, batching: false, limitSet: false };
/** The words of a Rate Limit set on a credential, as the run reads them. */
const TEN_A_SECOND = {
	heldBy: { '10 requests a second, set on credential "Voice Assistant account"': 4000 },
	limitSet: true,
};

describe('Progress in the log', () => {
	function progressOf(
		total: number,
		rate: { now?: number; limit?: SetLimit; stated?: Stated; waiting: number } = { waiting: 0 },
		held: Held = NOTHING_HELD,
	) {
		const lines: string[] = [];
		const log = (message: string) => lines.push(message);
		const logger = { info: log, debug: log, warn: log, error: log };
		const progress = new Progress(total, logger, 'Update contacts', {
			concurrency: () => ({ now: 40, peak: 64 }),
			inFlight: () => 12,
			rate: () => rate,
			heldBack: () => held,
		});
		return { progress, lines };
	}

	/** The summary of a run of one item that `held` describes, from its first comma on. */
	const summaryOf = (held: Held) => {
		const { progress, lines } = progressOf(1, undefined, held);
		progress.itemDone(true);
		progress.logSummary('done');
		return lines[0].replace(/^.*requests in flight/, '');
	};

	it('says when the run is paced at a rate, and how low the learned rate went and how long it held the run back', () => {
		const held = { ...NOTHING_HELD, rateMs: 12_345, lowestLearned: 171.2 };
		const { progress, lines } = progressOf(100, { now: 196.4, waiting: 83 }, held);
		for (let i = 0; i < 100; i++) progress.itemDone(true);
		progress.logSummary('done');
		expect(lines[0]).toBe(
			'Voice Assistant "Update contacts": 10/100 items (10%): 10 succeeded, 0 failed, 0 waiting to retry, 12 in flight of 40 allowed, paced at 196 requests/s, learned from 429 answers (83 waiting for their turn)',
		);
		expect(lines[9]).toMatch(
			/: done: 100 items in \d+\.\d s: 100 succeeded, 0 failed, 0 retries, up to 64 requests in flight, held back 12\.3 s by the account's rate limit \(learned from the service's 429 answers, down to 171 requests\/s\)$/,
		);
	});

	it('names a Rate Limit in the unit it was set in: 1 a minute is not "0.02 requests/s"', () => {
		const limit = {
			perSecond: 1 / 60,
			words: '1 request a minute, set on credential "CRM account"',
		};
		const { progress, lines } = progressOf(100, { now: 1 / 60, limit, waiting: 3 });
		for (let i = 0; i < 10; i++) progress.itemDone(true);
		expect(lines[0]).toMatch(
			/, paced at 1 request a minute, set on credential "CRM account" \(3 waiting for their turn\)$/,
		);
		expect(summaryOf({ ...NOTHING_HELD, rateMs: 60_600, heldBy: { [limit.words]: 60_600 } })).toBe(
			`, held back 60.6 s by the account's rate limit (${limit.words})`,
		);
		// A learned rate below 10 a second keeps two significant digits.
		expect(summaryOf({ ...NOTHING_HELD, rateMs: 4000, lowestLearned: 0.25 / 60 })).toMatch(
			/down to 0\.0042 requests\/s\)$/,
		);
	});

	it("names the credential's Rate Limit, the node's own Max Requests per Second and Retry-After pauses, with how long each held the run back", () => {
		expect(summaryOf({ ...NOTHING_HELD, rateMs: 4000, ...TEN_A_SECOND })).toBe(
			', held back 4.0 s by the account\'s rate limit (10 requests a second, set on credential "Voice Assistant account")',
		);
		expect(summaryOf({ ...NOTHING_HELD, ownMs: 2020, ownRate: 0.5 })).toBe(
			', held back 2.0 s by Max Requests per Second (0.5 requests/s)',
		);
		expect(summaryOf({ ...NOTHING_HELD, pauseMs: 2000 })).toBe(
			', paused 2.0 s as the service asked (Retry-After)',
		);
		// A rate that held nothing back is not worth a word.
		expect(summaryOf({ ...NOTHING_HELD, rateMs: 10, ...TEN_A_SECOND, ownRate: 5 })).toBe('');
	});

	it("names the limit that held the run longest: another credential's of the account, not its own it met for a moment; the service's stated limit", () => {
		const heldBy = {
			'100 requests a second, set on credential "Updates"': 80,
			'1 request a second, set on credential "Calls"': 9_920,
		};
		expect(summaryOf({ ...NOTHING_HELD, rateMs: 10_000, heldBy })).toBe(
			', held back 10.0 s by the account\'s rate limit (1 request a second, set on credential "Calls")',
		);
		const stated = { "the service's stated limit, 200 a second": 3_300 };
		expect(summaryOf({ ...NOTHING_HELD, rateMs: 3_300, heldBy: stated })).toBe(
			", held back 3.3 s by the account's rate limit (the service's stated limit, 200 a second)",
		);
		const { progress, lines } = progressOf(100, {
			now: 98,
			stated: { perSecond: 200, share: 98, quota: 200, windowMs: 1000 },
			waiting: 5,
		});
		for (let i = 0; i < 10; i++) progress.itemDone(true);
		expect(lines[0]).toMatch(
			/, paced at 98 requests\/s, the service's stated limit, 200 a second, shared with others of the account \(5 waiting for their turn\)$/,
		);
	});

	it("advises against n8n's Batching only when Batching held a request back and no rate is set", () => {
		expect(summaryOf({ ...NOTHING_HELD, batching: true })).toMatch(
			/^\. n8n's Batching held requests back .*: to space requests, set the credential's Rate Limit and turn Batching off$/,
		);
		expect(summaryOf({ ...NOTHING_HELD, batching: true, limitSet: true })).toBe('');
		expect(summaryOf({ ...NOTHING_HELD, batching: true, ownRate: 10 })).toBe('');
		expect(summaryOf(NOTHING_HELD)).toBe('');
	});

	it('a line every tenth of the items, and one summary line', () => {
		const { progress, lines } = progressOf(200);
		progress.retryWaitStarted();
		for (let i = 0; i < 199; i++) progress.itemDone(true);
		expect(lines).toHaveLength(9);
		expect(lines[0]).toBe(
			'Voice Assistant "Update contacts": 20/200 items (10%): 20 succeeded, 0 failed, 1 waiting to retry, 12 in flight of 40 allowed',
		);
		progress.retryWaitEnded();
		progress.itemDone(false);
		expect(lines).toHaveLength(9); // the last item: the Run logs how it ended
		progress.logSummary('done');
		progress.logSummary('stopped');
		expect(lines).toHaveLength(10);
		expect(lines[9]).toMatch(
			/^Voice Assistant "Update contacts": done: 200 items in \d+\.\d s: 199 succeeded, 1 failed, 1 retries, up to 64 requests in flight$/,
		);
	});

	it('at most every 1,000 items; a small run only logs its summary', () => {
		const big = progressOf(20_000);
		for (let i = 0; i < 20_000; i++) big.progress.itemDone(true);
		big.progress.logSummary('done');
		expect(big.lines).toHaveLength(20);
		const small = progressOf(3);
		for (let i = 0; i < 3; i++) small.progress.itemDone(true);
		small.progress.logSummary('done');
		expect(small.lines).toHaveLength(1);
	});
});
