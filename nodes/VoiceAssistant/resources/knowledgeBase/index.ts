// The Knowledge Base resource: its Operation field and the fields of Create and Update.
import type { INodeProperties } from 'n8n-workflow';
import { operationSelector } from '../../shared/operationSelector';
import { createOperation, knowledgeBaseBodyFields } from './create';
import { updateFields, updateOperation } from './update';

export const knowledgeBaseDescription: INodeProperties[] = [
	operationSelector('knowledgeBase', [createOperation, updateOperation]),
	...updateFields,
	...knowledgeBaseBodyFields,
];
