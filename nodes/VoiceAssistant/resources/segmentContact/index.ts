import type { INodeProperties } from 'n8n-workflow';
import { updateFields, updateOperation } from './update';

export const segmentContactDescription: INodeProperties[] = [
	{
		displayName: 'Operation',
		name: 'operation',
		type: 'options',
		noDataExpression: true,
		displayOptions: { show: { resource: ['segmentContact'] } },
		options: [updateOperation],
		default: 'update',
	},
	...updateFields,
];
