// Segment Contact → Update: the contact's body and ID, mapped field by field (read in preSend
// through a field map) or automatically from the input item's columns.
import type {
	IDataObject,
	IExecuteSingleFunctions,
	INodeProperties,
	INodePropertyOptions,
} from 'n8n-workflow';
import { textFields, withoutEmpty } from '../../shared/spec/coerce';
import type { BodyOfItem, RequestContract } from '../../shared/spec/contract';
import { CONTACT_FIELDS, inputColumn, readFields } from '../../shared/spec/fields';
import { operationRouting } from '../../shared/request/routing';
import { ENDPOINTS } from '../../shared/spec/endpoints';
import { segmentContactSchema } from '../../shared/spec/schemas';
import { SEGMENT_CONTACT_OPTIONAL_FIELDS } from '../../shared/spec/values';

const showOnlyForUpdate = { resource: ['segmentContact'], operation: ['update'] };
const showForManualMapping = { ...showOnlyForUpdate, mappingMode: ['manual'] };
const showForAutoMapping = { ...showOnlyForUpdate, mappingMode: ['auto'] };

const labels = {
	first_name: 'First Name',
	last_name: 'Last Name',
	phone: 'Phone',
	email: 'Email',
	description: 'Description',
	job_title: 'Job Title',
	lifecycle_stage: 'Lifecycle Stage',
	lead_status: 'Lead Status',
};

/** Map Automatically: the API's names, which are also the input columns read unless Input Columns names others. */
const AUTO_FIELDS = ['id', ...Object.keys(labels)];

/** Map Automatically: each API field from its input column (the API's name unless Input Columns names another). */
function fromInputItem(context: IExecuteSingleFunctions): { body: IDataObject; id: unknown } {
	const json = context.getInputData().json;
	const columns = context.getNodeParameter('inputColumns', {}) as Record<string, string>;
	const body: IDataObject = {};
	for (const field of AUTO_FIELDS) {
		const column = columns[field];
		const name = typeof column === 'string' && column.trim() !== '' ? column.trim() : field;
		const value = inputColumn(json, name);
		if (value !== undefined) body[field] = value as IDataObject[string];
	}
	const { id, ...rest } = body;
	return { body: rest, id };
}

function contactBody(_assembled: IDataObject, context: IExecuteSingleFunctions): BodyOfItem {
	let mapped: { body: IDataObject; id: unknown };
	if (context.getNodeParameter('mappingMode', 'manual') === 'auto') {
		mapped = fromInputItem(context);
	} else {
		const { id, ...body } = readFields(context, CONTACT_FIELDS);
		mapped = { body, id };
	}
	const body = withoutEmpty(
		textFields(mapped.body, Object.keys(labels)),
		SEGMENT_CONTACT_OPTIONAL_FIELDS,
	);
	return { body, id: mapped.id ?? undefined }; // preSend reads a number as its digits, as for every id
}

/** The "Input Columns" options: one per API field, plain text (no expression), empty means the API's name. */
const COLUMN_OPTIONS = AUTO_FIELDS.map((field): INodeProperties => {
	const label = field === 'id' ? 'Contact ID' : labels[field as keyof typeof labels];
	return {
		displayName: `${label} Column`,
		name: field,
		type: 'string',
		noDataExpression: true,
		default: '',
		placeholder: field === 'id' ? 'e.g. Record ID' : `e.g. ${label}`,
		description: `Name of the input column holding the ${label.toLowerCase()} (default: ${field}). A dotted path reads a nested field, e.g. properties.${field.replace('_', '')}.`,
	};
}).sort((a, b) => a.displayName.localeCompare(b.displayName));

/** The segment contact body and its id, from the fields or (Map Automatically) the input item. */
const segmentContactContract: RequestContract = {
	body: segmentContactSchema,
	labels,
	idLabel: 'Contact ID',
	makeBody: contactBody,
};

export const updateOperation: INodePropertyOptions = {
	name: 'Update',
	value: 'update',
	action: 'Update a segment contact',
	description: 'Update a contact of a segment',
	routing: operationRouting(ENDPOINTS.updateSegmentContact, segmentContactContract),
};

export const updateFields: INodeProperties[] = [
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
				description:
					"Use the input item's fields as the API names them (ID, first_name, last_name, phone, and optionally email, description, job_title, lifecycle_stage, lead_status), or the columns named under Input Columns. No expression per item: the fastest mapping for bulk runs.",
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
		displayOptions: { show: showForAutoMapping },
		description:
			"The input's column for a field when it is not the API's name, e.g. a CRM export's \"First Name\". Typed once as plain text: nothing is evaluated per item, which keeps bulk runs fast.",
		options: COLUMN_OPTIONS,
	},
	{
		displayName: 'Contact ID',
		name: 'contactId',
		type: 'string',
		required: true,
		default: '',
		displayOptions: { show: showForManualMapping },
		description: "ID of the segment's contact to update",
	},
	{
		displayName: 'First Name',
		name: 'contactFirstName',
		type: 'string',
		required: true,
		default: '',
		displayOptions: { show: showForManualMapping },
	},
	{
		displayName: 'Last Name',
		name: 'contactLastName',
		type: 'string',
		required: true,
		default: '',
		displayOptions: { show: showForManualMapping },
	},
	{
		displayName: 'Phone',
		name: 'phone',
		type: 'string',
		required: true,
		default: '',
		placeholder: 'e.g. +14155550100',
		displayOptions: { show: showForManualMapping },
	},
	{
		displayName: 'Additional Fields',
		name: 'additionalFields',
		type: 'collection',
		placeholder: 'Add Field',
		default: {},
		displayOptions: { show: showForManualMapping },
		options: [
			{
				displayName: 'Description',
				name: 'description',
				type: 'string',
				typeOptions: { rows: 2 },
				default: '',
			},
			{
				displayName: 'Email',
				name: 'email',
				type: 'string',
				placeholder: 'name@email.com',
				default: '',
			},
			{
				displayName: 'Job Title',
				name: 'jobTitle',
				type: 'string',
				default: '',
			},
			{
				displayName: 'Lead Status',
				name: 'leadStatus',
				type: 'string',
				default: '',
				description: 'Lead status as your account names it (the allowed values are not published)',
			},
			{
				displayName: 'Lifecycle Stage',
				name: 'lifecycleStage',
				type: 'string',
				default: '',
				description:
					'Lifecycle stage as your account names it (the allowed values are not published)',
			},
		],
	},
];
