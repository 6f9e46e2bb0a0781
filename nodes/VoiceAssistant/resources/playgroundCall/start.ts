// Playground Call → Start: the call's fields, one entry each (PLAYGROUND_CALL_FIELDS), read in
// preSend, and the operation derived from them.
import type { INodeProperties, INodePropertyOptions } from 'n8n-workflow';
import { tableContract, type FieldTable } from '../../shared/spec/fieldTable';
import { fieldProperties } from '../../shared/spec/fieldProperties';
import { readFields, typedBody } from '../../shared/spec/fields';
import { operationRouting } from '../../shared/request/routing';
import { ENDPOINTS } from '../../shared/spec/endpoints';
import { phoneNumbers } from '../../shared/spec/schemas';

/** The call's fields as the API names them (docs/api.md), in the order the node shows them. */
export const PLAYGROUND_CALL_FIELDS: FieldTable = {
	assistant_id: {
		parameter: 'assistant',
		label: 'Assistant',
		required: true,
		description: 'The assistant that makes the call',
		ui: {
			type: 'resourceLocator',
			default: { mode: 'list', value: '' },
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
	},
	dialer_id: {
		parameter: 'dialerId',
		label: 'Dialer ID',
		required: true,
		description: 'ID of the dialer (phone line) that places the call',
	},
	first_name: {
		parameter: 'firstName',
		label: 'First Name',
		required: true,
		description: 'First name of the person called',
	},
	last_name: {
		parameter: 'lastName',
		label: 'Last Name',
		required: true,
		description: 'Last name of the person called',
	},
	email: {
		parameter: 'email',
		label: 'Email',
		required: true,
		placeholder: 'name@email.com',
		description: 'Email address of the person called',
	},
	phone_number: {
		parameter: 'phoneNumbers',
		label: 'Phone Numbers',
		type: phoneNumbers,
		required: true,
		placeholder: 'e.g. +14155550100, +14155550101',
		description:
			'One or more phone numbers to call, separated by commas, semicolons or new lines. An expression may also return a list.',
	},
};

export const startOperation: INodePropertyOptions = {
	name: 'Start',
	value: 'start',
	action: 'Start a playground call (rings the phone now)',
	description: 'Have an assistant call a contact through a dialer',
	routing: operationRouting(ENDPOINTS.startPlaygroundCall, {
		...tableContract(PLAYGROUND_CALL_FIELDS),
		makeBody: (_assembled, context) => ({
			body: typedBody(readFields(context, PLAYGROUND_CALL_FIELDS), PLAYGROUND_CALL_FIELDS),
		}),
	}),
};

export const startFields: INodeProperties[] = fieldProperties(PLAYGROUND_CALL_FIELDS, {
	resource: ['playgroundCall'],
	operation: ['start'],
});
