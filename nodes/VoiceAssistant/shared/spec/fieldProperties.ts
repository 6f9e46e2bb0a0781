// An operation's UI properties, derived from its field table (fieldTable.ts): a property for each
// required field, Additional Fields for the optional ones, and Map Automatically's Input Columns
// options and list of the API's names.
import type { IDisplayOptions, INodeProperties, INodePropertyRouting } from 'n8n-workflow';
import { ADDITIONAL_FIELDS, entriesOf, type Field, type FieldTable } from './fieldTable';

type Show = NonNullable<IDisplayOptions['show']>;

/** How n8n's routing sends a field, for operations that do not read their fields in preSend. */
type Route = (name: string, field: Field) => INodePropertyRouting;

const byDisplayName = (a: INodeProperties, b: INodeProperties) =>
	a.displayName.localeCompare(b.displayName);

/** A field's text box, or the settings its `ui` gives instead. */
function property(name: string, field: Field, route?: Route): INodeProperties {
	const { label, parameter, description, placeholder, rows, ui } = field;
	return {
		displayName: label,
		name: parameter,
		type: 'string',
		default: '',
		...(placeholder ? { placeholder } : {}),
		...(rows ? { typeOptions: { rows } } : {}),
		...(description ? { description } : {}),
		...(route ? { routing: route(name, field) } : {}),
		...(Array.isArray(ui) ? {} : ui),
	};
}

/**
 * The fields' properties, shown where `show` says: each required field in the table's order, then
 * Additional Fields with the optional ones (by name, as n8n lists a collection's options). `route`
 * gives each field n8n's routing; without it the operation reads its fields in preSend (fields.ts).
 */
export function fieldProperties(table: FieldTable, show: Show, route?: Route): INodeProperties[] {
	const shown = (own: INodeProperties): INodeProperties => ({
		...own,
		displayOptions: { show: { ...show, ...own.displayOptions?.show } },
	});
	const properties = entriesOf(table, true)
		.filter(([, field]) => field.required)
		.flatMap(([name, field]) =>
			Array.isArray(field.ui)
				? field.ui.map(shown)
				: [shown({ ...property(name, field, route), required: true })],
		);
	const optional = entriesOf(table, true).filter(([, field]) => !field.required);
	if (optional.length === 0) return properties;
	return [
		...properties,
		{
			displayName: 'Additional Fields',
			name: ADDITIONAL_FIELDS,
			type: 'collection',
			placeholder: 'Add Field',
			default: {},
			displayOptions: { show },
			options: optional.map(([name, field]) => property(name, field, route)).sort(byDisplayName),
		},
	];
}

/** Map Automatically's Input Columns: one option per field (the record id too), named by the API's name. */
export function inputColumnOptions(table: FieldTable): INodeProperties[] {
	return entriesOf(table, true)
		.map(
			([name, { label, column = label }]): INodeProperties => ({
				displayName: `${label} Column`,
				name,
				type: 'string',
				noDataExpression: true,
				default: '',
				placeholder: `e.g. ${column}`,
				description: `Name of the input column holding the ${label.toLowerCase()} (default: ${name}). A dotted path reads a nested value, e.g. properties.${name.replace('_', '')}.value; it must be text or a number.`,
			}),
		)
		.sort(byDisplayName);
}

/** The input columns Map Automatically reads, by the API's names: `id, first_name, …, and optionally email, …`. */
export function columnNames(table: FieldTable): string {
	const names = (required: boolean) =>
		entriesOf(table, true)
			.filter(([, field]) => Boolean(field.required) === required)
			.map(([name]) => name)
			.join(', ');
	const optional = names(false);
	return optional ? `${names(true)}, and optionally ${optional}` : names(true);
}
