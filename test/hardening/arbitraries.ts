/**
 * fast-check generators of node input, derived from the spec module: valid items (with what
 * the service must receive for them) and single defects (with the rule the node must report).
 */
import fc from 'fast-check';
import {
	ASSISTANT_LANGUAGES,
	KNOWLEDGE_BASE_LANGUAGES,
} from '../../nodes/VoiceAssistant/shared/spec/values';
import { SEEDED_KNOWLEDGE_BASE_IDS } from '../simulator';

/** A value an item carries for a field, and what the service must receive for it. */
export interface Given {
	given: unknown;
	sent: unknown;
}

/** A single defect: the value the item carries (or its absence) and the node's expected wording. */
export interface Defect {
	value?: unknown;
	missing?: boolean;
	rule: string;
	/** Path below the field, e.g. `[2].answer`. */
	at?: string;
	/** The label the message uses when it is not the field's own (JSON parse errors). */
	label?: string;
}

export const RULES = {
	required: 'is required',
	blank: 'must not be blank',
	text: 'must be text',
	phones: 'must be a list of phone numbers',
	onePhone: 'must hold at least one phone number',
	pairs: 'must be a list of question/answer pairs',
	pair: 'must be an object with a question and an answer',
	language: `must be one of: ${KNOWLEDGE_BASE_LANGUAGES.join(', ')}`,
	emptyId: 'must not be empty',
	/** A number given for a text that a number cannot hold exactly (beyond 2^53 - 1). */
	inexact: (n: number) =>
		`is the number ${n}, which has more digits than a number holds exactly (over 9007199254740991), so its last digits may already be wrong: pass it as text, as its source has it (a JSON string, or $fromAI() with the type 'string'), not String() of this number`,
};

/** The rule a number breaks in a text field that takes no numbers. */
const numberInText = (n: number) =>
	Math.abs(n) > Number.MAX_SAFE_INTEGER ? RULES.inexact(n) : RULES.text;

/** An integer beyond what a number holds exactly (|n| > 2^53 - 1), as JSON.parse gives it. */
export const inexactInteger = fc
	.tuple(fc.double({ min: 2 ** 53, max: Number.MAX_VALUE, noNaN: true }), fc.boolean())
	.map(([n, negative]) => (negative ? -n : n));

const asGiven = (arbitrary: fc.Arbitrary<unknown>): fc.Arbitrary<Given> =>
	arbitrary.map((value) => ({ given: value, sent: value }));

/** Whitespace JavaScript's trim() removes, as a CRM cell or an LLM may produce it. */
const WHITESPACE = [' ', '\t', '\n', '\r', '\u00a0', '\u2003', '\u2028', '\u3000', '\ufeff'];
export const blank = fc
	.array(fc.constantFrom(...WHITESPACE), { minLength: 1, maxLength: 4 })
	.map((s) => s.join(''));

const isBlank = (value: string) => value.trim() === '';

/** Exactly `length` code points, repeating `chunk` (never splitting a surrogate pair). */
const ofLength = (chunk: string, length: number) => {
	const points = Array.from(chunk);
	return Array.from({ length }, (_, i) => points[i % points.length]).join('');
};

const SAMPLES = [
	'Zoë',
	'Ñandú',
	'نعم شكرا',
	'हिन्दी',
	'日本語テキスト',
	'👩🏽‍💻',
	'🇩🇪🇮🇳',
	'e\u0301',
	'"quoted" \\ {{ $json }}',
	'=1+1',
];

/** Non-blank text of any Unicode (no lone surrogates), emoji included; sometimes 10,000 code points. */
export const text: fc.Arbitrary<string> = fc
	.oneof(
		{ weight: 5, arbitrary: fc.string({ unit: 'binary', minLength: 1, maxLength: 30 }) },
		{ weight: 3, arbitrary: fc.string({ unit: 'grapheme', minLength: 1, maxLength: 12 }) },
		{ weight: 2, arbitrary: fc.constantFrom(...SAMPLES) },
		{
			weight: 1,
			arbitrary: fc
				.string({ unit: 'grapheme', minLength: 1, maxLength: 8 })
				.map((chunk) => ofLength(chunk, 10_000)),
		},
	)
	.filter((value) => !isBlank(value));

/** Short non-blank text (ids go in the URL). */
export const shortText = fc
	.string({ unit: 'binary', minLength: 1, maxLength: 24 })
	.filter((value) => !isBlank(value));

/** A number in a text field: the node sends its digits. */
const digits: fc.Arbitrary<Given> = fc
	.nat({ max: Number.MAX_SAFE_INTEGER })
	.map((n) => ({ given: n, sent: String(n) }));

/** Text for a Playground Call or Segment Contact field: numbers are accepted as their digits. */
export const coercibleText = fc.oneof(
	{ weight: 4, arbitrary: asGiven(text) },
	{ weight: 1, arbitrary: digits },
);

const emailPart = fc
	.oneof(
		fc.string({ unit: 'binary', minLength: 1, maxLength: 16 }),
		fc.string({ unit: 'grapheme', minLength: 1, maxLength: 8 }),
	)
	.filter((part) => !/[\s@]/.test(part));

/** local@domain, maybe with spaces around it (checked trimmed, sent as given). */
export const email = fc
	.tuple(emailPart, emailPart, fc.constantFrom('', ' ', '  \t'))
	.map(([local, domain, pad]) => `${pad}${local}@${domain}${pad}`);

const SEPARATORS = [',', ';', '\n', ', ', ' ; ', '\r\n', ',\n'];
const phoneEntry = fc.oneof(
	fc.stringMatching(/^\+[1-9][0-9]{6,14}$/),
	fc.stringMatching(/^\+[0-9]{1,3} \([0-9]{3}\) [0-9]{3}-[0-9]{4}$/),
	fc.string({ unit: 'binary', minLength: 1, maxLength: 20 }),
);

/** Phone Numbers as a list (sent as given, numbers as digits), as text (split on , ; and new lines, trimmed), or one number. */
export const phoneNumbers: fc.Arbitrary<Given> = fc.oneof(
	{
		weight: 3,
		arbitrary: fc
			.array(
				fc.oneof(
					{ weight: 4, arbitrary: asGiven(phoneEntry.filter((p) => !isBlank(p))) },
					{ weight: 1, arbitrary: digits },
				),
				{ minLength: 1, maxLength: 30 },
			)
			.map((entries) => ({ given: entries.map((e) => e.given), sent: entries.map((e) => e.sent) })),
	},
	{
		weight: 3,
		arbitrary: fc
			.array(
				phoneEntry.filter((p) => !/[,;\n]/.test(p) && !isBlank(p)),
				{ minLength: 1, maxLength: 30 },
			)
			.chain((entries) =>
				fc
					.array(fc.constantFrom(...SEPARATORS), {
						minLength: entries.length + 1,
						maxLength: entries.length + 1,
					})
					.map((separators) => ({
						given: entries.reduce(
							(textSoFar, entry, i) => `${textSoFar}${entry}${separators[i + 1]}`,
							separators[0],
						),
						sent: entries.map((entry) => entry.trim()),
					})),
			),
	},
	{ weight: 1, arbitrary: digits.map(({ given, sent }) => ({ given, sent: [sent] })) },
	{
		weight: 1,
		arbitrary: fc
			.array(fc.stringMatching(/^\+[1-9][0-9]{9,12}$/), { minLength: 500, maxLength: 1500 })
			.map((entries) => ({ given: entries.join('\n'), sent: entries })),
	},
);

/** Keys a spreadsheet or an Aggregate node adds to each row; the node drops them. */
const extraKeys = fc.dictionary(
	fc
		.string({ minLength: 1, maxLength: 12 })
		.filter((key) => key !== 'question' && key !== 'answer'),
	fc.jsonValue({ maxDepth: 1 }),
	{ maxKeys: 3, noNullPrototype: true },
);

const pair = fc.record({ question: text, answer: text });
const shortPair = fc.record({ question: shortText, answer: shortText });

/** Q&A pairs: a few, or many; as given (extra keys included) and as sent. */
export const pairs = (extras: boolean): fc.Arbitrary<Given> =>
	fc
		.oneof(
			{ weight: 5, arbitrary: fc.array(pair, { minLength: 1, maxLength: 8 }) },
			{ weight: 1, arbitrary: fc.array(shortPair, { minLength: 200, maxLength: 600 }) },
		)
		.chain((list) =>
			(extras
				? fc.array(extraKeys, { minLength: list.length, maxLength: list.length })
				: fc.constant([])
			).map((more) => ({
				given: list.map((entry, i) => ({ ...(more[i] ?? {}), ...entry })),
				sent: list,
			})),
		);

export const knowledgeBaseLanguage = fc.constantFrom(...KNOWLEDGE_BASE_LANGUAGES);
export const seededKnowledgeBaseId = fc.constantFrom(...Object.values(SEEDED_KNOWLEDGE_BASE_IDS));

/** An optional Segment Contact field: absent, empty or only whitespace (each left out), or a value. */
export const optional = (value: fc.Arbitrary<Given>): fc.Arbitrary<Given | undefined> =>
	fc.oneof(
		fc.constant(undefined),
		fc.constantFrom<Given>({ given: '', sent: undefined }, { given: null, sent: undefined }),
		blank.map((given): Given => ({ given, sent: undefined })),
		value,
	);

// ---------------------------------------------------------------- defects

const object = fc.dictionary(fc.string({ maxLength: 6 }), fc.jsonValue({ maxDepth: 1 }), {
	maxKeys: 3,
	noNullPrototype: true,
});

/** Values that are no text at all: booleans, lists, objects. */
export const notText = fc.oneof(
	fc.boolean(),
	fc.array(fc.jsonValue({ maxDepth: 1 }), { maxLength: 3 }),
	object,
);

const realisticPhone = fc.stringMatching(/^\+[1-9][0-9]{6,12}$/);

const finiteNumber = fc.oneof(fc.integer(), fc.double({ noNaN: true, noDefaultInfinity: true }));

const missing = fc.constant<Defect>({ missing: true, rule: RULES.required });

/** A required text field. Numbers are text in Playground Call and Segment Contact, not in knowledge bases. */
export const textDefect = (numbersAreText: boolean): fc.Arbitrary<Defect> =>
	fc.oneof(
		missing,
		fc.constantFrom<Defect>(
			{ value: null, rule: RULES.required },
			{ value: '', rule: RULES.required },
		),
		blank.map((value) => ({ value, rule: RULES.blank })),
		notText.map((value) => ({ value, rule: RULES.text })),
		...(numbersAreText
			? []
			: [finiteNumber.map((value) => ({ value, rule: numberInText(value) }))]),
	);

/** Segment Contact's optional text fields (email included: its format is the service's to judge). */
export const optionalTextDefect: fc.Arbitrary<Defect> = notText.map((value) => ({
	value,
	rule: RULES.text,
}));

const separatorsOnly = fc
	.array(fc.constantFrom(...SEPARATORS, ...WHITESPACE), { minLength: 1, maxLength: 6 })
	.map((parts) => parts.join(''));

/** One bad entry at index i of an otherwise valid list. */
const badEntry = fc.oneof(
	fc.constantFrom({ value: null, rule: RULES.required }, { value: '', rule: RULES.required }),
	blank.map((value) => ({ value, rule: RULES.blank })),
	notText.map((value) => ({ value, rule: RULES.text })),
);

export const phoneNumbersDefect: fc.Arbitrary<Defect> = fc.oneof(
	missing,
	fc.constant({ value: null, rule: RULES.required }),
	fc.constantFrom<Defect>({ value: '', rule: RULES.onePhone }, { value: [], rule: RULES.onePhone }),
	separatorsOnly.map((value) => ({ value, rule: RULES.onePhone })),
	fc.oneof(fc.boolean(), object).map((value) => ({ value, rule: RULES.phones })),
	fc
		.tuple(
			fc.array(realisticPhone, { maxLength: 4 }),
			badEntry,
			fc.array(realisticPhone, { maxLength: 3 }),
		)
		.map(([before, bad, after]) => ({
			value: [...before, bad.value, ...after],
			rule: bad.rule,
			at: `[${before.length}]`,
		})),
);

/** Languages the spec knows for assistants but not for knowledge bases, near misses, anything else. */
export const languageDefect: fc.Arbitrary<Defect> = fc.oneof(
	missing,
	fc.constant({ value: null, rule: RULES.required }),
	fc
		.oneof(
			fc.constantFrom(...ASSISTANT_LANGUAGES),
			fc
				.constantFrom(...KNOWLEDGE_BASE_LANGUAGES)
				.chain((code) =>
					fc.constantFrom(
						code.toUpperCase(),
						` ${code}`,
						`${code} `,
						`${code}-US`,
						code === 'en' ? 'English' : code,
					),
				),
			fc.string({ maxLength: 8 }),
			finiteNumber,
			fc.boolean(),
		)
		.filter((value) => !(KNOWLEDGE_BASE_LANGUAGES as readonly unknown[]).includes(value))
		.map((value) => ({ value, rule: RULES.language })),
);

const parsesAsJson = (value: string) => {
	try {
		JSON.parse(value);
		return true;
	} catch {
		return false;
	}
};

const jsonError = (value: string): string => {
	try {
		JSON.parse(value);
		return '';
	} catch (error) {
		return (error as Error).message;
	}
};

/** A value in JSON mode, given parsed or as JSON text (an expression may return either). */
const eitherWay = (value: unknown) => fc.constantFrom(value, JSON.stringify(value));

const validPairs = fc.array(fc.record({ question: shortText, answer: fc.constant('yes') }), {
	minLength: 1,
	maxLength: 4,
});

/** One pair of a valid list broken: not an object, or a half missing or of the wrong type. */
const pairDefect: fc.Arbitrary<Defect> = fc.oneof(
	fc.constant<Defect>({ value: null, rule: RULES.required }),
	fc
		.oneof(fc.string(), finiteNumber, fc.boolean(), fc.array(fc.string(), { maxLength: 2 }))
		.map((value): Defect => ({ value, rule: RULES.pair })),
	fc
		.tuple(fc.constantFrom('question', 'answer'), textDefect(false))
		.map(([half, defect]): Defect => ({ ...defect, at: `.${half}` })),
);

const brokenPair: fc.Arbitrary<Defect> = fc
	.tuple(validPairs, fc.nat(), pairDefect)
	.map(([list, position, defect]) => {
		const index = position % list.length;
		let entry: unknown = defect.value;
		if (defect.at) {
			const half = defect.at.slice(1);
			const copy: Record<string, unknown> = { ...list[index] };
			if (defect.missing) delete copy[half];
			else copy[half] = defect.value;
			entry = copy;
		}
		const broken = list.map((original, i) => (i === index ? entry : original));
		return { value: broken, rule: defect.rule, at: `[${index}]${defect.at ?? ''}` };
	});

/** Questions and Answers (JSON). */
export const pairsJsonDefect: fc.Arbitrary<Defect> = fc.oneof(
	missing,
	fc.constantFrom<Defect>(
		{ value: null, rule: RULES.required },
		{ value: '', rule: RULES.required },
	),
	blank.map((value) => ({ value, rule: RULES.required })),
	fc
		.string({ minLength: 1, maxLength: 20 })
		.filter((value) => !isBlank(value) && !parsesAsJson(value))
		.map((value) => ({
			value,
			rule: `is not valid JSON (${jsonError(value)})`,
			label: 'Questions and Answers (JSON)',
		})),
	fc
		.oneof(
			object,
			finiteNumber,
			fc.boolean(),
			fc.string({ maxLength: 10 }).map((s) => JSON.stringify(s)),
		)
		.chain(eitherWay)
		.filter((value) => !(typeof value === 'string' && (isBlank(value) || !parsesAsJson(value))))
		.map((value) => ({ value, rule: RULES.pairs })),
	brokenPair.chain((defect) => eitherWay(defect.value).map((value) => ({ ...defect, value }))),
);

/** The record id of the update operations (sent as the `id` query parameter). */
export const idDefect: fc.Arbitrary<Defect> = fc.oneof(
	missing,
	fc.constantFrom<Defect>(
		{ value: '', rule: RULES.required },
		{ value: null, rule: RULES.required },
	),
	blank.map((value) => ({ value, rule: RULES.emptyId })),
	notText.map((value) => ({ value, rule: RULES.text })),
);
