import type { INodeProperties } from 'n8n-workflow';
import { startFields, startOperation } from './start';

export const playgroundCallDescription: INodeProperties[] = [
	{
		displayName: 'Operation',
		name: 'operation',
		type: 'options',
		noDataExpression: true,
		displayOptions: { show: { resource: ['playgroundCall'] } },
		options: [startOperation],
		default: 'start',
	},
	...startFields,
];
