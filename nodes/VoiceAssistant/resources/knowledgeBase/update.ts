// Knowledge Base → Update: Create's fields and contract and the knowledge base's ID (the query's
// id), sent with PUT.
import type { INodeProperties, INodePropertyOptions } from 'n8n-workflow';
import type { FieldTable } from '../../shared/spec/fieldTable';
import { fieldProperties } from '../../shared/spec/fieldProperties';
import { operationRouting } from '../../shared/request/routing';
import { ENDPOINTS } from '../../shared/spec/endpoints';
import { KNOWLEDGE_BASE_FIELDS, knowledgeBaseContract, routeKnowledgeBase } from './create';

const KNOWLEDGE_BASE_ID: FieldTable = {
	id: {
		parameter: 'knowledgeBaseId',
		label: 'Knowledge Base ID',
		inQuery: true,
		required: true,
		description: 'ID of the knowledge base to update, e.g. the knowledge_base_Id of an assistant',
	},
};

/** Update's fields: the knowledge base's ID, then Create's. */
export const UPDATE_KNOWLEDGE_BASE_FIELDS: FieldTable = {
	...KNOWLEDGE_BASE_ID,
	...KNOWLEDGE_BASE_FIELDS,
};

export const updateOperation: INodePropertyOptions = {
	name: 'Update',
	value: 'update',
	action: 'Replace a knowledge base (all its pairs)',
	description: 'Replace the title, language and question/answer pairs of a knowledge base',
	routing: operationRouting(
		ENDPOINTS.updateKnowledgeBase,
		knowledgeBaseContract(UPDATE_KNOWLEDGE_BASE_FIELDS),
	),
};

/** Only the ID: Create's fields show for both operations (create.ts). */
export const updateFields: INodeProperties[] = fieldProperties(
	KNOWLEDGE_BASE_ID,
	{ resource: ['knowledgeBase'], operation: ['update'] },
	routeKnowledgeBase,
);
