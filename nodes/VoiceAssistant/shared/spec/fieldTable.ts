/**
 * An endpoint's field table: the node's side of each field of an endpoint in one entry, keyed by
 * the API's name (docs/api.md). From it derive the body schema and the labels errors use (here),
 * the values read in preSend (fields.ts) and the node's UI properties (fieldProperties.ts).
 */
import type { INodeProperties } from 'n8n-workflow';
import { z } from 'zod/v4';
import type { RequestContract } from './contract';
import type { FieldLabels } from './validation';
import { text, type FieldType } from './schemas';

export interface Field {
	/** The node parameter: a name saved in users' workflows (an option of Additional Fields when optional). */
	parameter: string;
	/** The name the node's UI shows, and the name its errors give. */
	label: string;
	/** The API's type of the field, which gives its rule (default: text). */
	type?: FieldType;
	/** Required by the API: a field of its own in the UI. Optional fields are Additional Fields' options. */
	required?: boolean;
	/** The record's id, sent as the query's `id`, not in the body. */
	inQuery?: boolean;
	description?: string;
	placeholder?: string;
	/** Lines of a longer text's box. */
	rows?: number;
	/** A column name a CRM export would have, Input Columns' example (default: the label). */
	column?: string;
	/** The UI's own form when a text box is not it: settings of the one property (a picker, a list of values), or several properties. */
	ui?: Partial<INodeProperties> | INodeProperties[];
}

/** API name → field, in the order the node shows the fields (and an item's problems are listed). */
export type FieldTable = Readonly<Record<string, Field>>;

/** The collection that holds an operation's optional fields. */
export const ADDITIONAL_FIELDS = 'additionalFields';

/** The table's entries, [API name, field], those of the body only unless `withQuery`. */
export function entriesOf(table: FieldTable, withQuery = false): Array<[string, Field]> {
	return Object.entries(table).filter(([, field]) => withQuery || !field.inQuery);
}

/** The API names of the body's optional fields. */
export function optionalFields(table: FieldTable): string[] {
	return entriesOf(table)
		.filter(([, field]) => !field.required)
		.map(([name]) => name);
}

/** The body's zod schema: each field's rule, required or optional, and no field the table lacks. */
function bodySchema(table: FieldTable) {
	const shape: Record<string, z.ZodType> = {};
	for (const [name, field] of entriesOf(table)) {
		const type = field.type ?? text;
		const rule = field.required ? type.required : type.optional;
		if (!rule) throw new Error(`Field ${name}: its type has no optional form`);
		shape[name] = rule;
	}
	return z.strictObject(shape);
}

/** The labels of the body's fields, keyed by API name, so errors name what the user sees. */
function labelsOf(table: FieldTable): FieldLabels {
	return Object.fromEntries(entriesOf(table).map(([name, field]) => [name, field.label]));
}

/** The label of the record's id (the query's `id`), when the endpoint has one. */
function idLabelOf(table: FieldTable): string | undefined {
	return Object.values(table).find((field) => field.inQuery)?.label;
}

/** What an operation's contract takes from its table: the body's schema, its labels, the id's label. */
export function tableContract(table: FieldTable): RequestContract {
	const idLabel = idLabelOf(table);
	return { body: bodySchema(table), labels: labelsOf(table), ...(idLabel ? { idLabel } : {}) };
}
