import type {
	IDataObject,
	IExecuteSingleFunctions,
	INodeExecutionData,
	NodeApiError,
	NodeOperationError,
} from 'n8n-workflow';
import { redactValue } from './redact';

/** What the service answered, as an item's json: an object as is, anything else under `response`. */
function asJson(answer: unknown): IDataObject {
	if (answer !== null && typeof answer === 'object' && !Array.isArray(answer)) return answer as IDataObject;
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

/**
 * Whether the node runs as a tool of an AI Agent: n8n makes a `…Tool` node type of a node that
 * is `usableAsTool`, and the workflow names that type.
 */
function runsAsTool(context: IExecuteSingleFunctions): boolean {
	return context.getNode().type.endsWith('Tool');
}

/**
 * Whether a failed item becomes an output item instead of failing the run: when the node
 * continues on fail, and when it is an agent's tool. An agent gives its model only what a tool
 * returns; a thrown error reaches the model as an empty answer (AI Agent 2.x) or ends the
 * agent's whole run (3.x), so the model could neither tell the user nor try again.
 */
export function failureBecomesItem(context: IExecuteSingleFunctions): boolean {
	return context.continueOnFail() || runsAsTool(context);
}

/**
 * A failed item. Only `json.error`: n8n recognises such an item for the error output and joins
 * its input row to it through pairedItem (setting the item's `error` instead would make n8n
 * replace the joined json with the bare message). For a model the text also carries the
 * details (the service's own message, the problems of an invalid input), worded as n8n words
 * the errors of its own tools.
 */
export function errorItem(
	context: IExecuteSingleFunctions,
	error: NodeApiError | NodeOperationError,
	itemIndex: number,
): INodeExecutionData {
	const { message, description } = error;
	const details = runsAsTool(context) && description && !message.includes(description);
	return { json: { error: details ? `${message}\n\nDetails: ${description}` : message }, pairedItem: { item: itemIndex } };
}
