import type { IDataObject, INodeExecutionData } from 'n8n-workflow';
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
