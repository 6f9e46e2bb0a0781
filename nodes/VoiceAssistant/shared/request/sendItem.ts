// The send step of every operation: n8n's `pagination` request operation, the one hook of its
// declarative engine that wraps an item's whole request. In order: wait until n8n's loop is over →
// an earlier try's result, if n8n retries the node → a slot (window) → the turn → attempt
// (attempt.ts) → classify (failureModel) → retry → output. Whatever the item meets, an exception
// of the node's own included, ends as its output or its error: an error item where failures
// become items, else the error n8n reports (never while n8n's loop may still be sleeping).
import type {
	DeclarativeRestApiSettings,
	IExecutePaginationFunctions,
	INodeExecutionData,
} from 'n8n-workflow';
import { clock, wait } from '../clock';
import {
	classifyFailure,
	methodOf,
	reachedService,
	ruleOf,
	type AttemptFailure,
	type SentSoFar,
} from '../failureModel';
import { retryAfterOf } from '../serviceCount';
import { invalidInputError } from '../spec/validation';
import { dryRunOutput, isDryRun } from '../dryRun';
import { failureContext, toUserError } from '../failureWords';
import { nodeError, type NodeError } from '../nodeError';
import {
	callerGaveUpError,
	cancelledError,
	notPreparedError,
	notSentAgain,
	notSentError,
	pausedError,
	unexpectedError,
	unusableCredentialError,
} from '../notSentErrors';
import { attemptRequest, type AttemptOf } from './attempt';
import { runOf } from './prepareRequest';
import { redactError } from '../redact';
import { errorItem, outputItems, thrownError, type ItemResult } from '../output';
import { decideRetry } from '../retry';

type Request = DeclarativeRestApiSettings.ResultOptions;

/** One item's send as the steps below see it: what its attempts need, the method and what was sent. */
interface ItemSend extends AttemptOf {
	method: string;
	/** Its attempts that left this machine, and how the last one ended. */
	sent: SentSoFar;
}

export async function sendItem(
	this: IExecutePaginationFunctions,
	request: Request,
): Promise<INodeExecutionData[]> {
	const { run, item } = runOf(request.options);
	const method = methodOf(request.options);
	const send: ItemSend = { context: this, item, run, request, method, sent: { times: 0 } };
	let failed: NodeError | undefined;
	try {
		const result = await resultOf(send);
		// Dry Run (shared/dryRun.ts) gave the item its output: the request it would send, or its problems.
		if (result && 'dryRun' in result) return result.dryRun;
		if (result && 'items' in result) {
			const output = outputItems(
				result.items,
				item.itemIndex,
				request.options.qs?.id,
				send.target?.apiKey,
			);
			run.finishItem(true);
			return output;
		}
		failed = result?.error;
	} catch (caught) {
		failed = unexpectedError(item.node, item.itemIndex, caught, send.sent);
		stopOn(send, { error: failed });
		// A request that may have left is remembered as the failure model says of a cut.
		if (send.sent.times > 0)
			run.earlierTries?.keepIf(ruleOf('cut', method).remember, item.itemIndex, { error: failed });
	}
	run.finishItem(false);
	// n8n's loop threw: it reports its own error. After a cancel n8n keeps no output, and its loop
	// may still sleep in a Batching pause (n8n-core 2.8), with nothing awaiting this item's
	// promise yet: a rejection now would be unhandled. The item ends without one.
	if (!failed || (run.cancelled && !item.failuresBecomeItems)) return [];
	const error = redactError(failed, send.target?.apiKey);
	if (item.failuresBecomeItems) return [errorItem(item, error)];
	throw thrownError(item, error);
}

/** The item's result: without a request (invalid, not prepared, remembered, stopped) or from its attempts. */
async function resultOf(
	send: ItemSend,
): Promise<ItemResult | { dryRun: INodeExecutionData[] } | undefined> {
	const { run, item } = send;
	const { itemIndex, node } = item;
	const invalid = run.invalidItems.get(itemIndex);
	if (invalid) return { error: invalid };
	const maySend = await run.maySend();
	if (!maySend && run.abandoned) {
		// When failures become items (On Error: Continue, a tool), say why nothing was sent.
		if (!item.failuresBecomeItems) return undefined;
		return { error: notPreparedError(node, itemIndex, run.loop.preparedCount) };
	}
	const target = (send.target = await run.apiTarget(send.context));
	if (maySend && isDryRun(send.context))
		return { dryRun: dryRunOutput(run, itemIndex, send.request.options, target) };
	if (!maySend) return notSent(send);
	send.request.options.baseURL = target.root;
	if (target.problem)
		return stopOn(send, { error: unusableCredentialError(node, itemIndex, target.problem) });
	const problem = run.policy.problem;
	if (problem) return stopOn(send, { error: invalidInputError(item, [problem]) });
	if (target.notAllowed)
		return stopOn(send, { error: nodeError(node, target.notAllowed, { itemIndex }) });
	const earlier = run.earlierTries?.recall(itemIndex);
	if (earlier) return stopOn(send, earlier);
	return (await run.window.use(async () => await attempts(send), run.signal)) ?? notSent(send);
}

/** attempt → classify → retry, until the item has its result; holds the item's slot throughout. */
async function attempts(send: ItemSend): Promise<ItemResult> {
	const { run, item, method, sent } = send;
	let waitedMs = 0;
	let unguided = 0;
	for (let attempt = 1; ; attempt++) {
		const turn = await run.waitForTurn(run.policy.maxRetryWaitMs - waitedMs);
		if (turn && 'pausedUntil' in turn) {
			const inMs = turn.pausedUntil - clock.now();
			const at = new Date(clock.date() + inMs);
			return stopOn(send, { error: pausedError(item.node, item.itemIndex, sent, inMs, at) });
		}
		// Checked right before the request starts (nothing awaits in between): none after a stop, a cancel or the caller's deadline.
		if (!turn || run.signal.aborted || run.callerGaveUp) {
			turn?.giveBack(false);
			return notSent(send);
		}
		const state: Parameters<typeof attemptRequest>[1] = { deadlinePassed: false };
		let ended: ItemResult | AttemptFailure | undefined;
		sent.times++;
		run.attemptStarted();
		const startedAt = clock.now();
		let durationMs = 0;
		try {
			ended = await attemptRequest(send, state);
		} catch (caught) {
			ended = classifyFailure(caught, state.deadlinePassed);
		} finally {
			durationMs = clock.now() - startedAt;
			// Its rate's tickets come back as its end says (rateTickets.ts): at once if it never left this machine.
			turn.giveBack(ended && 'end' in ended ? ended.end : true, durationMs);
		}
		if (!('end' in ended)) {
			run.attemptEnded('answered', durationMs, state.count);
			// An answer the operation's own check rejected is remembered only where the service may have acted.
			const end = 'items' in ended ? 'answered' : 'unusable';
			run.earlierTries?.keepIf(ruleOf(end, method).remember, item.itemIndex, ended);
			return 'error' in ended ? stopOn(send, ended) : ended;
		}
		const failure = { ...ended, durationMs };
		if (reachedService(failure.end)) sent.last = failure;
		else sent.times--;
		run.attemptEnded(failure.end, durationMs, state.count);
		if (run.cancelled && !reachedService(failure.end)) return notSent(send);
		const rule = ruleOf(failure.end, method);
		const retryAfterMs = retryAfterOf(failure.headers, clock.date());
		const callerLeftMs = run.callerDeadline - clock.now();
		const decision = decideRetry(run.policy, rule, unguided, waitedMs, retryAfterMs, callerLeftMs);
		// A wait the service asked for holds every request of the account (Retry-After; admission.ts bounds it).
		if (retryAfterMs !== undefined && rule.retry === 'as-asked') run.pauseAccount(retryAfterMs);
		if (!decision.retry || run.cancelled) {
			const caller = { waitsMs: run.callerWaitsMs, cut: state.deadlinePassed && callerLeftMs <= 0 };
			const context = failureContext(send.request.options, attempt, notSentAgain(decision, caller));
			const error = toUserError(item.node, failure, context, item.itemIndex, send.target?.apiKey);
			const result = stopOn(send, { error });
			run.earlierTries?.keepIf(rule.remember, item.itemIndex, result);
			return result;
		}
		if (!decision.guided) unguided++;
		// The item keeps its slot while it waits: the more the service pushes back, the fewer in flight.
		waitedMs += decision.delayMs;
		run.progress.retryWaitStarted();
		const waited = await wait(decision.delayMs, run.signal);
		run.progress.retryWaitEnded();
		if (!waited) return notSent(send);
	}
}

/** A failure that ends the item; without On Error: Continue it stops the run at once, before anything else may start. */
function stopOn({ run, item }: ItemSend, result: ItemResult): ItemResult {
	if ('error' in result && !item.failuresBecomeItems) run.stop(result.error, item.itemIndex);
	return result;
}

/** An item that is not sent (again): the execution was cancelled, or another item stopped the run. */
function notSent({ run, item, sent }: ItemSend): ItemResult {
	const { node, itemIndex } = item;
	if (run.callerGaveUp)
		return { error: callerGaveUpError(node, itemIndex, sent, run.callerWaitsMs) };
	if (run.stopError && run.stoppedByItem !== undefined && !run.cancelled) {
		return { error: notSentError(node, itemIndex, sent, run.stoppedByItem, run.stopError) };
	}
	return { error: cancelledError(node, itemIndex, sent) };
}
