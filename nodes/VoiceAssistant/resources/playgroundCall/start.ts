// Playground Call → Start: the fields of a call, read in preSend through a field map, and its
// contract (the phone numbers as a list).
import type { INodeProperties, INodePropertyOptions } from 'n8n-workflow';
import { phoneNumberList, textFields } from '../../shared/spec/coerce';
import type { RequestContract } from '../../shared/spec/contract';
import { PLAYGROUND_CALL_FIELDS, readFields } from '../../shared/spec/fields';
import { operationRouting } from '../../shared/request/routing';
import { ENDPOINTS } from '../../shared/spec/endpoints';
import { playgroundCallSchema } from '../../shared/spec/schemas';

const showOnlyForStart = { resource: ['playgroundCall'], operation: ['start'] };

const labels = {
	assistant_id: 'Assistant',
	dialer_id: 'Dialer ID',
	first_name: 'First Name',
	last_name: 'Last Name',
	email: 'Email',
	phone_number: 'Phone Numbers',
};

/** The playground call body: the fields as text, the phone numbers as a list. */
const playgroundCallContract: RequestContract = {
	body: playgroundCallSchema,
	labels,
	makeBody: (_assembled, context) => {
		const body = readFields(context, PLAYGROUND_CALL_FIELDS);
		return {
			body: {
				...textFields(body, ['first_name', 'last_name', 'email', 'assistant_id', 'dialer_id']),
				phone_number: phoneNumberList(body.phone_number),
			},
		};
	},
};

export const startOperation: INodePropertyOptions = {
	name: 'Start',
	value: 'start',
	action: 'Start a playground call (rings the phone now)',
	description: 'Have an assistant call a contact through a dialer',
	routing: operationRouting(ENDPOINTS.startPlaygroundCall, playgroundCallContract),
};

export const startFields: INodeProperties[] = [
	{
		displayName: 'Assistant',
		name: 'assistant',
		type: 'resourceLocator',
		required: true,
		default: { mode: 'list', value: '' },
		displayOptions: { show: showOnlyForStart },
		description: 'The assistant that makes the call',
		modes: [
			{
				displayName: 'From List',
				name: 'list',
				type: 'list',
				placeholder: 'Select an assistant...',
				typeOptions: { searchListMethod: 'searchAssistants', searchable: true },
			},
			{
				displayName: 'By ID',
				name: 'id',
				type: 'string',
				placeholder: 'e.g. 65f1c0ffee0123456789abcd',
			},
		],
	},
	{
		displayName: 'Dialer ID',
		name: 'dialerId',
		type: 'string',
		required: true,
		default: '',
		displayOptions: { show: showOnlyForStart },
		description: 'ID of the dialer (phone line) that places the call',
	},
	{
		displayName: 'First Name',
		name: 'firstName',
		type: 'string',
		required: true,
		default: '',
		displayOptions: { show: showOnlyForStart },
		description: 'First name of the person called',
	},
	{
		displayName: 'Last Name',
		name: 'lastName',
		type: 'string',
		required: true,
		default: '',
		displayOptions: { show: showOnlyForStart },
		description: 'Last name of the person called',
	},
	{
		displayName: 'Email',
		name: 'email',
		type: 'string',
		required: true,
		default: '',
		placeholder: 'name@email.com',
		displayOptions: { show: showOnlyForStart },
		description: 'Email address of the person called',
	},
	{
		displayName: 'Phone Numbers',
		name: 'phoneNumbers',
		type: 'string',
		required: true,
		default: '',
		placeholder: 'e.g. +14155550100, +14155550101',
		displayOptions: { show: showOnlyForStart },
		description:
			'One or more phone numbers to call, separated by commas, semicolons or new lines. An expression may also return a list.',
	},
];
