/**
 * Every operation with a body, described for the property tests: its parameters (every field
 * read from the item), valid items with the request and output they must produce, and for each
 * field of the operation's field table the defects the node must refuse before sending anything.
 * The fields, their labels and their schemas come from the node's tables; the generators and
 * defects from each field's type (an email's '@' is the simulator's own rule).
 */
import fc from 'fast-check';
import type { z } from 'zod/v4';
import type { IDataObject, INodeParameters } from 'n8n-workflow';
import { KNOWLEDGE_BASE_FIELDS as KNOWLEDGE_BASE_TABLE } from '../../nodes/VoiceAssistant/resources/knowledgeBase/create';
import { UPDATE_KNOWLEDGE_BASE_FIELDS } from '../../nodes/VoiceAssistant/resources/knowledgeBase/update';
import { PLAYGROUND_CALL_FIELDS as PLAYGROUND_CALL_TABLE } from '../../nodes/VoiceAssistant/resources/playgroundCall/start';
import { CONTACT_FIELDS } from '../../nodes/VoiceAssistant/resources/segmentContact/update';
import {
	entriesOf,
	tableContract,
	type Field,
	type FieldTable,
} from '../../nodes/VoiceAssistant/shared/spec/fieldTable';
import * as types from '../../nodes/VoiceAssistant/shared/spec/schemas';
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

/** JSON mode: pairs as parsed values (an Aggregate node) or as JSON text, extra keys dropped. */
const pairsFromJson: fc.Arbitrary<Given> = fc
	.tuple(pairs(true), fc.boolean())
	.map(([list, asText]) => ({
		given: asText ? JSON.stringify(list.given) : list.given,
		sent: list.sent,
	}));

/**
 * Valid values of each body field of a table, by its type. `readInPreSend`: the operation reads
 * its fields in preSend, where a number typed for a text means its digits.
 */
function generators(table: FieldTable, readInPreSend: boolean): Fields {
	const given = (name: string, field: Field): fc.Arbitrary<Given> => {
		if (field.type === types.phoneNumbers) return phoneNumbers;
		if (field.type === types.knowledgeBaseLanguage) return asGiven(knowledgeBaseLanguage);
		if (field.type === types.questionAnswerPairs) return pairsFromJson;
		if (name === 'email') return asGiven(email);
		return readInPreSend ? coercibleText : asGiven(text);
	};
	return Object.fromEntries(
		entriesOf(table).map(([name, field]) => [
			name,
			field.required ? given(name, field) : optional(given(name, field)),
		]),
	);
}

/** Each field of a table (its record id included) with its defects, by its type. */
function fieldSpecs(table: FieldTable, readInPreSend: boolean): FieldSpec[] {
	const defect = (field: Field): fc.Arbitrary<Defect> => {
		if (field.inQuery) return idDefect;
		if (field.type === types.phoneNumbers) return phoneNumbersDefect;
		if (field.type === types.knowledgeBaseLanguage) return languageDefect;
		if (field.type === types.questionAnswerPairs) return pairsJsonDefect;
		return field.required ? textDefect(readInPreSend) : optionalTextDefect;
	};
	return entriesOf(table, true).map(([key, field]) => ({
		key,
		label: field.label,
		defect: defect(field),
		...(field.inQuery ? { query: true } : {}),
	}));
}

// ---------------------------------------------------------------- Playground Call → Start

export const PLAYGROUND_CALL_FIELDS = generators(PLAYGROUND_CALL_TABLE, true);

const playgroundCall: OperationSpec = {
	name: 'Playground Call → Start',
	parameters: playgroundCallFromItem,
	valid: fc.record(PLAYGROUND_CALL_FIELDS).map((values) => {
		const { json, body } = split(values);
		return { json, sent: { body }, output: body };
	}),
	fields: fieldSpecs(PLAYGROUND_CALL_TABLE, true),
};

// ---------------------------------------------------------------- Knowledge Base → Create / Update

export const KNOWLEDGE_BASE_FIELDS = generators(KNOWLEDGE_BASE_TABLE, false);

const knowledgeBaseCreate: OperationSpec = {
	name: 'Knowledge Base → Create (JSON)',
	parameters: knowledgeBaseJsonFromItem('create'),
	valid: fc.record(KNOWLEDGE_BASE_FIELDS).map((values) => {
		const { json, body } = split(values);
		return { json, sent: { body }, output: body };
	}),
	fields: fieldSpecs(KNOWLEDGE_BASE_TABLE, false),
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
	fields: fieldSpecs(UPDATE_KNOWLEDGE_BASE_FIELDS, false),
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
	fields: fieldSpecs(KNOWLEDGE_BASE_TABLE, false).map((field) =>
		field.key === 'data' ? { ...field, defect: listPairDefect } : field,
	),
};

// ---------------------------------------------------------------- Segment Contact → Update

export const SEGMENT_CONTACT_FIELDS = generators(CONTACT_FIELDS, true);

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
	fields: fieldSpecs(CONTACT_FIELDS, true),
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

/** The schema each operation's body fields come from, to check the generators cover it. */
const bodySchema = (table: FieldTable) => tableContract(table).body as z.ZodObject;

export const SCHEMAS = {
	[playgroundCall.name]: bodySchema(PLAYGROUND_CALL_TABLE),
	[knowledgeBaseCreate.name]: bodySchema(KNOWLEDGE_BASE_TABLE),
	[knowledgeBaseUpdate.name]: bodySchema(KNOWLEDGE_BASE_TABLE),
	[knowledgeBaseList.name]: bodySchema(KNOWLEDGE_BASE_TABLE),
	[segmentContact.name]: bodySchema(CONTACT_FIELDS),
	[segmentContactAuto.name]: bodySchema(CONTACT_FIELDS),
};

export { KNOWLEDGE_BASE_LANGUAGES, RULES };
