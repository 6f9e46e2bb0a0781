import type { IDataObject, IExecuteSingleFunctions, IN8nHttpFullResponse, INodeExecutionData } from 'n8n-workflow';
import { NodeOperationError } from 'n8n-workflow';
import { ASSISTANT_ID_FIELDS, SIMPLIFIED_ASSISTANT_FIELDS } from './spec';

/** The assistant's identifier: the spec does not show its field name, so the usual ones are tried. */
export function assistantId(assistant: IDataObject): string | undefined {
	for (const field of ASSISTANT_ID_FIELDS) {
		const value = assistant[field];
		if ((typeof value === 'string' && value !== '') || typeof value === 'number') return String(value);
	}
	return undefined;
}

export function assistantList(body: unknown): IDataObject[] | undefined {
	if (Array.isArray(body)) return body.filter((entry) => entry && typeof entry === 'object') as IDataObject[];
	return undefined;
}

function simplify(assistant: IDataObject): IDataObject {
	const id = assistantId(assistant);
	const result: IDataObject = id === undefined ? {} : { id };
	for (const field of SIMPLIFIED_ASSISTANT_FIELDS) {
		if (assistant[field] !== undefined) result[field] = assistant[field];
	}
	return result;
}

/** postReceive of Assistant → Get Many: filters, limits and simplifies the list, one item per assistant. */
export async function shapeAssistantList(
	this: IExecuteSingleFunctions,
	_items: INodeExecutionData[],
	response: IN8nHttpFullResponse,
): Promise<INodeExecutionData[]> {
	const list = assistantList(response.body);
	if (!list) {
		const got = response.body === '' || response.body === undefined ? 'an empty body' : typeof response.body;
		throw new NodeOperationError(this.getNode(), `The service answered the assistant list with ${got} instead of a list`, {
			itemIndex: this.getItemIndex(),
			description: 'Check that the Base URL in the credential points at the voice assistant service.',
		});
	}
	const filters = this.getNodeParameter('filters', {}) as IDataObject;
	const returnAll = this.getNodeParameter('returnAll', false) as boolean;
	const simplifyOutput = this.getNodeParameter('simplify', true) as boolean;
	let assistants = list.filter(
		(assistant) =>
			(!filters.type || assistant.type === filters.type) &&
			(!filters.language || assistant.language === filters.language),
	);
	if (!returnAll) assistants = assistants.slice(0, this.getNodeParameter('limit', 50) as number);
	return assistants.map((assistant) => ({ json: simplifyOutput ? simplify(assistant) : assistant }));
}
