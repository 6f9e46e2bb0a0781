/**
 * The API specification (voice-assistant-api.md) as constants and zod schemas.
 * Node options, request validation and test fixtures all derive from this module.
 */
import { z } from 'zod/v4';

export const API_PREFIX = '/api/v1';

export const ENDPOINTS = {
	listAssistants: { method: 'GET', path: `${API_PREFIX}/user/listAssistant` },
	startPlaygroundCall: { method: 'POST', path: `${API_PREFIX}/playground/call` },
	createKnowledgeBase: { method: 'POST', path: `${API_PREFIX}/knowledgeBase/create` },
	updateKnowledgeBase: { method: 'PUT', path: `${API_PREFIX}/knowledgeBase/update` },
	updateSegmentContact: { method: 'PUT', path: `${API_PREFIX}/segment/contact/update` },
} as const;

export type EndpointName = keyof typeof ENDPOINTS;

export const ASSISTANT_TYPES = ['inbound', 'outbound'] as const;

export const ASSISTANT_LANGUAGES = [
	'en',
	'de',
	'hi',
	'es',
	'fr',
	'it',
	'ar-kw',
	'gu',
	'bn',
	'te',
	'kn',
	'ta',
	'mr',
] as const;

export const LANGUAGE_NAMES: Record<(typeof ASSISTANT_LANGUAGES)[number], string> = {
	en: 'English',
	de: 'German',
	hi: 'Hindi',
	es: 'Spanish',
	fr: 'French',
	it: 'Italian',
	'ar-kw': 'Arabic (Kuwait)',
	gu: 'Gujarati',
	bn: 'Bengali',
	te: 'Telugu',
	kn: 'Kannada',
	ta: 'Tamil',
	mr: 'Marathi',
};

export const KNOWLEDGE_BASE_LANGUAGES = ['en'] as const;

/** Evenly spaced values from `from` to `to`, rounded to avoid floating-point drift (0.7 + 0.1 ≠ 0.8). */
function steps(from: number, to: number, step: number): number[] {
	const count = Math.round((to - from) / step) + 1;
	return Array.from({ length: count }, (_, i) => Math.round((from + i * step) * 1000) / 1000);
}

export const VOICE_SPEEDS = steps(1, 2, 0.1);
export const SENSITIVITIES = steps(600, 2000, 100);
export const TEMPERATURES = steps(0.7, 2, 0.1);
export const UTTERANCE_LENGTHS = steps(1, 10, 1);

/** Fields an assistant keeps when the Get Many operation simplifies its output. */
export const SIMPLIFIED_ASSISTANT_FIELDS = [
	'name',
	'type',
	'language',
	'company_name',
	'voice_name',
	'voice_id',
	'accent',
	'ai_model_id',
	'knowledge_base_Id',
] as const;

/** The spec does not show the assistant identifier; these are the names we look for, in order. */
export const ASSISTANT_ID_FIELDS = ['_id', 'id', 'assistant_id', 'assistantId'] as const;

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

const oneOf = (values: readonly string[]) =>
	z.enum(values as [string, ...string[]], {
		error: requiredOr(`must be one of: ${values.join(', ')}`),
	});

const numberIn = (values: readonly number[]) =>
	z.number().refine((value) => values.includes(value), {
		error: `must be one of: ${values.join(', ')}`,
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

export const questionAnswerSchema = z.object(
	{ question: requiredText, answer: requiredText },
	{ error: requiredOr('must be an object with a question and an answer') },
);

export const knowledgeBaseSchema = z.strictObject({
	title: requiredText,
	language: oneOf(KNOWLEDGE_BASE_LANGUAGES),
	// The spec sets no minimum: an empty list is the service's to accept or refuse.
	data: z.array(questionAnswerSchema, { error: requiredOr('must be a list of question/answer pairs') }),
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

export const SEGMENT_CONTACT_OPTIONAL_FIELDS = [
	'email',
	'description',
	'job_title',
	'lifecycle_stage',
	'lead_status',
] as const;

/** An id passed in the query string of the update endpoints. */
export const updateIdSchema = requiredText;

export const sentimentSchema = z.object({
	general_prompt: z.string(),
	positive_prompt: z.string(),
	negative_prompt: z.string(),
	neutral_prompt: z.string(),
});

export const actionSchema = z.object({
	type: z.string().optional(),
	meetingType: z.string().optional(),
	startDate: z.string().optional(),
	startTime: z.string().optional(),
	endTime: z.string().optional(),
	bookingDays: z.string().optional(),
	timezone: z.string().optional(),
	description: z.string().optional(),
	say: z.string().optional(),
	length: z.number().optional(),
	prompt: z.string().optional(),
});

/** An assistant as returned by the list endpoint. Used to check responses and fixtures, never to reject them. */
export const assistantSchema = z.object({
	type: oneOf(ASSISTANT_TYPES),
	language: oneOf(ASSISTANT_LANGUAGES),
	name: z.string(),
	company_name: z.string(),
	accent: z.string(),
	goal: z.string(),
	start_speech: z.string(),
	voice_id: z.string(),
	voice_name: z.string(),
	script: z.string(),
	maximum_time_per_call: z.number(),
	is_voice_note: z.boolean(),
	voice_note: z.string(),
	ai_model_id: z.string(),
	sentiment: sentimentSchema,
	voice_speed: numberIn(VOICE_SPEEDS),
	is_filler: z.boolean(),
	fillers: z.union([z.array(z.unknown()), z.string()]),
	assistant_image: z.string().regex(/\/assistant_profile\/\d+\.jpeg$/),
	ai_modal: z.string(),
	sensitivity: numberIn(SENSITIVITIES),
	temperature: numberIn(TEMPERATURES),
	opt_out_script: z.string(),
	is_wait_start_speech: z.boolean(),
	utterance_length: numberIn(UTTERANCE_LENGTHS),
	meeting_note_prompt: z.string(),
	call_outcome_prompt: z.string(),
	actions: z.array(actionSchema).optional(),
	zapier_hook: z.string().optional(),
	knowledge_base_Id: z.string().optional(),
	is_recording: z.boolean().optional(),
	is_back_sound: z.boolean().optional(),
	is_sensitivity: z.boolean().optional(),
	is_opt_out: z.boolean().optional(),
});

export type PlaygroundCall = z.infer<typeof playgroundCallSchema>;
export type KnowledgeBase = z.infer<typeof knowledgeBaseSchema>;
export type SegmentContact = z.infer<typeof segmentContactSchema>;
export type Assistant = z.infer<typeof assistantSchema>;
