// The Retry On Fail memory: what earlier tries of n8n's Retry On Fail got for each input item of
// one node run, so that a later try never sends again what the failure model says to remember.
import type { ItemResult } from '../output';

/**
 * A remembered item returns the same result or fails with the same error. Keyed by the input item,
 * not the request: an expression with another value on the next try (`$now`) is not another request.
 */
export class TriesMemory {
	private readonly results = new Map<number, ItemResult>();

	recall(itemIndex: number): ItemResult | undefined {
		return this.results.get(itemIndex);
	}

	/** Keeps the item's result if `remember`: the failure model's rule for how its last attempt ended. */
	keepIf(remember: boolean, itemIndex: number, result: ItemResult): void {
		if (remember) this.results.set(itemIndex, result);
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
