import type {
	DeclarativeRestApiSettings,
	IDataObject,
	IExecutePaginationFunctions,
	IHttpRequestOptions,
	IN8nHttpFullResponse,
	INodeExecutionData,
} from 'n8n-workflow';
import { NodeOperationError } from 'n8n-workflow';
import { CREDENTIAL_NAME } from '../credential';
import { invalidInputError } from '../spec/validation';
import type { ApiTarget } from '../target';
import { decideRetry, parseRetryAfter, readHttpFailure, type HttpFailure } from './failure';
import { clock, wait } from './limiter';
import { errorItem, failureBecomesItem, outputItems, redactError } from './output';
import { runOf, TriesMemory, type NodeError, type Outcome, type Run } from './run';
import { failureContext, notSentError, toUserError } from '../userErrors';

type Request = DeclarativeRestApiSettings.ResultOptions;

/**
 * Sends one item's request: the `pagination` request operation of every operation's routing, the
 * one hook of n8n's declarative engine that wraps an item's whole request. In order: wait until
 * the run is prepared → an earlier try's outcome, if n8n retries the node → a slot (limit) → the
 * turn (pace) → attempt → classify → retry → output.
 */
export async function sendItem(this: IExecutePaginationFunctions, request: Request): Promise<INodeExecutionData[]> {
	const run = runOf(this, request.options);
	const itemIndex = this.getItemIndex();
	const invalid = run.invalidItems.get(itemIndex);
	if (invalid) {
		run.finishItem(false);
		return [errorItem(this, invalid, itemIndex)];
	}
	const prepared = await run.whenPrepared();
	if (!prepared && run.abandoned) {
		// n8n's loop threw and reports its own error; under Continue On Fail say why nothing was sent.
		if (!failureBecomesItem(this)) return [];
		const why = new NodeOperationError(this.getNode(), `Not sent: n8n could not prepare every item of this run (item ${run.preparedCount} failed)`, {
			itemIndex,
			description: 'The node sends nothing of a run whose items n8n could not all prepare. Fix the failing item and run it again.',
		});
		return [errorItem(this, why, itemIndex)];
	}
	const target = await run.apiTarget(this);
	const outcome = prepared ? await outcomeOf(this, run, target, request) : notSent(this, run);
	if ('error' in outcome) redactError(outcome.error, target.apiKey);
	run.finishItem('items' in outcome);
	if ('items' in outcome) return outputItems(outcome.items, itemIndex, request.options.qs?.id, target.apiKey);
	if (failureBecomesItem(this)) return [errorItem(this, outcome.error, itemIndex)];
	throw outcome.error;
}

async function outcomeOf(context: IExecutePaginationFunctions, run: Run, target: ApiTarget, request: Request): Promise<Outcome> {
	const itemIndex = context.getItemIndex();
	request.options.baseURL = target.root;
	const continues = failureBecomesItem(context);
	let deadline: AbortSignal | undefined;
	const problem = target.problem ?? run.policy.problem;
	if (problem) return stopOn(run, itemIndex, continues, { error: invalidInputError(context.getNode(), [problem], itemIndex) });
	if (target.notAllowed) return stopOn(run, itemIndex, continues, { error: new NodeOperationError(context.getNode(), target.notAllowed, { itemIndex }) });
	return await sendOne({
		run,
		itemIndex,
		method: methodOf(request),
		fingerprint: run.earlierTries && TriesMemory.fingerprint(request.options),
		continues,
		attempt: async () => {
			deadline = AbortSignal.timeout(Number(request.options.timeout) || 300_000);
			return await attemptRequest(context, target, request, deadline);
		},
		timedOut: () => deadline?.aborted === true && context.getExecutionCancelSignal?.()?.aborted !== true,
		failed: (failure, attempts, askedMs) =>
			toUserError(context.getNode(), failure, { ...failureContext(request.options, attempts), askedMs }, itemIndex, target.apiKey),
		notSent: () => notSent(context, run),
	});
}

/**
 * One item's send as the engine sees it (n8n's context stays in sendItem): `fingerprint` when
 * outcomes are kept across Retry On Fail tries; `continues` when failures become items;
 * `timedOut`, whether the last attempt's own deadline passed; `failed` and `notSent` build errors.
 */
export interface ItemSend {
	run: Run;
	itemIndex: number;
	method: string;
	fingerprint?: string;
	continues: boolean;
	attempt: () => Promise<INodeExecutionData[]>;
	timedOut?: () => boolean;
	failed: (failure: HttpFailure, attempts: number, askedMs?: number) => NodeError;
	notSent: () => Outcome;
}

/** An earlier try's outcome → a slot (limit) → attempts; a failure without Continue On Fail stops the run. */
export async function sendOne(item: ItemSend): Promise<Outcome> {
	const { run, itemIndex, fingerprint } = item;
	const earlier = fingerprint ? run.earlierTries?.recall(itemIndex, fingerprint) : undefined;
	if (earlier) return stopOn(run, itemIndex, item.continues, earlier);
	const sent = await run.limiter.use(async () => await attempts(item), run.signal);
	if (!sent) return item.notSent();
	if (fingerprint) run.earlierTries?.keep(itemIndex, fingerprint, sent.outcome, sent.failure && { method: item.method, kind: sent.failure.kind });
	return sent.outcome;
}

/** attempt → classify → retry, until the item has its outcome; holds the item's slot throughout. */
async function attempts(item: ItemSend): Promise<{ outcome: Outcome; failure?: HttpFailure }> {
	const { run, method } = item;
	let waitedMs = 0;
	let unguidedRetries = 0;
	for (let attempt = 1; ; attempt++) {
		if (!(await run.mayStartAttempt())) return { outcome: item.notSent() };
		let failure: HttpFailure;
		try {
			const items = await item.attempt();
			run.answered(undefined);
			return { outcome: { items } };
		} catch (caught) {
			if (caught instanceof NodeOperationError) {
				run.answered(undefined); // from our response hooks: the service did answer
				return { outcome: stopOn(run, item.itemIndex, item.continues, { error: caught }) };
			}
			failure = readHttpFailure(caught, item.timedOut?.());
		}
		run.answered(failure.kind);
		const retryAfterMs = parseRetryAfter(failure.retryAfter, clock.now());
		const decision = decideRetry(run.policy, method, failure.kind, unguidedRetries, waitedMs, retryAfterMs);
		if (!decision.retry || run.cancelled) {
			const error = item.failed(failure, attempt, decision.retry ? undefined : decision.askedMs);
			return { outcome: stopOn(run, item.itemIndex, item.continues, { error }), failure };
		}
		if (!decision.guided) unguidedRetries++;
		// The item keeps its slot while it waits: the more the service pushes back, the fewer in flight.
		waitedMs += decision.delayMs;
		run.progress.retryWaitStarted();
		const waited = await wait(decision.delayMs, run.signal);
		run.progress.retryWaitEnded();
		if (!waited) return { outcome: item.notSent() };
	}
}

/**
 * One attempt: what n8n's makeRoutingRequest does (the authenticated request, then the
 * operation's postReceive), but with the credential the run already read, and with a deadline for
 * the whole attempt: Timeout alone bounds the wait for each byte, not a server trickling them.
 */
async function attemptRequest(
	context: IExecutePaginationFunctions,
	{ credential }: ApiTarget,
	request: Request,
	deadline: AbortSignal,
): Promise<INodeExecutionData[]> {
	const execution = context.getExecutionCancelSignal?.();
	const signal = execution ? AbortSignal.any([execution, deadline]) : deadline;
	// n8n's helper sets the request's abort signal from this method of the context.
	const attemptContext = Object.create(context, { getExecutionCancelSignal: { value: () => signal } }) as IExecutePaginationFunctions;
	// A fresh copy per attempt: n8n's authentication adds the key header to the options it gets.
	const options = { ...request.options, headers: { ...request.options.headers }, returnFullResponse: true } as IHttpRequestOptions;
	const response = (await context.helpers.httpRequestWithAuthentication.call(attemptContext, CREDENTIAL_NAME, options, {
		credentialsDecrypted: credential,
	})) as IN8nHttpFullResponse;
	let items: INodeExecutionData[] = [{ json: response.body as IDataObject }];
	for (const { actions } of request.postReceive) {
		for (const action of actions) {
			// operationRouting only takes functions; a declarative action would need n8n's own runner.
			if (typeof action !== 'function') throw new NodeOperationError(context.getNode(), `postReceive action "${action.type}" is not supported here`);
			items = await action.call(context, items, response);
		}
	}
	return items;
}

/** A failure that ends the item; without Continue On Fail it stops the run at once, before anything else may start. */
function stopOn(run: Run, itemIndex: number, continues: boolean, outcome: Outcome): Outcome {
	if ('error' in outcome && !continues) run.stop(outcome.error, itemIndex);
	return outcome;
}

/** An item that is not sent (again): the execution was cancelled, or another item stopped the run. */
function notSent(context: IExecutePaginationFunctions, run: Run): Outcome {
	const itemIndex = context.getItemIndex();
	if (run.stopError && !run.cancelled) return { error: notSentError(context.getNode(), itemIndex, run.stoppedBy, run.stopError) };
	const error = new NodeOperationError(context.getNode(), 'The execution was cancelled', {
		itemIndex,
		description: 'This item was not sent (again) after the execution was cancelled.',
	});
	return { error };
}

function methodOf(request: Request): string {
	return String(request.options.method ?? 'GET').toUpperCase();
}
