// The field maps of the operations read in preSend (Playground Call → Start, Segment Contact →
// Update): where each node parameter goes in the API's body, and how its values are read.
import type { IDataObject, IExecuteSingleFunctions } from 'n8n-workflow';

/**
 * Where an operation's fields go: node parameter → the API's property. A nested map is a
 * collection (Additional Fields): its options → API properties.
 *
 * The operation's preSend reads these parameters itself instead of a `routing.send` on each
 * field. n8n evaluates every top-level parameter once in its item loop whatever we do, and a
 * routed field once more for the request; n8n 2.41 also walks every parameter again for its
 * base-URL check, routed ones twice. With the VM expression engine (2.41's default) each
 * evaluation is the bulk of a mapped item's cost: a field mapped by an expression costs 4
 * evaluations per item when routed, 3 when read here (2 on n8n 2.8 and 1.x either way).
 */
interface FieldMap {
	readonly [parameter: string]: string | FieldMap;
}

/** Playground Call → Start: node parameter → API property. */
export const PLAYGROUND_CALL_FIELDS: FieldMap = {
	assistant: 'assistant_id',
	dialerId: 'dialer_id',
	firstName: 'first_name',
	lastName: 'last_name',
	email: 'email',
	phoneNumbers: 'phone_number',
};

/** Segment Contact → Update, Map Each Field Manually: node parameter → API property (`id` goes to the query). */
export const CONTACT_FIELDS: FieldMap = {
	contactId: 'id',
	contactFirstName: 'first_name',
	contactLastName: 'last_name',
	phone: 'phone',
	additionalFields: {
		description: 'description',
		email: 'email',
		jobTitle: 'job_title',
		leadStatus: 'lead_status',
		lifecycleStage: 'lifecycle_stage',
	},
};

/** The API's body (and `id`, when mapped) from the node's parameters, as the user set them. */
export function readFields(context: IExecuteSingleFunctions, map: FieldMap): IDataObject {
	const body: IDataObject = {};
	for (const [parameter, target] of Object.entries(map)) {
		if (typeof target === 'string') {
			body[target] = context.getNodeParameter(parameter, '', {
				extractValue: true,
			}) as IDataObject[string];
			continue;
		}
		const values = context.getNodeParameter(parameter, {}) as IDataObject;
		for (const [option, property] of Object.entries(target)) {
			if (typeof property === 'string' && option in values) body[property] = values[option];
		}
	}
	return body;
}

/** The input item's value of a column: the exact key, else a dotted path into nested fields (properties.firstname). */
export function inputColumn(json: IDataObject, name: string): unknown {
	if (name in json) return json[name];
	if (!name.includes('.')) return undefined;
	let value: unknown = json;
	for (const key of name.split('.')) {
		if (value === null || typeof value !== 'object') return undefined;
		value = (value as IDataObject)[key];
	}
	return value;
}
