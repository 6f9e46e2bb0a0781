// The Segment Contact resource: its Operation field and the fields of Update.
import type { INodeProperties } from 'n8n-workflow';
import { operationSelector } from '../../shared/operationSelector';
import { CONTACT_FIELDS, contactUpdate } from './update';

const update = contactUpdate(CONTACT_FIELDS);

export const segmentContactDescription: INodeProperties[] = [
	operationSelector('segmentContact', [update.operation]),
	...update.fields,
];
