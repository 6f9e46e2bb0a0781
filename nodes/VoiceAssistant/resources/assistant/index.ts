// The Assistant resource: its Operation field and the fields of Get Many.
import type { INodeProperties } from 'n8n-workflow';
import { operationSelector } from '../../shared/operationSelector';
import { getManyFields, getManyOperation } from './getMany';

export const assistantDescription: INodeProperties[] = [
	operationSelector('assistant', [getManyOperation]),
	...getManyFields,
];
