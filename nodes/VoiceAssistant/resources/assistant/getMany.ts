// Assistant → Get Many: the operation and its fields (Return All, Limit, Filters, Simplify); its
// output is shaped in getManyOutput.ts.
import type { INodeProperties, INodePropertyOptions } from 'n8n-workflow';
import { listParameterProblems, shapeAssistantList } from './getManyOutput';
import { operationRouting } from '../../shared/request/routing';
import { ENDPOINTS } from '../../shared/spec/endpoints';
import { ASSISTANT_LANGUAGES, ASSISTANT_TYPES, LANGUAGE_NAMES } from '../../shared/spec/values';

const showOnlyForGetMany = { resource: ['assistant'], operation: ['getAll'] };

export const getManyOperation: INodePropertyOptions = {
	name: 'Get Many',
	value: 'getAll',
	action: 'Get many assistants',
	description: 'List the voice-call assistants of the account',
	routing: operationRouting(ENDPOINTS.listAssistants, { checkParameters: listParameterProblems }, [
		shapeAssistantList,
	]),
};

export const getManyFields: INodeProperties[] = [
	{
		displayName: 'Return All',
		name: 'returnAll',
		type: 'boolean',
		displayOptions: { show: showOnlyForGetMany },
		default: false,
		description: 'Whether to return all results or only up to a given limit',
	},
	{
		displayName: 'Limit',
		name: 'limit',
		type: 'number',
		displayOptions: { show: { ...showOnlyForGetMany, returnAll: [false] } },
		typeOptions: { minValue: 1 },
		default: 50,
		description: 'Max number of results to return',
	},
	{
		displayName: 'Filters',
		name: 'filters',
		type: 'collection',
		placeholder: 'Add Filter',
		displayOptions: { show: showOnlyForGetMany },
		default: {},
		options: [
			{
				displayName: 'Language',
				name: 'language',
				type: 'options',
				options: ASSISTANT_LANGUAGES.map((code) => ({ name: LANGUAGE_NAMES[code], value: code })),
				default: 'en',
				description: 'Only assistants that speak this language',
			},
			{
				displayName: 'Type',
				name: 'type',
				type: 'options',
				options: ASSISTANT_TYPES.map((type) => ({
					name: type === 'inbound' ? 'Inbound' : 'Outbound',
					value: type,
				})),
				default: 'outbound',
				description: 'Only assistants that take (inbound) or make (outbound) calls',
			},
		],
	},
	{
		displayName: 'Simplify',
		name: 'simplify',
		type: 'boolean',
		displayOptions: { show: showOnlyForGetMany },
		default: true,
		description:
			'Whether to return only the main fields (ID, name, type, language, company, voice, accent, model, knowledge base ID) instead of every field the service sends',
	},
];
