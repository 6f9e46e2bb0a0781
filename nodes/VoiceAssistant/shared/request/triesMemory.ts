import type { INodeExecutionData, NodeApiError, NodeOperationError } from 'n8n-workflow';
import { mayHaveReceived, type FailureKind } from '../httpFailure';

export type NodeError = NodeApiError | NodeOperationError;
export type Outcome = { items: INodeExecutionData[] } | { error: NodeError };

/**
 * What earlier tries of n8n's Retry On Fail got, per input item of one node run: an item answered
 * with success, or one the service may have received (see mayHaveReceived), is not sent again by
 * a later try; it returns the same result or fails with the same error. Keyed by what n8n
 * retries (the input item), not by the request: an expression that gives another value on the
 * next try (`$now`, a generated id) does not make it another request.
 */
export class TriesMemory {
	private readonly outcomes = new Map<number, Outcome>();

	recall(itemIndex: number): Outcome | undefined {
		return this.outcomes.get(itemIndex);
	}

	keep(
		itemIndex: number,
		method: string,
		outcome: Outcome,
		failure: FailureKind | undefined,
	): void {
		if ('items' in outcome || (failure && mayHaveReceived(method, failure)))
			this.outcomes.set(itemIndex, outcome);
	}
}

/** Per node run (see n8nAdapter's nodeRunOf): freed with it. */
const memories = new WeakMap<object, TriesMemory>();

export function triesOf(nodeRun: object): TriesMemory {
	let memory = memories.get(nodeRun);
	if (!memory) {
		memory = new TriesMemory();
		memories.set(nodeRun, memory);
	}
	return memory;
}
