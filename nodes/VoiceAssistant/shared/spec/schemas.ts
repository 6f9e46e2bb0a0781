/**
 * The types of the API's fields (docs/api.md) as zod rules: exactly the API's rules (types,
 * required fields, allowed values), nothing it leaves to the service. An endpoint's field table
 * (fieldTable.ts) names each field's type; its body schema is derived from them.
 */
import { z } from 'zod/v4';
import { asText, phoneNumberList } from './coerce';
import { KNOWLEDGE_BASE_LANGUAGES } from './values';

/** Zod error text: "is required" when the value is missing (an empty CRM cell is null), the rule otherwise. */
const requiredOr = (rule: string) => (issue: { input?: unknown }) =>
	issue.input === undefined || issue.input === null ? 'is required' : rule;

const requiredText = z
	.string({ error: requiredOr('must be text') })
	.refine((value) => value.trim().length > 0, {
		error: (issue) => (issue.input === '' ? 'is required' : 'must not be blank'),
		abort: true,
	});

const optionalText = z.string({ error: 'must be text' }).optional();

const enumOf = (values: readonly string[]) =>
	z.enum(values as [string, ...string[]], {
		error: requiredOr(`must be one of: ${values.join(', ')}`),
	});

const questionAnswerSchema = z.object(
	{ question: requiredText, answer: requiredText },
	{ error: requiredOr('must be an object with a question and an answer') },
);

/**
 * A field's type: its rule when the field is required, its rule when optional (a type without one
 * is never optional), and, for fields read in preSend (fields.ts), how an expression's or an AI
 * agent's value becomes the type where the meaning is unambiguous (coerce.ts).
 */
export interface FieldType {
	required: z.ZodType;
	optional?: z.ZodType;
	read?: (value: unknown) => unknown;
}

/** Text; the API only says "string" (an email's format is the service's to judge). */
export const text: FieldType = { required: requiredText, optional: optionalText, read: asText };

/** A list of phone numbers, at least one. */
export const phoneNumbers: FieldType = {
	required: z
		.array(requiredText, { error: requiredOr('must be a list of phone numbers') })
		.min(1, { error: 'must hold at least one phone number' }),
	read: phoneNumberList,
};

/** A knowledge base's language: one of the API's values. */
export const knowledgeBaseLanguage: FieldType = { required: enumOf(KNOWLEDGE_BASE_LANGUAGES) };

/** A knowledge base's question/answer pairs. The API sets no minimum: an empty list is the service's to accept or refuse. */
export const questionAnswerPairs: FieldType = {
	required: z.array(questionAnswerSchema, {
		error: requiredOr('must be a list of question/answer pairs'),
	}),
};
