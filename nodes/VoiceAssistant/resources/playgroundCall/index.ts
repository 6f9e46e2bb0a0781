// The Playground Call resource: its Operation field and the fields of Start.
import type { INodeProperties } from 'n8n-workflow';
import { operationSelector } from '../../shared/operationSelector';
import { startFields, startOperation } from './start';

export const playgroundCallDescription: INodeProperties[] = [
	operationSelector('playgroundCall', [startOperation]),
	...startFields,
];
