// Segment Contact → Update: the contact's fields, one entry each (CONTACT_FIELDS), and the
// operation derived from them: mapped field by field (read in preSend) or automatically from the
// input item's columns.
import type { IExecuteSingleFunctions, INodeProperties, INodePropertyOptions } from 'n8n-workflow';
import type { BodyOfItem } from '../../shared/spec/contract';
import { tableContract, type FieldTable } from '../../shared/spec/fieldTable';
import {
	columnNames,
	fieldProperties,
	inputColumnOptions,
} from '../../shared/spec/fieldProperties';
import { readColumns, readFields, typedBody } from '../../shared/spec/fields';
import { operationRouting } from '../../shared/request/routing';
import { ENDPOINTS } from '../../shared/spec/endpoints';

/** The contact's fields as the API names them (docs/api.md), the record's id first. */
export const CONTACT_FIELDS: FieldTable = {
	id: {
		parameter: 'contactId',
		label: 'Contact ID',
		inQuery: true,
		required: true,
		column: 'Record ID',
		description: "ID of the segment's contact to update",
	},
	first_name: { parameter: 'contactFirstName', label: 'First Name', required: true },
	last_name: { parameter: 'contactLastName', label: 'Last Name', required: true },
	phone: { parameter: 'phone', label: 'Phone', required: true, placeholder: 'e.g. +14155550100' },
	email: { parameter: 'email', label: 'Email', placeholder: 'name@email.com' },
	description: { parameter: 'description', label: 'Description', rows: 2 },
	job_title: { parameter: 'jobTitle', label: 'Job Title' },
	lifecycle_stage: {
		parameter: 'lifecycleStage',
		label: 'Lifecycle Stage',
		description: 'Lifecycle stage as your account names it (the allowed values are not published)',
	},
	lead_status: {
		parameter: 'leadStatus',
		label: 'Lead Status',
		description: 'Lead status as your account names it (the allowed values are not published)',
	},
};

const showOnlyForUpdate = { resource: ['segmentContact'], operation: ['update'] };

/** The operation (its routing and contract) and its fields, from a table of the contact's fields. */
export function contactUpdate(table: FieldTable): {
	operation: INodePropertyOptions;
	fields: INodeProperties[];
} {
	/** The body and the id, from the fields or (Map Automatically) the input item. */
	const contactBody = (_assembled: unknown, context: IExecuteSingleFunctions): BodyOfItem => {
		const auto = context.getNodeParameter('mappingMode', 'manual') === 'auto';
		const { id, ...body } = auto ? readColumns(context, table) : readFields(context, table);
		return { body: typedBody(body, table), id: id ?? undefined }; // preSend reads a number as its digits, as for every id
	};
	const operation: INodePropertyOptions = {
		name: 'Update',
		value: 'update',
		action: 'Update a segment contact',
		description: 'Update a contact of a segment',
		routing: operationRouting(ENDPOINTS.updateSegmentContact, {
			...tableContract(table),
			makeBody: contactBody,
		}),
	};
	const fields: INodeProperties[] = [
		{
			displayName: 'Mapping Mode',
			name: 'mappingMode',
			type: 'options',
			noDataExpression: true,
			options: [
				{
					name: 'Map Each Field Manually',
					value: 'manual',
					description: 'Set each field below, e.g. with expressions',
				},
				{
					name: 'Map Automatically',
					value: 'auto',
					description: `Use the input item's fields as the API names them (${columnNames(table)}), or the columns named under Input Columns. No expression per item: the fastest mapping for bulk runs.`,
				},
			],
			default: 'manual',
			displayOptions: { show: showOnlyForUpdate },
		},
		{
			displayName: 'Input Columns',
			name: 'inputColumns',
			type: 'collection',
			placeholder: 'Add Column Name',
			default: {},
			displayOptions: { show: { ...showOnlyForUpdate, mappingMode: ['auto'] } },
			description:
				"The input's column for a field when it is not the API's name, e.g. a CRM export's \"First Name\". Typed once as plain text: nothing is evaluated per item, which keeps bulk runs fast.",
			options: inputColumnOptions(table),
		},
		...fieldProperties(table, { ...showOnlyForUpdate, mappingMode: ['manual'] }),
	];
	return { operation, fields };
}
