// The Segment Contact resource: its Operation field and the fields of Update.
import type { INodeProperties } from 'n8n-workflow';
import { operationSelector } from '../../shared/operationSelector';
import { updateFields, updateOperation } from './update';

export const segmentContactDescription: INodeProperties[] = [
	operationSelector('segmentContact', [updateOperation]),
	...updateFields,
];
