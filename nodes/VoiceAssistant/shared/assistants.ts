// Reading the list endpoint's answer: used by Assistant → Get Many and by the Assistant picker.
import type { IDataObject } from 'n8n-workflow';
import { ASSISTANT_ID_FIELDS } from './spec/values';

/** The assistant's identifier: the spec does not show its field name, so the usual ones are tried. */
export function assistantId(assistant: IDataObject): string | undefined {
	for (const field of ASSISTANT_ID_FIELDS) {
		const value = assistant[field];
		if ((typeof value === 'string' && value !== '') || typeof value === 'number')
			return String(value);
	}
	return undefined;
}

export function assistantList(body: unknown): IDataObject[] | undefined {
	if (!Array.isArray(body)) return undefined;
	return body.filter(
		(entry) => entry && typeof entry === 'object' && !Array.isArray(entry),
	) as IDataObject[];
}
