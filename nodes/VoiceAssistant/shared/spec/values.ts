/** The API's allowed values (docs/api.md) that the node's options and checks use, and the Assistant fields it reads. */

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
