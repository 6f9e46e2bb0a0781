/**
 * The request bodies of the API specification (voice-assistant-api.md) as zod schemas: exactly
 * the spec's rules (types, required fields, allowed values), nothing the spec leaves to the service.
 */
import { z } from 'zod/v4';
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

export const playgroundCallSchema = z.strictObject({
	first_name: requiredText,
	last_name: requiredText,
	// The spec only says "string": the format of an address is for the service to judge.
	email: requiredText,
	phone_number: z
		.array(requiredText, { error: requiredOr('must be a list of phone numbers') })
		.min(1, { error: 'must hold at least one phone number' }),
	assistant_id: requiredText,
	dialer_id: requiredText,
});

const questionAnswerSchema = z.object(
	{ question: requiredText, answer: requiredText },
	{ error: requiredOr('must be an object with a question and an answer') },
);

export const knowledgeBaseSchema = z.strictObject({
	title: requiredText,
	language: enumOf(KNOWLEDGE_BASE_LANGUAGES),
	// The spec sets no minimum: an empty list is the service's to accept or refuse.
	data: z.array(questionAnswerSchema, {
		error: requiredOr('must be a list of question/answer pairs'),
	}),
});

export const segmentContactSchema = z.strictObject({
	first_name: requiredText,
	last_name: requiredText,
	phone: requiredText,
	email: optionalText,
	description: optionalText,
	job_title: optionalText,
	lifecycle_stage: optionalText,
	lead_status: optionalText,
});
