import type {
	DeclarativeRestApiSettings,
	IDataObject,
	IExecutePaginationFunctions,
	IHttpRequestOptions,
	IN8nHttpFullResponse,
	INodeExecutionData,
} from 'n8n-workflow';
import { NodeApiError, NodeOperationError } from 'n8n-workflow';
import { waitUnlessCancelled } from './cancellation';
import { CREDENTIAL_NAME } from './credential';
import { notSentError, originOf, readHttpFailure, toUserError, type FailureContext } from './errors';
import { errorItem, failureBecomesItem } from './failures';
import { outputItems } from './output';
import { decideRetry, parseRetryAfter } from './retry';
import { runOf, type RunState } from './runState';
import type { ApiTarget } from './transport';
import { invalidInputError } from './validation';

type Outcome = { items: INodeExecutionData[] } | { error: NodeApiError | NodeOperationError };

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

/**
 * One attempt: what n8n's makeRoutingRequest does (authenticated request, then the operation's
 * postReceive hooks), but with the credential the run already read. n8n would otherwise fetch
 * and decrypt it from its database for every item, the largest per-item cost of a bulk run.
 */
async function send(
	context: IExecutePaginationFunctions,
	{ credential }: ApiTarget,
	requestData: DeclarativeRestApiSettings.ResultOptions,
): Promise<INodeExecutionData[]> {
	// A fresh copy per attempt: n8n's authentication adds the key header to the options it gets.
	const options = {
		...requestData.options,
		headers: { ...requestData.options.headers },
		returnFullResponse: true,
	} as IHttpRequestOptions;
	const response = (await context.helpers.httpRequestWithAuthentication.call(context, CREDENTIAL_NAME, options, {
		credentialsDecrypted: credential,
	})) as IN8nHttpFullResponse;
	let items: INodeExecutionData[] = [{ json: response.body as IDataObject }];
	for (const { actions } of requestData.postReceive) {
		for (const action of actions) {
			// Every postReceive of this node is a function (declarative actions would need n8n's runner).
			if (typeof action === 'function') items = await action.call(context, items, response);
		}
	}
	return items;
}

/** The outcome of an item whose execution was cancelled before it was sent (again). */
function cancelled(context: IExecutePaginationFunctions): Outcome {
	const error = new NodeOperationError(context.getNode(), 'The execution was cancelled', {
		itemIndex: context.getItemIndex(),
		description: 'This item was not sent (again) after the execution was cancelled.',
	});
	return { error };
}

/** An item that is not sent because the run stopped: its own error, naming the item that failed. */
function notSent(context: IExecutePaginationFunctions, state: RunState): Outcome {
	const failure = state.stopError as NodeApiError | NodeOperationError;
	return { error: notSentError(context.getNode(), context.getItemIndex(), state.stoppedBy, failure) };
}

async function sendWithRetries(
	context: IExecutePaginationFunctions,
	state: RunState,
	target: ApiTarget,
	requestData: DeclarativeRestApiSettings.ResultOptions,
): Promise<Outcome> {
	const method = String(requestData.options.method ?? 'GET').toUpperCase();
	let waitedMs = 0;
	for (let attempt = 0; ; attempt++) {
		if (state.stopError) return notSent(context, state);
		if (state.signal?.aborted) return cancelled(context);
		try {
			return { items: await send(context, target, requestData) };
		} catch (caught) {
			if (caught instanceof NodeOperationError) return { error: caught }; // from our response hooks
			const failure = readHttpFailure(caught);
			const retryAfterMs = parseRetryAfter(failure.retryAfter, Date.now());
			const decision = decideRetry(state.policy, method, failure.kind, attempt, waitedMs, retryAfterMs);
			if (!decision.retry || state.signal?.aborted) {
				const where = failureContext(requestData, attempt + 1);
				return { error: toUserError(context.getNode(), failure, where, context.getItemIndex(), target.apiKey) };
			}
			// The item keeps its slot while it waits: the more the service pushes back, the fewer
			// requests are in flight, and when every slot waits nothing new is sent.
			waitedMs += decision.delayMs;
			if (!(await waitUnlessCancelled(decision.delayMs, state.signal))) return cancelled(context);
		}
	}
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

/**
 * Sends one item's request. Plugged into n8n's declarative engine as the `pagination`
 * request operation, the one hook that wraps the whole request of an item: here the run's
 * concurrency bound, retries and error mapping apply while the HTTP mapping itself stays in
 * the properties' routing.
 */
export async function sendRequest(
	this: IExecutePaginationFunctions,
	requestData: DeclarativeRestApiSettings.ResultOptions,
): Promise<INodeExecutionData[]> {
	const state = runOf(this, requestData.options);
	const itemIndex = this.getItemIndex();
	const id = requestData.options.qs?.id;
	const invalid = state.invalidItems.get(itemIndex);
	if (invalid) return [errorItem(this, invalid, itemIndex)];

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
	if ('items' in outcome) return outputItems(outcome.items, itemIndex, id, target.apiKey);
	if (failureBecomesItem(this)) return [errorItem(this, outcome.error, itemIndex)];
	state.stop(outcome.error, itemIndex);
	throw outcome.error;
}
