// The Operation field of a resource.
import type { INodeProperties, INodePropertyOptions } from 'n8n-workflow';

/** The Operation picker of a resource: its operations, the first one selected by default. */
export function operationSelector(
	resource: string,
	operations: INodePropertyOptions[],
): INodeProperties {
	const firstOperation = operations[0].value;
	return {
		displayName: 'Operation',
		name: 'operation',
		type: 'options',
		noDataExpression: true,
		displayOptions: { show: { resource: [resource] } },
		options: operations,
		default: firstOperation,
	};
}
