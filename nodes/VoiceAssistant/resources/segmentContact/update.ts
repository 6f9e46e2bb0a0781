import type { IDataObject, IExecuteSingleFunctions, INodeProperties, INodePropertyOptions } from 'n8n-workflow';
import { textFields, withoutEmpty } from '../../shared/spec/coerce';
import type { Normalized, RequestContract } from '../../shared/spec/contract';
import { operationRouting, sendInBody, sendInQuery } from '../../shared/request/routing';
import { ENDPOINTS } from '../../shared/spec/endpoints';
import { segmentContactSchema } from '../../shared/spec/schemas';
import { SEGMENT_CONTACT_OPTIONAL_FIELDS } from '../../shared/spec/values';

const showOnlyForUpdate = { resource: ['segmentContact'], operation: ['update'] };
const showForManualMapping = { ...showOnlyForUpdate, mappingMode: ['manual'] };

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

/** "Map Automatically": the input item already carries the API's field names (and the id). */
function fromInputItem(context: IExecuteSingleFunctions): { body: IDataObject; id: unknown } {
	const json = context.getInputData().json;
	const body: IDataObject = {};
	for (const field of Object.keys(labels)) {
		if (field in json) body[field] = json[field];
	}
	return { body, id: json.id };
}

function normalizeContact(assembled: IDataObject, context: IExecuteSingleFunctions): Normalized {
	const mapped =
		context.getNodeParameter('mappingMode', 'manual') === 'auto'
			? fromInputItem(context)
			: { body: assembled, id: undefined };
	const body = withoutEmpty(textFields(mapped.body, Object.keys(labels)), SEGMENT_CONTACT_OPTIONAL_FIELDS);
	return { body, id: mapped.id ?? undefined }; // preSend reads a number as its digits, as for every id
}

/** The segment contact body and its id, from the fields or (Map Automatically) the input item. */
const segmentContactContract: RequestContract = {
	body: segmentContactSchema,
	labels,
	idLabel: 'Contact ID',
	normalize: normalizeContact,
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
					'Use the input item\'s fields as the API names them (all lowercase): ID, first_name, last_name, phone, and optionally email, description, job_title, lifecycle_stage, lead_status',
			},
		],
		default: 'manual',
		displayOptions: { show: showOnlyForUpdate },
	},
	{
		displayName: 'Contact ID',
		name: 'contactId',
		type: 'string',
		required: true,
		default: '',
		displayOptions: { show: showForManualMapping },
		description: "ID of the segment's contact to update",
		routing: sendInQuery('id'),
	},
	{
		displayName: 'First Name',
		name: 'contactFirstName',
		type: 'string',
		required: true,
		default: '',
		displayOptions: { show: showForManualMapping },
		routing: sendInBody('first_name'),
	},
	{
		displayName: 'Last Name',
		name: 'contactLastName',
		type: 'string',
		required: true,
		default: '',
		displayOptions: { show: showForManualMapping },
		routing: sendInBody('last_name'),
	},
	{
		displayName: 'Phone',
		name: 'phone',
		type: 'string',
		required: true,
		default: '',
		placeholder: 'e.g. +14155550100',
		displayOptions: { show: showForManualMapping },
		routing: sendInBody('phone'),
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
				routing: sendInBody('description'),
			},
			{
				displayName: 'Email',
				name: 'email',
				type: 'string',
				placeholder: 'name@email.com',
				default: '',
				routing: sendInBody('email'),
			},
			{
				displayName: 'Job Title',
				name: 'jobTitle',
				type: 'string',
				default: '',
				routing: sendInBody('job_title'),
			},
			{
				displayName: 'Lead Status',
				name: 'leadStatus',
				type: 'string',
				default: '',
				description: 'Lead status as your account names it (the allowed values are not published)',
				routing: sendInBody('lead_status'),
			},
			{
				displayName: 'Lifecycle Stage',
				name: 'lifecycleStage',
				type: 'string',
				default: '',
				description: 'Lifecycle stage as your account names it (the allowed values are not published)',
				routing: sendInBody('lifecycle_stage'),
			},
		],
	},
];
