// The fields an operation reads in preSend (Playground Call → Start, Segment Contact → Update):
// each field of its table from its node parameter or (Map Automatically) from the input item's
// column, and the values read as the API's types.
import type { IDataObject, IExecuteSingleFunctions } from 'n8n-workflow';
import { isUnset } from './coerce';
import { ADDITIONAL_FIELDS, entriesOf, optionalFields, type FieldTable } from './fieldTable';
import { text } from './schemas';

/*
 * The operation's preSend reads these parameters itself instead of a `routing.send` on each
 * field. n8n evaluates every top-level parameter once in its item loop whatever we do, and a
 * routed field once more for the request; n8n 2.41 also walks every parameter again for its
 * base-URL check, routed ones twice. With the VM expression engine (2.41's default) each
 * evaluation is the bulk of a mapped item's cost: a field mapped by an expression costs 4
 * evaluations per item when routed, 3 when read here (2 on n8n 2.8 and 1.x either way).
 */

/** The API's body (and the query's `id`) from the node's parameters, as the user set them. */
export function readFields(context: IExecuteSingleFunctions, table: FieldTable): IDataObject {
	const body: IDataObject = {};
	const entries = entriesOf(table, true);
	for (const [name, { parameter }] of entries.filter(([, field]) => field.required))
		body[name] = context.getNodeParameter(parameter, '', {
			extractValue: true,
		}) as IDataObject[string];
	const optional = entries.filter(([, field]) => !field.required);
	if (optional.length === 0) return body;
	const values = context.getNodeParameter(ADDITIONAL_FIELDS, {}) as IDataObject;
	for (const [name, { parameter }] of optional)
		if (parameter in values) body[name] = values[parameter];
	return body;
}

/**
 * Map Automatically: the API's body (and the query's `id`) from the input item, each field from
 * its column: the API's name unless Input Columns names another.
 */
export function readColumns(context: IExecuteSingleFunctions, table: FieldTable): IDataObject {
	const json = context.getInputData().json;
	const columns = context.getNodeParameter('inputColumns', {}) as Record<string, string>;
	const body: IDataObject = {};
	for (const [field] of entriesOf(table, true)) {
		const column = columns[field];
		const name = typeof column === 'string' && column.trim() !== '' ? column.trim() : field;
		const value = inputColumn(json, name);
		if (value !== undefined) body[field] = value as IDataObject[string];
	}
	return body;
}

/** The input item's value of a column: the exact key, else a dotted path into nested fields (properties.firstname.value). */
function inputColumn(json: IDataObject, name: string): unknown {
	if (name in json) return json[name];
	if (!name.includes('.')) return undefined;
	let value: unknown = json;
	for (const key of name.split('.')) {
		if (value === null || typeof value !== 'object') return undefined;
		value = (value as IDataObject)[key];
	}
	return value;
}

/**
 * The body's values as their types read them (a number typed for a text means its digits), and
 * its optional fields left unset not sent, so an empty CRM cell never blanks a stored value.
 */
export function typedBody(body: IDataObject, table: FieldTable): IDataObject {
	const result: IDataObject = { ...body };
	for (const [name, { type = text }] of entriesOf(table))
		if (name in result && type.read) result[name] = type.read(result[name]) as IDataObject[string];
	for (const name of optionalFields(table)) if (isUnset(result[name])) delete result[name];
	return result;
}
