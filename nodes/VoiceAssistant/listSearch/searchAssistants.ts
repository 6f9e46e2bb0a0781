// The Assistant picker: the account's assistants, searched in the node (the list endpoint has no
// search).
import type { IDataObject, ILoadOptionsFunctions, INodeListSearchResult } from 'n8n-workflow';
import { assistantId, assistantList } from '../shared/assistants';
import { apiRequest } from '../shared/transport';
import { ENDPOINTS } from '../shared/spec/endpoints';

function label(assistant: IDataObject): string {
	const name =
		typeof assistant.name === 'string' && assistant.name ? assistant.name : 'Unnamed assistant';
	const details = [assistant.type, assistant.language].filter(
		(part) => typeof part === 'string' && part,
	);
	return details.length ? `${name} (${details.join(', ')})` : name;
}

/** Fills the Assistant picker with every assistant that has an ID, filtered here by name or ID. */
export async function searchAssistants(
	this: ILoadOptionsFunctions,
	filter?: string,
): Promise<INodeListSearchResult> {
	const body = await apiRequest.call(
		this,
		ENDPOINTS.listAssistants.method,
		ENDPOINTS.listAssistants.path,
	);
	const needle = filter?.trim().toLowerCase();
	const results = (assistantList(body) ?? [])
		.map((assistant) => ({ assistant, id: assistantId(assistant) }))
		.filter(({ id }) => id !== undefined)
		.map(({ assistant, id }) => ({ name: label(assistant), value: id as string }))
		.filter(
			({ name, value }) =>
				!needle || name.toLowerCase().includes(needle) || value.toLowerCase().includes(needle),
		);
	return { results };
}
