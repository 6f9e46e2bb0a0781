import type { INodeProperties } from 'n8n-workflow';
import { getManyFields, getManyOperation } from './getMany';

export const assistantDescription: INodeProperties[] = [
	{
		displayName: 'Operation',
		name: 'operation',
		type: 'options',
		noDataExpression: true,
		displayOptions: { show: { resource: ['assistant'] } },
		options: [getManyOperation],
		default: 'getAll',
	},
	...getManyFields,
];
