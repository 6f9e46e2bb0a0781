// An operation's routing as n8n's declarative engine reads it: preSend, the send step and
// postReceive of the node's engine, and how a plain field is sent (body or query).
import type {
	IExecuteSingleFunctions,
	IN8nHttpFullResponse,
	INodeExecutionData,
	INodePropertyRouting,
} from 'n8n-workflow';
import type { RequestContract } from '../spec/contract';
import type { Endpoint } from '../spec/endpoints';
import { failOnHttpError } from './postReceive';
import { prepareRequest } from './prepareRequest';
import { sendItem } from './sendItem';

/** A postReceive step: the send step runs functions only (see attempt). */
type PostReceiveStep = (
	this: IExecuteSingleFunctions,
	items: INodeExecutionData[],
	response: IN8nHttpFullResponse,
) => Promise<INodeExecutionData[]>;

/**
 * Routing of an operation, in the order an item's request goes: preSend (build and check it),
 * send (sendItem, n8n's `pagination` request operation: limit → attempt → classify → retry),
 * postReceive (HTTP errors, then the operation's own shaping) and output.
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
