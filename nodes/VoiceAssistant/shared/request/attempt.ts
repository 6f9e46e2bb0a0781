// One attempt of an item's request: the authenticated request with its own deadline, then the
// operation's postReceive, as n8n's makeRoutingRequest would make it.
import type {
	DeclarativeRestApiSettings,
	IDataObject,
	IExecutePaginationFunctions,
	IN8nHttpFullResponse,
	INodeExecutionData,
} from 'n8n-workflow';
import { onAbort } from '../clock';
import { CREDENTIAL_NAME } from '../credential';
import { nodeError } from '../nodeError';
import { requestToTarget, type ApiTarget } from '../target';
import { withCancelSignal, type LoopItem } from './n8nAdapter';
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

/** What the attempt's caller learns besides its result: whether the deadline passed, whether an answer came. */
export interface AttemptState {
	deadlinePassed: boolean;
	answered: boolean;
}

/**
 * One attempt: what n8n's makeRoutingRequest does (the authenticated request, then the
 * operation's postReceive), but with the credential the run already read, and with a deadline for
 * the whole attempt: Timeout alone bounds the wait for each byte, not a server trickling them.
 * Throws what the failure model classifies, or an error of the operation's own postReceive once
 * `state.answered`.
 */
export async function attemptRequest(
	{ context, item, run, target, request }: AttemptOf,
	state: AttemptState,
): Promise<INodeExecutionData[]> {
	// The request aborts on the execution's cancel or at the deadline; one listener per cancel signal, however many attempts.
	const abort = new AbortController();
	const forget = item.cancelSignal
		? onAbort(item.cancelSignal, () => abort.abort())
		: () => undefined;
	const settle = run.deadlines.start(Number(request.options.timeout) || 300_000, () => {
		state.deadlinePassed = true;
		abort.abort();
	});
	// A fresh copy per attempt (n8n's authentication adds the key header to the options it gets), as Dry Run shows it.
	const options = requestToTarget(request.options, target as ApiTarget);
	try {
		const response = (await context.helpers.httpRequestWithAuthentication.call(
			withCancelSignal(context, abort.signal),
			CREDENTIAL_NAME,
			options,
			{ credentialsDecrypted: target?.credential },
		)) as IN8nHttpFullResponse;
		state.answered = true;
		let items: INodeExecutionData[] = [{ json: response.body as IDataObject }];
		// operationRouting only takes functions: a declarative action would need n8n's own runner.
		for (const { actions } of request.postReceive) {
			for (const action of actions) {
				if (typeof action !== 'function')
					throw nodeError(item.node, `postReceive "${action.type}" is not supported`);
				items = await action.call(context, items, response);
			}
		}
		return items;
	} finally {
		settle();
		forget();
	}
}
