/**
 * A model-based test of the request engine (fast-check, a fake clock, deterministic). The model
 * plays n8n: its declarative loop (every item's preSend in one synchronous pass, each send step
 * after it; an item whose expression fails ends the loop, or, on n8n 2.39.4+ under Continue On
 * Fail, is skipped), its Retry On Fail (the same node run again), AI Agent tool calls (each with
 * the agent's execute data and its own arguments), cancels and expression values that change on
 * every try, a Rate Limit on the credential and a node's own Max Requests per Second. It calls the
 * node's real hooks (preSend, the send step), so the adapter, the run, the memory of tries, the
 * window, the account's admission and the retries are the real ones; only the service's answers
 * are the model's, given through a request helper that, like n8n's, aborts a request on its
 * context's cancel signal (a cancel, or the attempt's Timeout, cuts it in flight).
 * Invariants: no attempt starts after its run's stop or cancel; a request in flight is cut at its
 * run's cancel or its Timeout, and only then; the account's starts, over every run, tool call and
 * execution that follow each other, keep the credential's rate at the service wherever each request
 * arrived between its start and its end, and a run's its node's own; no attempt of the account
 * starts during a Retry-After of more than a second the service asked for; the admission registry
 * forgets the account on its own; each item gets at most one outcome per try; no POST is sent
 * again once the service may have received it (a request cut in flight included), whatever its
 * body says now; each tool call sends; a loop that threw sends nothing, one that skipped items
 * sends the others; a later run on a quiet service is held by nothing but its rates.
 */
import fc from 'fast-check';
import {
	NodeApiError,
	type IDataObject,
	type IExecuteSingleFunctions,
	type IHttpRequestOptions,
	type INode,
	type INodeExecutionData,
} from 'n8n-workflow';
import { retryAfterOf } from '../nodes/VoiceAssistant/shared/serviceCount';
import { CREDENTIAL_TYPE, NODE_NAME } from '../tools/package-names';
import { VirtualClock as FakeClock } from './helpers/virtualClock';
import { forgetAccounts } from './helpers/accounts';

/** The node's hooks, loaded against an n8n-workflow whose loop skips failed items (2.39.4+) or not. */
function loadNode(skipsFailedItems: boolean) {
	let loaded: {
		routing: typeof import('../nodes/VoiceAssistant/shared/request/routing');
		prepare: typeof import('../nodes/VoiceAssistant/shared/request/prepareRequest');
		clock: typeof import('../nodes/VoiceAssistant/shared/clock');
		admission: typeof import('../nodes/VoiceAssistant/shared/request/admission');
	};
	jest.isolateModules(() => {
		jest.doMock('n8n-workflow', () => ({
			...jest.requireActual('n8n-workflow'),
			toHostname: skipsFailedItems ? () => undefined : undefined,
		}));
		/* eslint-disable @typescript-eslint/no-require-imports -- a fresh copy of the node per n8n line */
		loaded = {
			routing: require('../nodes/VoiceAssistant/shared/request/routing'),
			prepare: require('../nodes/VoiceAssistant/shared/request/prepareRequest'),
			clock: require('../nodes/VoiceAssistant/shared/clock'),
			admission: require('../nodes/VoiceAssistant/shared/request/admission'),
		};
		/* eslint-enable @typescript-eslint/no-require-imports */
	});
	jest.dontMock('n8n-workflow');
	return loaded!;
}

type Answer =
	| { kind: 'ok' | 'refused' | 'reset' | 'timeout' | 'server-error'; latencyMs: number }
	| { kind: 'throttled' | 'unavailable'; latencyMs: number; retryAfterS: number };

const answerArb: fc.Arbitrary<Answer> = fc.oneof(
	{
		weight: 6,
		arbitrary: fc.record({
			kind: fc.constant('ok' as const),
			latencyMs: fc.integer({ min: 0, max: 300 }),
		}),
	},
	{
		weight: 1,
		arbitrary: fc.record({
			kind: fc.constantFrom(
				'refused' as const,
				'reset' as const,
				'timeout' as const,
				'server-error' as const,
			),
			latencyMs: fc.integer({ min: 0, max: 300 }),
		}),
	},
	{
		// A slow answer: a plan's Timeout may cut it.
		weight: 1,
		arbitrary: fc.record({
			kind: fc.constant('ok' as const),
			latencyMs: fc.integer({ min: 1000, max: 20_000 }),
		}),
	},
	{
		weight: 2,
		arbitrary: fc.record({
			kind: fc.constantFrom('throttled' as const, 'unavailable' as const),
			latencyMs: fc.integer({ min: 0, max: 100 }),
			retryAfterS: fc.integer({ min: 0, max: 4 }),
		}),
	},
);

/** One node run as the model's n8n runs it: a bulk run of `items`, or an AI Agent's tool calls. */
interface Plan {
	startMs: number;
	items: number;
	/** AI Agent tool calls instead of a bulk run: this many calls, some with the same arguments. */
	toolCalls: number;
	/** Items whose expression fails while n8n's loop prepares them (the last one too, with failLast). */
	failingItems: number[];
	failLast: boolean;
	cancelAtMs: number | undefined;
	/** The request's Timeout (the attempt's deadline); none: the node's default. */
	timeoutMs: number | undefined;
	method: 'POST' | 'PUT';
	continueOnFail: boolean;
	adaptive: boolean;
	maxConcurrency: number;
	maxTries: number;
	/** The node's own Max Requests per Second, held within each of its runs; none: no value. */
	ownRate: number | undefined;
}

const planArb: fc.Arbitrary<Plan> = fc.record({
	startMs: fc.integer({ min: 0, max: 3000 }),
	items: fc.integer({ min: 1, max: 10 }),
	toolCalls: fc.oneof(
		{ weight: 3, arbitrary: fc.constant(0) },
		{ weight: 1, arbitrary: fc.integer({ min: 1, max: 4 }) },
	),
	failingItems: fc.oneof(
		{ weight: 3, arbitrary: fc.constant<number[]>([]) },
		{ weight: 1, arbitrary: fc.uniqueArray(fc.integer({ min: 0, max: 9 }), { maxLength: 2 }) },
	),
	failLast: fc.oneof(
		{ weight: 3, arbitrary: fc.constant(false) },
		{ weight: 1, arbitrary: fc.constant(true) },
	),
	cancelAtMs: fc.option(fc.integer({ min: 0, max: 8000 }), { nil: undefined, freq: 3 }),
	timeoutMs: fc.option(fc.integer({ min: 200, max: 5000 }), { nil: undefined, freq: 2 }),
	method: fc.constantFrom('POST' as const, 'PUT' as const),
	continueOnFail: fc.boolean(),
	adaptive: fc.boolean(),
	maxConcurrency: fc.integer({ min: 1, max: 6 }),
	maxTries: fc.integer({ min: 1, max: 3 }),
	ownRate: fc.option(fc.constantFrom(0.5, 1, 3, 10), { nil: undefined, freq: 3 }),
});

/** Max Retry Wait of every plan, seconds. */
const MAX_RETRY_WAIT_S = 10;

/** The credential's Rate Limit a second, for every plan of a property run (one account); none: not set. */
const setRateArb = fc.option(fc.constantFrom(0.5, 1, 2, 5, 20), { nil: undefined, freq: 2 });

/** How many requests a rate (a second) lets reach the service, in how long: `count` in any `spanMs` (a second for whole rates). */
function spanOf(rate: number): { count: number; spanMs: number } {
	const count = Math.max(1, Math.floor(rate));
	return { count, spanMs: (count * 1000) / rate };
}

/**
 * The most requests of `attempts` that may have reached the service in one span, wherever each
 * arrived between its start and its end: at an attempt's start, how many that started before it
 * had not ended a span earlier, plus itself. (Any span holding more arrivals holds the last of
 * them to start, and every other one ended after that start less a span.)
 */
function mostArrivingIn(attempts: Attempt[], spanMs: number): number {
	const sorted = [...attempts].sort((a, b) => a.startedAt - b.startedAt);
	return Math.max(
		0,
		...sorted.map(
			({ startedAt }, k) =>
				// What passed between them (exact), not `startedAt - spanMs` (rounded by the clock's reading).
				1 + sorted.slice(0, k).filter((before) => startedAt - before.endedAt! < spanMs).length,
		),
	);
}

const failsToPrepare = (plan: Plan, itemIndex: number) =>
	plan.failingItems.includes(itemIndex) || (plan.failLast && itemIndex === plan.items - 1);

interface Attempt {
	plan: number;
	/** The tool call, or 0 for a bulk run: with the item, what n8n's Retry On Fail repeats. */
	call: number;
	item: number;
	/** The run's signal was aborted (stop, cancel, end) when the request started. */
	runEnded: boolean;
	mayHaveReceived: boolean;
	/** The request's abort signal fired (a cancel or the attempt's deadline) before its answer came. */
	cut: boolean;
	/** Virtual time when the request started and when it answered, failed or was cut. */
	startedAt: number;
	endedAt: number | undefined;
	/** The try of n8n's Retry On Fail it belongs to. */
	tryIndex: number;
	/** The wait the service asked for (Retry-After on a 429, or a 503 of a PUT, which are retried), ms. */
	pauseMs?: number;
}

/** What n8n's request helper rejects with when the request's signal aborts: axios's CanceledError, as a NodeApiError. */
const canceled = (node: INode) =>
	new NodeApiError(node, { message: 'canceled', name: 'CanceledError', code: 'ERR_CANCELED' });

/** A service answer as n8n's request helper gives it (returnFullResponse) or throws it. */
function respond(answer: Answer, now: number) {
	const status: Record<string, number> = {
		ok: 200,
		refused: 400,
		'server-error': 500,
		throttled: 429,
		unavailable: 503,
	};
	if (answer.kind === 'reset')
		throw Object.assign(new Error('socket hang up'), { httpCode: 'ECONNRESET' });
	if (answer.kind === 'timeout')
		throw Object.assign(new Error('timeout'), { httpCode: 'ETIMEDOUT' });
	const retryAfter =
		'retryAfterS' in answer &&
		(answer.retryAfterS && now % 2
			? new Date(now + answer.retryAfterS * 1000).toUTCString()
			: String(answer.retryAfterS));
	return {
		statusCode: status[answer.kind],
		headers: retryAfter ? { 'retry-after': retryAfter } : {},
		body: answer.kind === 'ok' ? { ok: true } : { message: answer.kind },
	};
}

const loggerInto = (lines: string[]) => ({
	info: (line: string) => lines.push(line),
	debug: () => undefined,
	warn: () => undefined,
	error: () => undefined,
});

/** Plays the plans against a service answering from `answers` in turn. */
async function simulate(
	node: ReturnType<typeof loadNode>,
	skips: boolean,
	plans: Plan[],
	answers: Answer[],
	clock: FakeClock,
	setRate: number | undefined,
) {
	const attempts: Attempt[] = [];
	const log: string[] = [];
	const outcomes: Array<Map<string, number>> = plans.map(() => new Map());
	/** When each plan's execution was cancelled (virtual time). */
	const cancelledAt: Array<number | undefined> = plans.map(() => undefined);
	let next = 0;
	const preSend = node.prepare.prepareRequest({});
	const sendItem = node.routing.operationRouting({ method: 'PUT', path: '/x' } as never, {})
		.operations!.pagination as unknown as (
		this: unknown,
		request: unknown,
	) => Promise<INodeExecutionData[]>;
	const count = (p: number, call: number, items: INodeExecutionData[]) => {
		for (const item of items) {
			const key = `${call}:${(item.pairedItem as { item: number }).item}`;
			outcomes[p].set(key, (outcomes[p].get(key) ?? 0) + 1);
		}
	};

	const playPlan = async (plan: Plan, p: number) => {
		await clock.sleep(plan.startMs);
		const execution = new AbortController();
		if (plan.cancelAtMs !== undefined)
			void clock.sleep(plan.cancelAtMs).then(() => {
				cancelledAt[p] = clock.now();
				execution.abort();
			});
		const asTool = plan.toolCalls > 0;
		const nodeOfPlan: INode = {
			id: `n${p}`,
			name: asTool ? 'Voice Assistant Tool' : 'Voice Assistant',
			type: asTool ? `${NODE_NAME}Tool` : NODE_NAME,
			typeVersion: 1,
			position: [0, 0],
			parameters: {},
			credentials: { [CREDENTIAL_TYPE]: { id: '1', name: 'model' } },
			retryOnFail: plan.maxTries > 1,
			continueOnFail: plan.continueOnFail,
		};
		const options = {
			adaptiveConcurrency: plan.adaptive,
			maxConcurrency: plan.maxConcurrency,
			maxRetries: 3,
			maxRetryWaitSeconds: MAX_RETRY_WAIT_S,
			maxRequestsPerSecond: plan.ownRate ?? 0,
		};
		let volatile = 0;

		/** n8n's RoutingNode.runNode over one node run's items: the preSends in one pass, the send steps after it. */
		const runNode = async (
			call: number,
			tryIndex: number,
			executeData: object,
			inputData: IDataObject,
			itemCount: number,
		) => {
			const sends: Array<Promise<INodeExecutionData[]>> = [];
			for (let itemIndex = 0; itemIndex < itemCount; itemIndex++) {
				if (!asTool && failsToPrepare(plan, itemIndex)) {
					if (skips && plan.continueOnFail) continue;
					// n8n's loop throws; the items it prepared go on in the background, their output unused.
					void Promise.allSettled(sends);
					throw new Error(`expression of item ${itemIndex} failed`);
				}
				const request = {
					// `at` changes on every try, as an expression with $now would.
					options: {
						method: plan.method,
						url: '/api/v1/x',
						qs: { id: `c-${itemIndex}` },
						body: { at: volatile++ },
						headers: {},
						...(plan.timeoutMs === undefined ? {} : { timeout: plan.timeoutMs }),
					} as IHttpRequestOptions,
					preSend: [],
					postReceive: [],
				};
				const context = {
					getNode: () => nodeOfPlan,
					getItemIndex: () => itemIndex,
					getExecuteData: () => executeData,
					inputData,
					continueOnFail: () => plan.continueOnFail,
					getExecutionCancelSignal: () => execution.signal,
					getNodeParameter: (name: string) =>
						name === 'options'
							? options
							: name === 'options.maxRequestsPerSecond'
								? options.maxRequestsPerSecond
								: {},
					getWorkflow: () => ({ id: 'model' }),
					getCredentials: async () => ({
						apiKey: 'model-key',
						baseUrl: 'https://api.example.com',
						rateLimit: setRate ?? 0,
					}),
					logger: loggerInto(log),
					helpers: {
						/**
						 * n8n's request helper: the request aborts on the calling context's
						 * getExecutionCancelSignal() (the node hands it one per attempt, fired by a cancel or
						 * the attempt's deadline), and an abort rejects at once with axios's CanceledError.
						 */
						async httpRequestWithAuthentication(this: IExecuteSingleFunctions) {
							const signal = this.getExecutionCancelSignal?.();
							// The run's signal at the moment the request starts: aborted by a stop, a cancel or its end.
							const { run } = node.prepare.runOf(request.options);
							const record: Attempt = {
								plan: p,
								call,
								tryIndex,
								item: itemIndex,
								runEnded: run.signal.aborted,
								mayHaveReceived: false,
								cut: false,
								startedAt: clock.now(),
								endedAt: undefined,
							};
							attempts.push(record);
							if (signal?.aborted) {
								record.endedAt = clock.now();
								throw canceled(this.getNode());
							}
							const answer = answers[next++ % answers.length];
							const answered = await new Promise<boolean>((resolve) => {
								const forget = signal
									? node.clock.onAbort(signal, () => resolve(false))
									: () => undefined;
								void clock.sleep(answer.latencyMs, signal).then(() => {
									forget();
									resolve(true);
								});
							});
							record.endedAt = clock.now();
							if (!answered) {
								// Cut in flight: the service may have received it.
								record.cut = true;
								record.mayHaveReceived = true;
								throw canceled(this.getNode());
							}
							record.mayHaveReceived = ['reset', 'timeout', 'server-error'].includes(answer.kind);
							const response = respond(answer, clock.date());
							const retried =
								answer.kind === 'throttled' ||
								(answer.kind === 'unavailable' && plan.method === 'PUT');
							const asked = retryAfterOf(response.headers, clock.date());
							// A second or less may be the account's rate's to answer (admission.ts): not a pause.
							if (retried && asked !== undefined && asked > 1000) record.pauseMs = asked;
							return response;
						},
					},
				} as unknown as IExecuteSingleFunctions;
				sends.push(
					(async () => {
						request.options = await preSend.call(context, request.options);
						return await sendItem.call(context, request);
					})(),
				);
			}
			const settled = await Promise.allSettled(sends);
			settled.forEach((result) => result.status === 'fulfilled' && count(p, call, result.value));
			const failed = settled.find((result) => result.status === 'rejected');
			if (failed) throw (failed as PromiseRejectedResult).reason;
		};

		/** n8n's Retry On Fail around a node run: the same execute data on every try. */
		const withTries = async (
			call: number,
			executeData: object,
			input: () => IDataObject,
			itemCount: number,
		) => {
			for (let tryIndex = 0; tryIndex < plan.maxTries && !execution.signal.aborted; tryIndex++) {
				try {
					return await runNode(call, tryIndex, executeData, input(), itemCount);
				} catch {
					await clock.sleep(100);
				}
			}
		};

		if (!asTool) {
			const items = Array.from({ length: plan.items }, (_, i) => ({ json: { i } }));
			return await withTries(0, { node: nodeOfPlan }, () => ({ main: [items] }), plan.items);
		}
		// An agent's tool calls: the agent's execute data for all, each call its own arguments (the same values again).
		const agent = { node: { name: 'AI Agent' } };
		for (let call = 1; call <= plan.toolCalls; call++) {
			const toolArgs = { phone: `+1415555010${call % 2}` };
			await withTries(call, agent, () => ({ ai_tool: [[{ json: toolArgs }]] }), 1);
		}
	};
	await clock.runUntilIdle(Promise.all(plans.map(playPlan)));
	return { attempts, cancelledAt, log, outcomes };
}

describe.each([
	['n8n 1.x and 2.8 (a failing expression ends the loop)', false],
	['n8n 2.39.4 and later (under Continue On Fail the loop skips it)', true],
])('the request engine, model-based, %s', (_name, skips) => {
	const node = loadNode(skips);
	afterAll(() => node.clock.useClock(node.clock.realClock));

	it('keeps its invariants over random runs, tool calls, answers, stops, cancels, retries and failing items', async () => {
		let sentInAll = 0;
		let cutByCancel = 0;
		let cutByDeadline = 0;
		let pausedInAll = 0;
		await fc.assert(
			fc.asyncProperty(
				fc.array(planArb, { minLength: 1, maxLength: 3 }),
				fc.array(answerArb, { minLength: 1, maxLength: 40 }),
				setRateArb,
				async (plans, answers, setRate) => {
					// Each case on a clock of its own, with no account an earlier case (or its shrinking) left.
					forgetAccounts(node.admission.accountAdmissions);
					const clock = new FakeClock(node.clock.onAbort);
					node.clock.useClock(clock);
					const { attempts, cancelledAt, outcomes } = await simulate(
						node,
						skips,
						plans,
						answers,
						clock,
						setRate,
					);
					sentInAll += attempts.length;

					// A request in flight is cut by its run's cancel or at its Timeout, and only then.
					for (const attempt of attempts) {
						const plan = plans[attempt.plan];
						// The deadline is its start + Timeout as the clock adds them (the sum rounds as the engine's does).
						const deadline = attempt.startedAt + (plan.timeoutMs ?? Infinity);
						expect(attempt.endedAt).toBeLessThanOrEqual(deadline);
						if (!attempt.cut) continue;
						if (attempt.endedAt === deadline) cutByDeadline++;
						else {
							expect(attempt.endedAt).toBe(cancelledAt[attempt.plan]);
							cutByCancel++;
						}
					}

					// No request starts after its run's stop or cancel.
					expect(attempts.filter((attempt) => attempt.runEnded)).toEqual([]);
					// The account's requests keep the credential's rate at the service, wherever each arrived
					// between its start and its end, over every run, tool call and execution that follow
					// each other; a run's keep its node's own rate.
					const keeps = (list: Attempt[], rate: number) =>
						expect(mostArrivingIn(list, spanOf(rate).spanMs)).toBeLessThanOrEqual(
							spanOf(rate).count,
						);
					if (setRate !== undefined) keeps(attempts, setRate);
					const runs = new Map<string, Attempt[]>();
					for (const attempt of attempts) {
						const key = `${attempt.plan}:${attempt.call}:${attempt.tryIndex}`;
						runs.set(key, [...(runs.get(key) ?? []), attempt]);
					}
					for (const list of runs.values()) {
						const { ownRate } = plans[list[0].plan];
						if (ownRate !== undefined) keeps(list, ownRate);
					}
					// No attempt of the account starts during a Retry-After of more than a second the service
					// asked for: one longer than an item's Max Retry Wait sends that item away instead.
					for (const asked of attempts.filter((attempt) => attempt.pauseMs !== undefined)) {
						const from = asked.endedAt as number;
						const until = from + (asked.pauseMs as number);
						const during = attempts.filter(
							(other) => other.startedAt > from && other.startedAt < until,
						);
						expect({ asked, during }).toEqual({ asked, during: [] });
						pausedInAll++;
					}
					// The admission registry forgets the account once its runs ended and its window passed.
					expect(node.admission.accountAdmissions.size).toBe(0);
					// Each item gets at most one outcome per try of Retry On Fail.
					plans.forEach((plan, p) => {
						for (const outcome of outcomes[p].values())
							expect(outcome).toBeLessThanOrEqual(plan.maxTries);
					});
					// No POST is sent again once the service may have received it, whatever its body says now.
					for (const [index, attempt] of attempts.entries()) {
						if (!attempt.mayHaveReceived || plans[attempt.plan].method !== 'POST') continue;
						const again = attempts
							.slice(index + 1)
							.filter(
								(later) =>
									later.plan === attempt.plan &&
									later.call === attempt.call &&
									later.item === attempt.item,
							);
						expect(again).toEqual([]);
					}
					plans.forEach((plan, p) => {
						const sent = attempts.filter((attempt) => attempt.plan === p);
						// Each tool call sends, also a second call with the same arguments.
						if (plan.toolCalls > 0 && plan.cancelAtMs === undefined)
							expect(new Set(sent.map((attempt) => attempt.call)).size).toBe(plan.toolCalls);
						// A loop that threw sends nothing; one that skipped items sends the others.
						const indexes = Array.from({ length: plan.items }, (_, i) => i);
						if (plan.toolCalls > 0 || !indexes.some((i) => failsToPrepare(plan, i))) return;
						if (!(skips && plan.continueOnFail)) expect(sent).toEqual([]);
						else if (plan.cancelAtMs === undefined)
							expect(new Set(sent.map((attempt) => attempt.item))).toEqual(
								new Set(indexes.filter((i) => !failsToPrepare(plan, i))),
							);
					});
					// A later run on a quiet service is held by nothing but its rates.
					const startedAt = clock.now();
					const quiet: Plan = {
						...plans[0],
						startMs: 0,
						toolCalls: 0,
						failingItems: [],
						failLast: false,
						cancelAtMs: undefined,
						adaptive: true,
						items: 3,
						maxTries: 1,
					};
					const answered = [{ kind: 'ok' as const, latencyMs: 1 }];
					const later = await simulate(node, skips, [quiet], answered, clock, setRate);
					expect([...later.outcomes[0].values()]).toEqual([1, 1, 1]);
					const slowest = Math.min(setRate ?? Infinity, quiet.ownRate ?? Infinity);
					const spacing = slowest === Infinity ? 0 : 1000 / slowest;
					// The run's 3 starts, then the admission is forgotten once its tickets are back.
					const lingerMs = slowest === Infinity ? 0 : Math.max(spacing, 1000);
					expect(clock.now() - startedAt).toBeLessThan(50 + 2 * spacing + lingerMs);
					expect(node.admission.accountAdmissions.size).toBe(0);
				},
			),
			{ numRuns: 150, endOnFailure: true },
		);
		expect(sentInAll).toBeGreaterThan(500);
		// The runs did cut requests in flight, by a cancel and by a deadline.
		expect(cutByCancel).toBeGreaterThan(0);
		expect(cutByDeadline).toBeGreaterThan(0);
		// Retry-After pauses were waited out.
		expect(pausedInAll).toBeGreaterThan(0);
	}, 240_000);
});
