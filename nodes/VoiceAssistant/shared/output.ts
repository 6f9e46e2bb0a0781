// An item's output: the service's answer as output items paired with their input, a failure as an
// error item, and no key anywhere.
import type { IDataObject, INodeExecutionData } from 'n8n-workflow';
import { redactValue } from './redact';
import type { NodeError } from './nodeError';

/** What one input item ended with: its output items, or its error. */
export type ItemResult = { items: INodeExecutionData[] } | { error: NodeError };

/** What the service answered, as an item's json: an object as is, anything else under `response`. */
function asJson(answer: unknown): IDataObject {
	if (answer !== null && typeof answer === 'object' && !Array.isArray(answer))
		return answer as IDataObject;
	// An empty body (e.g. 204) carries nothing to show.
	if (answer === undefined || (typeof answer === 'string' && answer.trim() === '')) return {};
	return { response: answer as IDataObject[string] };
}

/**
 * Output items of one input item: each paired with it, without the API key (a service could
 * echo it in a successful answer too), and for updates saying which record they touched.
 */
export function outputItems(
	items: INodeExecutionData[],
	itemIndex: number,
	id: unknown,
	secret: string | undefined,
): INodeExecutionData[] {
	return items.map((item) => {
		const json = redactValue(asJson(item.json), secret);
		return {
			...item,
			json: id === undefined ? json : { id: String(id), ...json },
			pairedItem: { item: itemIndex },
		};
	});
}

/** What a model reads of an error: its message and, where they add to it, its details (as n8n words its own tools' errors). */
function toolText({ message, description }: NodeError): string {
	return description && !message.includes(description)
		? `${message}\n\nDetails: ${description}`
		: message;
}

/**
 * A failed item. Only `json.error`: n8n recognises such an item for the error output and joins
 * its input row to it through pairedItem (setting the item's `error` instead would make n8n
 * replace the joined json with the bare message). For a model the text also carries the details.
 */
export function errorItem(
	{ asTool, itemIndex }: { asTool: boolean; itemIndex: number },
	error: NodeError,
): INodeExecutionData {
	return {
		json: { error: asTool ? toolText(error) : error.message },
		pairedItem: { item: itemIndex },
	};
}

/** The error thrown to n8n: a tool's (an MCP client's call) carries its details in its message, which n8n's queue-mode worker hands on alone. */
export function thrownError(item: { asTool: boolean }, error: NodeError): NodeError {
	if (item.asTool) error.message = toolText(error);
	return error;
}
