/**
 * Every operation with a body, described for the property tests: its parameters (every field
 * read from the item), valid items with the request and output they must produce, and for each
 * field of the spec's schema the defects the node must refuse before sending anything.
 */
import fc from 'fast-check';
import type { IDataObject, INodeParameters } from 'n8n-workflow';
import {
	knowledgeBaseSchema,
	playgroundCallSchema,
	segmentContactSchema,
} from '../../nodes/VoiceAssistant/shared/spec/schemas';
import { KNOWLEDGE_BASE_LANGUAGES } from '../../nodes/VoiceAssistant/shared/spec/values';
import {
	RULES,
	coercibleText,
	email,
	idDefect,
	knowledgeBaseLanguage,
	languageDefect,
	optional,
	optionalTextDefect,
	pairs,
	pairsJsonDefect,
	phoneNumbers,
	phoneNumbersDefect,
	seededKnowledgeBaseId,
	shortText,
	text,
	textDefect,
	type Defect,
	type Given,
} from './arbitraries';
import {
	knowledgeBaseJsonFromItem,
	knowledgeBaseListFromItem,
	playgroundCallFromItem,
	segmentContactFromItem,
	type Sent,
} from './support';

export interface ValidRow {
	json: IDataObject;
	sent: Sent;
	output: IDataObject;
}

export interface FieldSpec {
	/** API field (body) or `id` (query). */
	key: string;
	/** What the user sees in the node. */
	label: string;
	defect: fc.Arbitrary<Defect>;
	query?: boolean;
}

export interface OperationSpec {
	name: string;
	parameters: INodeParameters;
	valid: fc.Arbitrary<ValidRow>;
	fields: FieldSpec[];
}

type Fields = Record<string, fc.Arbitrary<Given | undefined>>;

/** Item json (given values) and body (sent values) from one generated value per field. */
function split(values: Record<string, Given | undefined>): {
	json: IDataObject;
	body: IDataObject;
} {
	const json: IDataObject = {};
	const body: IDataObject = {};
	for (const [key, value] of Object.entries(values)) {
		if (value === undefined) continue;
		json[key] = value.given as IDataObject[string];
		if (value.sent !== undefined) body[key] = value.sent as IDataObject[string];
	}
	return { json, body };
}

const asGiven = <T>(arbitrary: fc.Arbitrary<T>): fc.Arbitrary<Given> =>
	arbitrary.map((value) => ({ given: value, sent: value }));

/** The message the node must give for `defect` of `field` in item `index`. */
export function expectedMessage(field: FieldSpec, defect: Defect, index: number): string {
	const subject = field.query
		? `"${field.label}"`
		: `"${field.key}${defect.at ?? ''}" (${defect.label ?? field.label})`;
	return `Invalid input: ${subject} ${defect.rule} [item ${index}]`;
}

/** Applies a defect to a valid item. */
export function breakRow(json: IDataObject, field: FieldSpec, defect: Defect): IDataObject {
	const broken: IDataObject = { ...json };
	if (defect.missing) delete broken[field.key];
	else broken[field.key] = defect.value as IDataObject[string];
	return broken;
}

// ---------------------------------------------------------------- Playground Call → Start

export const PLAYGROUND_CALL_FIELDS: Fields = {
	first_name: coercibleText,
	last_name: coercibleText,
	email: asGiven(email),
	phone_number: phoneNumbers,
	assistant_id: coercibleText,
	dialer_id: coercibleText,
};

const playgroundCall: OperationSpec = {
	name: 'Playground Call → Start',
	parameters: playgroundCallFromItem,
	valid: fc.record(PLAYGROUND_CALL_FIELDS).map((values) => {
		const { json, body } = split(values);
		return { json, sent: { body }, output: body };
	}),
	fields: [
		{ key: 'first_name', label: 'First Name', defect: textDefect(true) },
		{ key: 'last_name', label: 'Last Name', defect: textDefect(true) },
		{ key: 'email', label: 'Email', defect: textDefect(true) },
		{ key: 'phone_number', label: 'Phone Numbers', defect: phoneNumbersDefect },
		{ key: 'assistant_id', label: 'Assistant', defect: textDefect(true) },
		{ key: 'dialer_id', label: 'Dialer ID', defect: textDefect(true) },
	],
};

// ---------------------------------------------------------------- Knowledge Base → Create / Update

/** JSON mode: pairs as parsed values (an Aggregate node) or as JSON text, extra keys dropped. */
const pairsFromJson: fc.Arbitrary<Given> = fc
	.tuple(pairs(true), fc.boolean())
	.map(([list, asText]) => ({
		given: asText ? JSON.stringify(list.given) : list.given,
		sent: list.sent,
	}));

export const KNOWLEDGE_BASE_FIELDS: Fields = {
	title: asGiven(text),
	language: asGiven(knowledgeBaseLanguage),
	data: pairsFromJson,
};

const knowledgeBaseBodyFields: FieldSpec[] = [
	{ key: 'title', label: 'Title', defect: textDefect(false) },
	{ key: 'language', label: 'Language', defect: languageDefect },
	{ key: 'data', label: 'Questions and Answers', defect: pairsJsonDefect },
];

const knowledgeBaseCreate: OperationSpec = {
	name: 'Knowledge Base → Create (JSON)',
	parameters: knowledgeBaseJsonFromItem('create'),
	valid: fc.record(KNOWLEDGE_BASE_FIELDS).map((values) => {
		const { json, body } = split(values);
		return { json, sent: { body }, output: body };
	}),
	fields: knowledgeBaseBodyFields,
};

const knowledgeBaseUpdate: OperationSpec = {
	name: 'Knowledge Base → Update (JSON)',
	parameters: knowledgeBaseJsonFromItem('update'),
	valid: fc
		.record({ ...KNOWLEDGE_BASE_FIELDS, id: seededKnowledgeBaseId })
		.map(({ id, ...values }) => {
			const { json, body } = split(values);
			return { json: { ...json, id }, sent: { body, id }, output: { id, ...body } };
		}),
	fields: [
		{ key: 'id', label: 'Knowledge Base ID', defect: idDefect, query: true },
		...knowledgeBaseBodyFields,
	],
};

/** List mode: rows typed in the node, each half an expression. */
export const LIST_PAIRS = 3;

const listPairs = fc.array(fc.record({ question: text, answer: text }), {
	minLength: LIST_PAIRS,
	maxLength: LIST_PAIRS,
});

/** One half of one row left empty or filled with something that is no text. */
const listPairDefect: fc.Arbitrary<Defect> = fc
	.tuple(
		listPairs,
		fc.nat({ max: LIST_PAIRS - 1 }),
		fc.constantFrom('question', 'answer'),
		textDefect(false),
	)
	.map(([rows, index, half, defect]) => {
		const row: Record<string, unknown> = { ...rows[index] };
		if (defect.missing) delete row[half];
		else row[half] = defect.value;
		return {
			value: rows.map((original, i) => (i === index ? row : original)),
			rule: defect.rule,
			at: `[${index}].${half}`,
		};
	});

const knowledgeBaseList: OperationSpec = {
	name: 'Knowledge Base → Create (List)',
	parameters: knowledgeBaseListFromItem('create', LIST_PAIRS),
	valid: fc
		.record({
			title: asGiven(text),
			language: asGiven(knowledgeBaseLanguage),
			data: asGiven(listPairs),
		})
		.map((values) => {
			const { json, body } = split(values);
			return { json, sent: { body }, output: body };
		}),
	fields: [
		{ key: 'title', label: 'Title', defect: textDefect(false) },
		{ key: 'language', label: 'Language', defect: languageDefect },
		{ key: 'data', label: 'Questions and Answers', defect: listPairDefect },
	],
};

// ---------------------------------------------------------------- Segment Contact → Update

export const SEGMENT_CONTACT_FIELDS: Fields = {
	first_name: coercibleText,
	last_name: coercibleText,
	phone: coercibleText,
	email: optional(asGiven(email)),
	description: optional(coercibleText),
	job_title: optional(coercibleText),
	lifecycle_stage: optional(coercibleText),
	lead_status: optional(coercibleText),
};

const contactId: fc.Arbitrary<Given> = fc.oneof(
	shortText.map((id) => ({ given: id, sent: id })),
	fc.nat().map((id) => ({ given: id, sent: String(id) })),
);

const segmentContact: OperationSpec = {
	name: 'Segment Contact → Update',
	parameters: segmentContactFromItem,
	valid: fc.record({ ...SEGMENT_CONTACT_FIELDS, id: contactId }).map(({ id, ...values }) => {
		const { json, body } = split(values);
		const sentId = id.sent as string;
		return {
			json: { ...json, id: id.given as string },
			sent: { body, id: sentId },
			output: { id: sentId, message: 'Contact updated successfully.' },
		};
	}),
	fields: [
		{ key: 'id', label: 'Contact ID', defect: idDefect, query: true },
		{ key: 'first_name', label: 'First Name', defect: textDefect(true) },
		{ key: 'last_name', label: 'Last Name', defect: textDefect(true) },
		{ key: 'phone', label: 'Phone', defect: textDefect(true) },
		{ key: 'email', label: 'Email', defect: optionalTextDefect },
		{ key: 'description', label: 'Description', defect: optionalTextDefect },
		{ key: 'job_title', label: 'Job Title', defect: optionalTextDefect },
		{ key: 'lifecycle_stage', label: 'Lifecycle Stage', defect: optionalTextDefect },
		{ key: 'lead_status', label: 'Lead Status', defect: optionalTextDefect },
	],
};

/** "Map Automatically": the item carries the API's field names; its other keys are ignored. */
const segmentContactAuto: OperationSpec = {
	...segmentContact,
	name: 'Segment Contact → Update (Map Automatically)',
	parameters: { resource: 'segmentContact', operation: 'update', mappingMode: 'auto' },
	valid: segmentContact.valid.map((row) => ({
		...row,
		json: { row_number: 7, hs_object_id: 'crm-1', ...row.json },
	})),
};

export const BODY_OPERATIONS: OperationSpec[] = [
	playgroundCall,
	knowledgeBaseCreate,
	knowledgeBaseUpdate,
	knowledgeBaseList,
	segmentContact,
	segmentContactAuto,
];

/** The schema each operation's body fields come from, to check the generators cover the spec. */
export const SCHEMAS = {
	[playgroundCall.name]: playgroundCallSchema,
	[knowledgeBaseCreate.name]: knowledgeBaseSchema,
	[knowledgeBaseUpdate.name]: knowledgeBaseSchema,
	[knowledgeBaseList.name]: knowledgeBaseSchema,
	[segmentContact.name]: segmentContactSchema,
	[segmentContactAuto.name]: segmentContactSchema,
};

export { KNOWLEDGE_BASE_LANGUAGES, RULES };
