// An error whose words n8n keeps: how the node builds an item's error (n8nAdapter.ts, the picker's
// transport.ts and the credential's checks throw n8n's or plain errors of their own).
import type { INode, JsonObject } from 'n8n-workflow';
import { NodeApiError } from 'n8n-workflow';

export type NodeError = NodeApiError;

/**
 * An error that says exactly `message`. n8n's error constructors replace a message that merely
 * contains an error code (a 500 whose body mentions ECONNREFUSED would read "The service refused
 * the connection"), so the words are set again after construction. A NodeApiError, because n8n's
 * declarative loop wraps any other error in one (and rewrites it again).
 */
export function nodeError(
	node: INode,
	message: string,
	{
		description,
		itemIndex,
		httpCode,
	}: { description?: string; itemIndex?: number; httpCode?: string } = {},
): NodeError {
	const response: JsonObject = httpCode ? { message, httpCode } : { message };
	const error = new NodeApiError(node, response, { message, description, httpCode, itemIndex });
	error.message = message;
	error.description = description;
	return error;
}
