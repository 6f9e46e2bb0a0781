import type { INodeProperties } from 'n8n-workflow';
import { createOperation, knowledgeBaseBodyFields } from './create';
import { updateFields, updateOperation } from './update';

export const knowledgeBaseDescription: INodeProperties[] = [
	{
		displayName: 'Operation',
		name: 'operation',
		type: 'options',
		noDataExpression: true,
		displayOptions: { show: { resource: ['knowledgeBase'] } },
		options: [createOperation, updateOperation],
		default: 'create',
	},
	...updateFields,
	...knowledgeBaseBodyFields,
];
