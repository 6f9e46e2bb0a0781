import type {
	DeclarativeRestApiSettings,
	IDataObject,
	IExecutePaginationFunctions,
	IN8nHttpFullResponse,
	INodeExecutionData,
} from 'n8n-workflow';
import { NodeOperationError } from 'n8n-workflow';
import { clock, onAbort, wait } from '../clock';
import { CREDENTIAL_NAME } from '../credential';
import { readHttpFailure, type HttpFailure } from '../httpFailure';
import { invalidInputError } from '../spec/validation';
import { requestToTarget, type ApiTarget } from '../target';
import { dryRunOutput, isDryRun } from '../dryRun';
import { failureContext, notSentError, toUserError } from '../userErrors';
import { runOf, withCancelSignal, type LoopItem } from './n8nAdapter';
import { errorItem, outputItems, redactError } from './output';
import { decideRetry, parseRetryAfter } from './retry';
import type { Run } from './run';
import type { Outcome } from './triesMemory';

type Request = DeclarativeRestApiSettings.ResultOptions;

/** One item's send as the steps below see it. */
interface ItemSend {
	context: IExecutePaginationFunctions;
	item: LoopItem;
	run: Run;
	target: ApiTarget;
	request: Request;
	method: string;
}

/**
 * Sends one item's request: the `pagination` request operation of every operation's routing, the
 * one hook of n8n's declarative engine that wraps an item's whole request. In order: wait until
 * n8n's loop is over → an earlier try's outcome, if n8n retries the node → a slot (limit) → the
 * turn (pace) → attempt → classify → retry → output.
 */
export async function sendItem(
	this: IExecutePaginationFunctions,
	request: Request,
): Promise<INodeExecutionData[]> {
	const { run, item } = runOf(this, request.options);
	const { itemIndex } = item;
	const invalid = run.invalidItems.get(itemIndex);
	if (invalid) {
		run.finishItem(false);
		return [errorItem(item, invalid)];
	}
	const prepared = await run.whenPrepared();
	if (!prepared && run.abandoned) {
		// n8n's loop threw and reports its own error; under Continue On Fail say why nothing was sent.
		if (!item.failuresBecomeItems) return [];
		const why = new NodeOperationError(
			item.node,
			`Not sent: n8n could not prepare every item of this run (item ${run.loop.preparedCount} failed)`,
			{
				itemIndex,
				description:
					'The node sends nothing of a run whose items n8n could not all prepare. Fix the failing item and run it again.',
			},
		);
		return [errorItem(item, why)];
	}
	const target = await run.apiTarget(this);
	// Dry Run (shared/dryRun.ts): the request as it would be sent, or the item's problems; nothing is sent.
	if (prepared && isDryRun(this)) return dryRunOutput(run, item.itemIndex, request.options, target);
	const send: ItemSend = {
		context: this,
		item,
		run,
		target,
		request,
		method: String(request.options.method ?? 'GET').toUpperCase(),
	};
	const outcome = prepared ? await outcomeOf(send) : notSent(send);
	if ('error' in outcome) redactError(outcome.error, target.apiKey);
	run.finishItem('items' in outcome);
	if ('items' in outcome)
		return outputItems(outcome.items, itemIndex, request.options.qs?.id, target.apiKey);
	if (item.failuresBecomeItems) return [errorItem(item, outcome.error)];
	throw outcome.error;
}

/** An earlier try's outcome, or a slot (limit) → attempts; a failure without Continue On Fail stops the run. */
async function outcomeOf(send: ItemSend): Promise<Outcome> {
	const { run, item, target } = send;
	send.request.options.baseURL = target.root;
	const problem = target.problem ?? run.policy.problem;
	if (problem)
		return stopOn(send, { error: invalidInputError(item.node, [problem], item.itemIndex) });
	if (target.notAllowed)
		return stopOn(send, {
			error: new NodeOperationError(item.node, target.notAllowed, { itemIndex: item.itemIndex }),
		});
	const earlier = run.earlierTries?.recall(item.itemIndex);
	if (earlier) return stopOn(send, earlier);
	const sent = await run.limiter.use(async () => await attempts(send), run.signal);
	if (!sent) return notSent(send);
	run.earlierTries?.keep(item.itemIndex, send.method, sent.outcome, sent.failure?.kind);
	return sent.outcome;
}

/** attempt → classify → retry, until the item has its outcome; holds the item's slot throughout. */
async function attempts(send: ItemSend): Promise<{ outcome: Outcome; failure?: HttpFailure }> {
	const { run, item, method } = send;
	let waitedMs = 0;
	let unguidedRetries = 0;
	for (let attempt = 1; ; attempt++) {
		await run.waitForTurn();
		// Checked right before the request starts (nothing awaits in between): none after a stop or cancel.
		if (run.signal.aborted) return { outcome: notSent(send) };
		let failure: HttpFailure;
		const deadline = { passed: false };
		try {
			const items = await attemptRequest(send, deadline);
			run.answered(undefined);
			return { outcome: { items } };
		} catch (caught) {
			if (caught instanceof NodeOperationError) {
				run.answered(undefined); // from our response hooks: the service did answer
				return { outcome: stopOn(send, { error: caught }) };
			}
			failure = readHttpFailure(caught, deadline.passed);
		}
		run.answered(failure.kind);
		const retryAfterMs = parseRetryAfter(failure.retryAfter, clock.now());
		const decision = decideRetry(
			run.policy,
			method,
			failure.kind,
			unguidedRetries,
			waitedMs,
			retryAfterMs,
		);
		if (!decision.retry || run.cancelled) {
			const context = {
				...failureContext(send.request.options, attempt),
				askedMs: decision.retry ? undefined : decision.askedMs,
			};
			const error = toUserError(item.node, failure, context, item.itemIndex, send.target.apiKey);
			return { outcome: stopOn(send, { error }), failure };
		}
		if (!decision.guided) unguidedRetries++;
		// The item keeps its slot while it waits: the more the service pushes back, the fewer in flight.
		waitedMs += decision.delayMs;
		run.progress.retryWaitStarted();
		const waited = await wait(decision.delayMs, run.signal);
		run.progress.retryWaitEnded();
		if (!waited) return { outcome: notSent(send) };
	}
}

/**
 * One attempt: what n8n's makeRoutingRequest does (the authenticated request, then the
 * operation's postReceive), but with the credential the run already read, and with a deadline for
 * the whole attempt: Timeout alone bounds the wait for each byte, not a server trickling them.
 */
async function attemptRequest(
	{ context, item, run, target, request }: ItemSend,
	deadline: { passed: boolean },
): Promise<INodeExecutionData[]> {
	// The request aborts on the execution's cancel or at the deadline; one listener per cancel signal, however many attempts.
	const abort = new AbortController();
	const forget = item.cancelSignal
		? onAbort(item.cancelSignal, () => abort.abort())
		: () => undefined;
	const settle = run.deadlines.start(Number(request.options.timeout) || 300_000, () => {
		deadline.passed = true;
		abort.abort();
	});
	const options = requestToTarget(request.options, target);
	try {
		const response = (await context.helpers.httpRequestWithAuthentication.call(
			withCancelSignal(context, abort.signal),
			CREDENTIAL_NAME,
			options,
			{
				credentialsDecrypted: target.credential,
			},
		)) as IN8nHttpFullResponse;
		let items: INodeExecutionData[] = [{ json: response.body as IDataObject }];
		for (const { actions } of request.postReceive) {
			for (const action of actions) {
				// operationRouting only takes functions; a declarative action would need n8n's own runner.
				if (typeof action !== 'function')
					throw new NodeOperationError(
						item.node,
						`postReceive action "${action.type}" is not supported here`,
					);
				items = await action.call(context, items, response);
			}
		}
		return items;
	} finally {
		settle();
		forget();
	}
}

/** A failure that ends the item; without Continue On Fail it stops the run at once, before anything else may start. */
function stopOn({ run, item }: ItemSend, outcome: Outcome): Outcome {
	if ('error' in outcome && !item.failuresBecomeItems) run.stop(outcome.error, item.itemIndex);
	return outcome;
}

/** An item that is not sent (again): the execution was cancelled, or another item stopped the run. */
function notSent({ run, item }: ItemSend): Outcome {
	if (run.stopError && !run.cancelled)
		return { error: notSentError(item.node, item.itemIndex, run.stoppedBy, run.stopError) };
	const error = new NodeOperationError(item.node, 'The execution was cancelled', {
		itemIndex: item.itemIndex,
		description: 'This item was not sent (again) after the execution was cancelled.',
	});
	return { error };
}
