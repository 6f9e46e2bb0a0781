/**
 * The spec's Assistant table (the list endpoint's answer) as a zod schema. The node never
 * rejects an answer by it, so it lives with the tests: it checks the simulator's seeded
 * assistants against the spec, with the node's own lists of allowed values.
 */
import { z } from 'zod/v4';
import {
	ASSISTANT_LANGUAGES,
	ASSISTANT_TYPES,
} from '../../nodes/VoiceAssistant/shared/spec/values';

const numberIn = (values: readonly number[]) =>
	z
		.number()
		.refine((value) => values.includes(value), { error: `must be one of: ${values.join(', ')}` });

/** Evenly spaced values from `from` to `to`, rounded to avoid floating-point drift (0.7 + 0.1 ≠ 0.8). */
function steps(from: number, to: number, step: number): number[] {
	const count = Math.round((to - from) / step) + 1;
	return Array.from({ length: count }, (_, i) => Math.round((from + i * step) * 1000) / 1000);
}

const VOICE_SPEEDS = steps(1, 2, 0.1);
const SENSITIVITIES = steps(600, 2000, 100);
const TEMPERATURES = steps(0.7, 2, 0.1);
const UTTERANCE_LENGTHS = steps(1, 10, 1);

const sentimentSchema = z.object({
	general_prompt: z.string(),
	positive_prompt: z.string(),
	negative_prompt: z.string(),
	neutral_prompt: z.string(),
});

const actionSchema = z.object({
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
	type: z.enum(ASSISTANT_TYPES),
	language: z.enum(ASSISTANT_LANGUAGES),
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
