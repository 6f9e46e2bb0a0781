import type { INodePropertyRouting, PostReceiveAction } from 'n8n-workflow';
import { failOnHttpError } from './errors';
import { prepareRequest, type RequestContract } from './hooks';
import type { ENDPOINTS } from './spec';

/**
 * Routing of an operation: the endpoint, the checks before sending and the response handling.
 * `paginate` hands each item's request to sendRequest (the node's `pagination` request
 * operation), which bounds concurrency and retries.
 */
export function operationRouting(
	endpoint: (typeof ENDPOINTS)[keyof typeof ENDPOINTS],
	contract: RequestContract,
	postReceive: PostReceiveAction[] = [],
): INodePropertyRouting {
	return {
		request: {
			method: endpoint.method,
			url: endpoint.path,
			...(contract.body ? { headers: { 'Content-Type': 'application/json' } } : {}),
		},
		send: { preSend: [prepareRequest(contract)], paginate: true },
		output: { postReceive: [failOnHttpError, ...postReceive] },
	};
}

/** Routing of a field that becomes one property of the JSON body. */
export function sendInBody(property: string): INodePropertyRouting {
	return { send: { type: 'body', property } };
}

/** Routing of a field that becomes one query parameter. */
export function sendInQuery(property: string): INodePropertyRouting {
	return { send: { type: 'query', property } };
}
