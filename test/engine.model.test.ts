/**
 * A model-based test of the request engine (fast-check, a fake clock, deterministic): overlapping
 * runs of one service account, with random answer sequences (200, 400, 429 and 503 with
 * Retry-After in both forms, cut connections, timeouts), random cancels and runs that n8n
 * abandons mid-way. Each run goes through the engine's own lifecycle (itemPrepared → whenPrepared
 * → joinPace → sendOne → finishItem) with the real limiter, limit, pace and retry policy; only the
 * HTTP attempt is the model's. Invariants: no attempt starts after its run's stop or cancel; every
 * run ends and leaves the pace registry; each item gets one outcome; no POST is sent again once
 * the service may have received it; a later run on a quiet service is not held to an old pace.
 */
import fc from 'fast-check';
import { NodeOperationError, type INode } from 'n8n-workflow';
import { accountOf, pacedAccounts } from '../nodes/VoiceAssistant/shared/request/accountPace';
import { ServiceAnswerError } from '../nodes/VoiceAssistant/shared/request/failure';
import { realClock, useClock, type Clock } from '../nodes/VoiceAssistant/shared/request/limiter';
import { readRequestPolicy } from '../nodes/VoiceAssistant/shared/requestPolicy';
import { Run, TriesMemory, type Outcome } from '../nodes/VoiceAssistant/shared/request/run';
import { sendOne } from '../nodes/VoiceAssistant/shared/request/sendItem';

/** Virtual time: sleeps are timers in a list; the test moves time to the next one when nothing else can run. */
class FakeClock implements Clock {
	private time = 1_000_000;

	private timers: Array<{ at: number; seq: number; fire: () => void }> = [];

	private seq = 0;

	now = () => this.time;

	sleep = async (ms: number, signal?: AbortSignal) =>
		await new Promise<void>((resolve) => {
			if (signal?.aborted) return resolve();
			const timer = { at: this.time + Math.max(0, ms), seq: this.seq++, fire: resolve };
			this.timers.push(timer);
			signal?.addEventListener('abort', () => {
				this.timers = this.timers.filter((other) => other !== timer);
				resolve();
			});
		});

	/** Runs until every promise settled and no timer is left (or the virtual deadline passed). */
	async runUntilIdle(until: Promise<unknown>, maxVirtualMs = 3_600_000): Promise<void> {
		let settled = false;
		void until.finally(() => (settled = true));
		const end = this.time + maxVirtualMs;
		while (!settled) {
			for (let i = 0; i < 5; i++) await new Promise((resolve) => setImmediate(resolve));
			if (settled || this.timers.length === 0) continue;
			this.timers.sort((a, b) => a.at - b.at || a.seq - b.seq);
			const next = this.timers.shift()!;
			if (next.at > end) throw new Error('the model ran past its virtual deadline');
			this.time = Math.max(this.time, next.at);
			next.fire();
		}
	}
}

type Answer =
	| { kind: 'ok' | 'refused' | 'reset' | 'timeout' | 'server-error'; latencyMs: number }
	| { kind: 'throttled' | 'unavailable'; latencyMs: number; retryAfterS: number; asDate: boolean };

const answerArb: fc.Arbitrary<Answer> = fc.oneof(
	{ weight: 6, arbitrary: fc.record({ kind: fc.constant('ok' as const), latencyMs: fc.integer({ min: 0, max: 300 }) }) },
	{ weight: 1, arbitrary: fc.record({ kind: fc.constantFrom('refused' as const, 'reset' as const, 'timeout' as const, 'server-error' as const), latencyMs: fc.integer({ min: 0, max: 300 }) }) },
	{
		weight: 2,
		arbitrary: fc.record({
			kind: fc.constantFrom('throttled' as const, 'unavailable' as const),
			latencyMs: fc.integer({ min: 0, max: 100 }),
			retryAfterS: fc.integer({ min: 0, max: 4 }),
			asDate: fc.boolean(),
		}),
	},
);

interface RunPlan {
	startMs: number;
	items: number;
	/** n8n's loop threw after preparing this many items (undefined: it prepared them all); a run begins with its first prepared item. */
	abandonAfter: number | undefined;
	cancelAtMs: number | undefined;
	method: 'POST' | 'PUT';
	continues: boolean;
	adaptive: boolean;
	maxConcurrency: number;
	retryOnFail: boolean;
}

const runPlanArb: fc.Arbitrary<RunPlan> = fc.record({
	startMs: fc.integer({ min: 0, max: 3000 }),
	items: fc.integer({ min: 1, max: 12 }),
	abandonAfter: fc.option(fc.integer({ min: 1, max: 11 }), { nil: undefined, freq: 4 }),
	cancelAtMs: fc.option(fc.integer({ min: 0, max: 8000 }), { nil: undefined, freq: 3 }),
	method: fc.constantFrom('POST' as const, 'PUT' as const),
	continues: fc.boolean(),
	adaptive: fc.boolean(),
	maxConcurrency: fc.integer({ min: 1, max: 6 }),
	retryOnFail: fc.boolean(),
});

const NODE = { id: 'n', name: 'Voice Assistant', type: 'voiceAssistant', typeVersion: 1, position: [0, 0], parameters: {} } as INode;
const ACCOUNT = accountOf('https://api.example.com', 'model-key');
const quietLogger = { info: () => undefined, debug: () => undefined, warn: () => undefined, error: () => undefined };

interface AttemptRecord {
	run: number;
	item: number;
	startedAfterStop: boolean;
	mayHaveReceived: boolean;
}

/** The error an attempt throws for an answer, as n8n's helper and the node's postReceive do. */
function failureFor(answer: Answer, now: number): unknown {
	switch (answer.kind) {
		case 'refused':
			return new ServiceAnswerError(NODE, 400, {}, { message: 'refused' });
		case 'server-error':
			return new ServiceAnswerError(NODE, 500, {}, { message: 'boom' });
		case 'throttled':
		case 'unavailable': {
			const retryAfter = answer.asDate ? new Date(now + answer.retryAfterS * 1000).toUTCString() : String(answer.retryAfterS);
			return new ServiceAnswerError(NODE, answer.kind === 'throttled' ? 429 : 503, { 'retry-after': retryAfter }, {});
		}
		case 'reset':
			return Object.assign(new Error('socket hang up'), { httpCode: 'ECONNRESET' });
		default:
			return Object.assign(new Error('timeout'), { httpCode: 'ETIMEDOUT' });
	}
}

/** Plays the runs against a service answering from `answers` in turn; returns what happened. */
async function simulate(plans: RunPlan[], answers: Answer[], clock: FakeClock) {
	const attempts: AttemptRecord[] = [];
	const outcomes = plans.map((plan) => new Array<number>(plan.items).fill(0));
	const runs: Run[] = [];
	let next = 0;
	const memories = plans.map(() => new TriesMemory());

	const playRun = async (plan: RunPlan, r: number) => {
		await clock.sleep(plan.startMs);
		const execution = new AbortController();
		if (plan.cancelAtMs !== undefined) void clock.sleep(plan.cancelAtMs).then(() => execution.abort());
		const policy = readRequestPolicy({ adaptiveConcurrency: plan.adaptive, maxConcurrency: plan.maxConcurrency, maxRetries: 3, maxRetryWaitSeconds: 10 });
		const run = new Run(plan.items, policy, { logger: quietLogger, nodeName: `run ${r}` }, execution.signal, undefined, plan.retryOnFail ? memories[r] : undefined);
		runs[r] = run;
		// n8n's item loop: synchronous, and it may throw after some items.
		const prepared = Math.min(plan.items, plan.abandonAfter ?? plan.items);
		for (let item = 0; item < prepared; item++) run.itemPrepared(item);
		await Promise.all(
			Array.from({ length: prepared }, async (_, item) => {
				await Promise.resolve(); // the send step runs after n8n's loop, as a microtask
				if (!(await run.whenPrepared())) {
					if (!run.abandoned) outcomes[r][item]++;
					if (!run.abandoned) run.finishItem(false);
					return;
				}
				run.joinPace(ACCOUNT);
				const outcome: Outcome = await sendOne({
					run,
					itemIndex: item,
					method: plan.method,
					fingerprint: run.earlierTries && `item-${item}`,
					continues: plan.continues,
					attempt: async () => {
						const answer = answers[next++ % answers.length];
						const record = { run: r, item, startedAfterStop: run.signal.aborted, mayHaveReceived: false };
						attempts.push(record);
						await clock.sleep(answer.latencyMs);
						if (answer.kind === 'ok') return [{ json: { ok: true } }];
						record.mayHaveReceived = ['reset', 'timeout', 'server-error'].includes(answer.kind);
						throw failureFor(answer, clock.now());
					},
					failed: () => new NodeOperationError(NODE, 'failed'),
					notSent: () => ({ error: new NodeOperationError(NODE, 'not sent') }),
				});
				outcomes[r][item]++;
				run.finishItem('items' in outcome);
			}),
		);
	};
	await clock.runUntilIdle(Promise.all(plans.map(playRun)));
	return { attempts, outcomes, runs };
}

describe('the request engine, model-based', () => {
	let clock: FakeClock;
	beforeEach(() => {
		clock = new FakeClock();
		useClock(clock);
	});
	afterAll(() => useClock(realClock));

	it('keeps its invariants over random runs, answers, stops, cancels and abandoned runs', async () => {
		await fc.assert(
			fc.asyncProperty(fc.array(runPlanArb, { minLength: 1, maxLength: 3 }), fc.array(answerArb, { minLength: 1, maxLength: 40 }), async (plans, answers) => {
				clock = new FakeClock();
				useClock(clock);
				const { attempts, outcomes, runs } = await simulate(plans, answers, clock);

				// No request starts after its run's stop or cancel.
				expect(attempts.filter((attempt) => attempt.startedAfterStop)).toEqual([]);
				// Every run ends, and leaves the pace registry.
				expect(runs.map((run) => run.ended)).toEqual(runs.map(() => true));
				expect(pacedAccounts()).toBe(0);
				// Each item that n8n prepared gets exactly one outcome (an abandoned run's none: nothing is sent).
				plans.forEach((plan, r) => {
					const prepared = Math.min(plan.items, plan.abandonAfter ?? plan.items);
					const expected = prepared < plan.items ? 0 : 1;
					expect(outcomes[r].slice(0, prepared)).toEqual(new Array(prepared).fill(expected));
				});
				// No POST is sent again once the service may have received it.
				for (const [index, attempt] of attempts.entries()) {
					if (!attempt.mayHaveReceived || plans[attempt.run].method !== 'POST') continue;
					expect(attempts.slice(index + 1).filter((later) => later.run === attempt.run && later.item === attempt.item)).toEqual([]);
				}
				// A later run on a quiet service is not held to an old pace.
				const startedAt = clock.now();
				const quiet = { ...plans[0], startMs: 0, abandonAfter: undefined, cancelAtMs: undefined, adaptive: true, items: 3 };
				const later = await simulate([quiet], [{ kind: 'ok', latencyMs: 1 }], clock);
				expect(later.outcomes[0]).toEqual([1, 1, 1]);
				expect(clock.now() - startedAt).toBeLessThan(50);
				expect(pacedAccounts()).toBe(0);
			}),
			{ numRuns: 150, seed: 20261126, endOnFailure: true },
		);
	}, 120_000);
});
