// Knowledge Base → Update: Create's body and contract, sent with PUT to the knowledge base its ID
// names (query id).
import type { INodeProperties, INodePropertyOptions } from 'n8n-workflow';
import { operationRouting, sendInQuery } from '../../shared/request/routing';
import { ENDPOINTS } from '../../shared/spec/endpoints';
import { knowledgeBaseContract } from './create';

export const updateOperation: INodePropertyOptions = {
	name: 'Update',
	value: 'update',
	action: 'Replace a knowledge base (all its pairs)',
	description: 'Replace the title, language and question/answer pairs of a knowledge base',
	routing: operationRouting(ENDPOINTS.updateKnowledgeBase, {
		...knowledgeBaseContract,
		idLabel: 'Knowledge Base ID',
	}),
};

export const updateFields: INodeProperties[] = [
	{
		displayName: 'Knowledge Base ID',
		name: 'knowledgeBaseId',
		type: 'string',
		required: true,
		default: '',
		displayOptions: { show: { resource: ['knowledgeBase'], operation: ['update'] } },
		description: 'ID of the knowledge base to update, e.g. the knowledge_base_Id of an assistant',
		routing: sendInQuery('id'),
	},
];
