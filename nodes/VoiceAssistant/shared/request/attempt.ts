// One attempt of an item's request, as n8n's makeRoutingRequest makes it: the authenticated
// request with its own deadline, the failure model's check of the answer, the operation's postReceive.
import type {
	DeclarativeRestApiSettings,
	IDataObject,
	IExecutePaginationFunctions,
	IExecuteSingleFunctions,
	IN8nHttpFullResponse,
	INodeExecutionData,
} from 'n8n-workflow';
import { clock, onAbort } from '../clock';
import { CREDENTIAL_NAME } from '../credential';
import { endOfAnswer, ServiceAnswerError } from '../failureModel';
import { statedCountOf, type StatedCount } from '../serviceCount';
import type { NodeError } from '../nodeError';
import { requestToTarget, type ApiTarget } from '../target';
import { withCancelSignal, type LoopItem } from './n8nAdapter';
import type { ItemResult } from '../output';
import type { Run } from './run';

/** What an attempt needs of its item's send. */
export interface AttemptOf {
	context: IExecutePaginationFunctions;
	item: LoopItem;
	run: Run;
	request: DeclarativeRestApiSettings.ResultOptions;
	/** Read once the run may send. */
	target?: ApiTarget;
}

/** An operation's postReceive step: a function (operationRouting takes no other), throwing a NodeError. */
export type PostReceiveStep = (
	this: IExecuteSingleFunctions,
	items: INodeExecutionData[],
	response: IN8nHttpFullResponse,
) => Promise<INodeExecutionData[]>;

/**
 * One attempt, with the credential the run already read and a deadline for the whole attempt
 * (Timeout alone bounds the wait for each byte, not a server trickling them). Sent with
 * ignoreHttpStatusErrors, every answer arrives with its headers (Retry-After, the service's count,
 * kept in `state`); one the failure
 * model does not call answered is thrown as a ServiceAnswerError. A failure without an answer
 * throws n8n's own error (`state.deadlinePassed` when the deadline aborted it). An error of the
 * operation's own postReceive (Get Many's list check) is the item's result.
 */
export async function attemptRequest(
	{ context, item, run, target, request }: AttemptOf,
	state: { deadlinePassed: boolean; count?: StatedCount },
): Promise<ItemResult> {
	// The request aborts on the execution's cancel or at the deadline; one listener per cancel signal, however many attempts.
	const abort = new AbortController();
	const forget = item.cancelSignal
		? onAbort(item.cancelSignal, () => abort.abort())
		: () => undefined;
	// The attempt's deadline: its Timeout, or the caller's deadline if that comes first.
	const timeoutMs = Number(request.options.timeout) || 300_000;
	const settle = run.deadlines.start(Math.min(timeoutMs, run.callerDeadline - clock.now()), () => {
		state.deadlinePassed = true;
		abort.abort();
	});
	// A fresh copy per attempt (n8n's authentication adds the key header to the options it gets), as Dry Run shows it.
	const options = requestToTarget(request.options, target as ApiTarget);
	let response: IN8nHttpFullResponse;
	try {
		response = (await context.helpers.httpRequestWithAuthentication.call(
			withCancelSignal(context, abort.signal),
			CREDENTIAL_NAME,
			options,
			{ credentialsDecrypted: target?.credential },
		)) as IN8nHttpFullResponse;
	} finally {
		settle();
		forget();
	}
	const { statusCode, headers, body } = response;
	state.count = statedCountOf(headers, clock.date());
	const end = endOfAnswer(statusCode, headers, body);
	if (end !== 'answered') throw new ServiceAnswerError(item.node, end, statusCode, headers, body);
	let items: INodeExecutionData[] = [{ json: body as IDataObject }];
	try {
		for (const { actions } of request.postReceive)
			for (const action of actions as PostReceiveStep[])
				items = await action.call(context, items, response);
	} catch (caught) {
		return { error: caught as NodeError };
	}
	return { items };
}
