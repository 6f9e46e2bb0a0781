import { RoutingNode } from 'n8n-core';

export interface ItemError {
	message: string;
	description?: string;
	/** The item the error said it belonged to when the item's request settled (n8n may rewrite it later). */
	itemIndex?: number;
}

/**
 * Records the error each item's request ended with, as n8n's routing node receives it before it
 * picks the one error it reports for the run. Returns the map, cleared before each test.
 */
export function recordItemErrors(): Map<number, ItemError> {
	const errors = new Map<number, ItemError>();
	const prototype = RoutingNode.prototype as unknown as {
		makeRequest: (...args: unknown[]) => Promise<unknown>;
	};
	const makeRequest = prototype.makeRequest;
	beforeEach(() => errors.clear());
	beforeAll(() => {
		jest.spyOn(prototype, 'makeRequest').mockImplementation(async function (
			this: unknown,
			...args: unknown[]
		) {
			try {
				return await makeRequest.apply(this, args);
			} catch (caught) {
				const error = caught as Error & { description?: string; context?: { itemIndex?: number } };
				errors.set(args[2] as number, {
					message: error.message,
					description: error.description,
					itemIndex: error.context?.itemIndex,
				});
				throw caught;
			}
		});
	});
	afterAll(() => jest.restoreAllMocks());
	return errors;
}
