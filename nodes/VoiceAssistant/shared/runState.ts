import type {
	IDataObject,
	IExecuteData,
	IExecuteSingleFunctions,
	NodeApiError,
	NodeOperationError,
} from 'n8n-workflow';
import { ConcurrencyLimiter } from './concurrency';
import { type RequestPolicy, readRequestPolicy } from './requestPolicy';
import { readApiTarget, type ApiTarget } from './transport';

/**
 * State shared by the items of one node run: the concurrency limiter, the credential, and the
 * first error that stops the run.
 *
 * n8n's declarative engine gives each item its own context, but all of them share the run's
 * `executeData` object, so it keys the state (and lets it be garbage-collected with the run).
 */
export class RunState {
	readonly limiter: ConcurrencyLimiter;

	/** Set when an item failed and the node does not continue on fail: nothing more is sent. */
	stopError: NodeApiError | NodeOperationError | undefined;

	/** Items whose input was invalid while the node continues on fail: answered without a request. */
	readonly invalidItems = new Map<number, NodeOperationError>();

	private target: Promise<ApiTarget> | undefined;

	constructor(readonly policy: RequestPolicy) {
		this.limiter = new ConcurrencyLimiter(policy.maxConcurrency);
	}

	/** Called when an item failed and the node does not continue on fail: items not yet sent will not be. */
	stop(error: NodeApiError | NodeOperationError): void {
		this.stopError ??= error;
	}

	/** The credential is read once per run: n8n would otherwise decrypt it for every item. */
	async apiTarget(context: IExecuteSingleFunctions): Promise<ApiTarget> {
		this.target ??= readApiTarget(context);
		return await this.target;
	}
}

const runs = new WeakMap<IExecuteData | IExecuteSingleFunctions, RunState>();

export function getRunState(context: IExecuteSingleFunctions): RunState {
	// Without executeData (n8n always passes it) each item would get a state of its own.
	const key = context.getExecuteData() ?? context;
	let state = runs.get(key);
	if (!state) {
		// Read once per run: a limit on requests in flight cannot differ between items.
		state = new RunState(readRequestPolicy(context.getNodeParameter('options', {}) as IDataObject));
		runs.set(key, state);
	}
	return state;
}
