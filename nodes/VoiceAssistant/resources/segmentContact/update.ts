import type { INodeProperties, INodePropertyOptions } from 'n8n-workflow';
import { textFields, withoutEmpty } from '../../shared/coerce';
import { operationRouting, sendInBody, sendInQuery } from '../../shared/routing';
import { ENDPOINTS, SEGMENT_CONTACT_OPTIONAL_FIELDS, segmentContactSchema } from '../../shared/spec';

const showOnlyForUpdate = { resource: ['segmentContact'], operation: ['update'] };

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

export const updateOperation: INodePropertyOptions = {
	name: 'Update',
	value: 'update',
	action: 'Update a segment contact',
	description: 'Update a contact of a segment',
	routing: operationRouting(ENDPOINTS.updateSegmentContact, {
		body: segmentContactSchema,
		labels,
		idLabel: 'Contact ID',
		normalize: (body) => ({
			body: withoutEmpty(textFields(body, Object.keys(labels)), SEGMENT_CONTACT_OPTIONAL_FIELDS),
		}),
	}),
};

export const updateFields: INodeProperties[] = [
	{
		displayName: 'Contact ID',
		name: 'contactId',
		type: 'string',
		required: true,
		default: '',
		displayOptions: { show: showOnlyForUpdate },
		description: "ID of the segment's contact to update",
		routing: sendInQuery('id'),
	},
	{
		displayName: 'First Name',
		name: 'contactFirstName',
		type: 'string',
		required: true,
		default: '',
		displayOptions: { show: showOnlyForUpdate },
		routing: sendInBody('first_name'),
	},
	{
		displayName: 'Last Name',
		name: 'contactLastName',
		type: 'string',
		required: true,
		default: '',
		displayOptions: { show: showOnlyForUpdate },
		routing: sendInBody('last_name'),
	},
	{
		displayName: 'Phone',
		name: 'phone',
		type: 'string',
		required: true,
		default: '',
		placeholder: 'e.g. +14155550100',
		displayOptions: { show: showOnlyForUpdate },
		routing: sendInBody('phone'),
	},
	{
		displayName: 'Additional Fields',
		name: 'additionalFields',
		type: 'collection',
		placeholder: 'Add Field',
		default: {},
		displayOptions: { show: showOnlyForUpdate },
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
