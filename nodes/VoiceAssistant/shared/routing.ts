import type { INodePropertyRouting } from 'n8n-workflow';

/** Routing of a field that becomes one property of the JSON body. */
export function sendInBody(property: string): INodePropertyRouting {
	return { send: { type: 'body', property } };
}

/** Routing of a field that becomes one query parameter. */
export function sendInQuery(property: string): INodePropertyRouting {
	return { send: { type: 'query', property } };
}
