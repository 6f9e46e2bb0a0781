import type { DeclarativeRestApiSettings, IExecutePaginationFunctions, INodeExecutionData } from 'n8n-workflow';
import { NodeApiError, NodeOperationError } from 'n8n-workflow';
import { attemptRequest } from './attempt';
import { waitUnlessCancelled } from './cancellation';
import { readHttpFailure } from './httpFailure';
import { errorItem, failureBecomesItem, outputItems } from './output';
import { decideRetry, parseRetryAfter } from './retry';
import { runOf, type RunState } from './runState';
import { originOf, type ApiTarget } from './target';
import { notSentError, toUserError, type FailureContext } from './userErrors';
import { invalidInputError } from './validation';

type Outcome = { items: INodeExecutionData[] } | { error: NodeApiError | NodeOperationError };

/**
 * Sends one item's request: the `pagination` request operation of every operation's routing,
 * the one hook of n8n's declarative engine that wraps the whole request of an item. Here the
 * run's concurrency bound, retries and error mapping apply, while the HTTP mapping itself stays
 * in the properties' routing and preSend.
 */
export async function sendItem(
	this: IExecutePaginationFunctions,
	requestData: DeclarativeRestApiSettings.ResultOptions,
): Promise<INodeExecutionData[]> {
	const state = runOf(this, requestData.options);
	const itemIndex = this.getItemIndex();
	const id = requestData.options.qs?.id;
	const invalid = state.invalidItems.get(itemIndex);
	if (invalid) {
		state.itemDone(false);
		return [errorItem(this, invalid, itemIndex)];
	}

	const target = await state.apiTarget(this);
	requestData.options.baseURL = target.root;
	const problem = target.problem ?? state.policy.problem;
	let outcome: Outcome;
	if (state.stopError) {
		outcome = notSent(this, state);
	} else if (problem) {
		outcome = { error: invalidInputError(this.getNode(), [problem], itemIndex) };
	} else if (target.notAllowed) {
		outcome = { error: new NodeOperationError(this.getNode(), target.notAllowed, { itemIndex }) };
	} else {
		outcome = await sendInSlot(this, state, target, requestData);
	}
	state.itemDone('items' in outcome);
	if ('items' in outcome) return outputItems(outcome.items, itemIndex, id, target.apiKey);
	if (failureBecomesItem(this)) return [errorItem(this, outcome.error, itemIndex)];
	state.stop(outcome.error, itemIndex);
	throw outcome.error;
}

/** Sends within the run's concurrency bound; a cancelled execution sends nothing more. */
async function sendInSlot(
	context: IExecutePaginationFunctions,
	state: RunState,
	target: ApiTarget,
	requestData: DeclarativeRestApiSettings.ResultOptions,
): Promise<Outcome> {
	const attempts = async () => {
		const outcome = await sendWithRetries(context, state, target, requestData);
		// Recorded while the slot is still held: the next item in the queue must see it.
		if ('error' in outcome && !failureBecomesItem(context)) state.stop(outcome.error, context.getItemIndex());
		return outcome;
	};
	return await state.limiter.use(attempts, state.signal, () => cancelled(context));
}

/** attempt → classify the failure → retry or give up, until the item has its outcome. */
async function sendWithRetries(
	context: IExecutePaginationFunctions,
	state: RunState,
	target: ApiTarget,
	requestData: DeclarativeRestApiSettings.ResultOptions,
): Promise<Outcome> {
	const method = String(requestData.options.method ?? 'GET').toUpperCase();
	let waitedMs = 0;
	let unguidedRetries = 0;
	for (let attempt = 1; ; attempt++) {
		if (state.stopError) return notSent(context, state);
		await state.waitForTurn();
		if (state.signal?.aborted) return cancelled(context);
		try {
			const items = await attemptRequest(context, target, requestData);
			state.attemptEnded(undefined);
			return { items };
		} catch (caught) {
			if (caught instanceof NodeOperationError) {
				state.attemptEnded(undefined); // from our response hooks: the service did answer
				return { error: caught };
			}
			const failure = readHttpFailure(caught);
			state.attemptEnded(failure.kind);
			const retryAfterMs = parseRetryAfter(failure.retryAfter, Date.now());
			const decision = decideRetry(state.policy, method, failure.kind, unguidedRetries, waitedMs, retryAfterMs);
			if (!decision.retry || state.signal?.aborted) {
				const where = failureContext(requestData, attempt);
				return { error: toUserError(context.getNode(), failure, where, context.getItemIndex(), target.apiKey) };
			}
			if (!decision.guided) unguidedRetries++;
			// The item keeps its slot while it waits: the more the service pushes back, the fewer
			// requests are in flight, and when every slot waits nothing new is sent.
			waitedMs += decision.delayMs;
			state.progress.retryWaitStarted();
			const waited = await waitUnlessCancelled(decision.delayMs, state.signal);
			state.progress.retryWaitEnded();
			if (!waited) return cancelled(context);
		}
	}
}

/** An item that is not sent because the run stopped: its own error, naming the item that failed. */
function notSent(context: IExecutePaginationFunctions, state: RunState): Outcome {
	const failure = state.stopError as NodeApiError | NodeOperationError;
	return { error: notSentError(context.getNode(), context.getItemIndex(), state.stoppedBy, failure) };
}

/** The outcome of an item whose execution was cancelled before it was sent (again). */
function cancelled(context: IExecutePaginationFunctions): Outcome {
	const error = new NodeOperationError(context.getNode(), 'The execution was cancelled', {
		itemIndex: context.getItemIndex(),
		description: 'This item was not sent (again) after the execution was cancelled.',
	});
	return { error };
}

/** Where and how a failed request went, for its message. */
function failureContext(requestData: DeclarativeRestApiSettings.ResultOptions, attempts: number): FailureContext {
	const { options } = requestData;
	const id = options.qs?.id;
	return {
		method: String(options.method ?? 'GET').toUpperCase(),
		path: String(options.url ?? ''),
		origin: originOf(options.baseURL),
		id: id === undefined ? undefined : String(id),
		attempts,
		timeoutMs: options.timeout,
	};
}
