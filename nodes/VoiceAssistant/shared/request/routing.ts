// An operation's routing as n8n's declarative engine reads it: the preSend and the send step of the
// node's engine, the operation's own postReceive, and how a plain field is sent (body or query).
import type { INodePropertyRouting } from 'n8n-workflow';
import type { RequestContract } from '../spec/contract';
import type { Endpoint } from '../spec/endpoints';
import type { PostReceiveStep } from './attempt';
import { prepareRequest } from './prepareRequest';
import { sendItem } from './sendItem';

/**
 * Routing of an operation, in the order an item's request goes: preSend (build and check it), then
 * send (sendItem, n8n's `pagination` request operation: slot → turn → attempt, whose answer the
 * failure model checks before the operation's own postReceive shapes it → classify → retry → output).
 */
export function operationRouting(
	endpoint: Endpoint,
	contract: RequestContract,
	postReceive: PostReceiveStep[] = [],
): INodePropertyRouting {
	return {
		request: {
			method: endpoint.method,
			url: endpoint.path,
			...(contract.body ? { headers: { 'Content-Type': 'application/json' } } : {}),
		},
		send: { preSend: [prepareRequest(contract)], paginate: true },
		operations: { pagination: sendItem },
		output: { postReceive },
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
