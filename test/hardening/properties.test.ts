/**
 * Property-based: generated invalid input is refused before anything is sent, with the field,
 * the rule and the item; generated valid input reaches the service exactly as documented.
 */
import fc from 'fast-check';
import type { IDataObject } from 'n8n-workflow';
import { CONTACT_FIELDS } from '../../nodes/VoiceAssistant/resources/segmentContact/update';
import { optionalFields } from '../../nodes/VoiceAssistant/shared/spec/fieldTable';
import {
	BODY_OPERATIONS,
	KNOWLEDGE_BASE_FIELDS,
	PLAYGROUND_CALL_FIELDS,
	SCHEMAS,
	SEGMENT_CONTACT_FIELDS,
	breakRow,
	expectedMessage,
	type FieldSpec,
	type OperationSpec,
} from './operations';
import { getManyParameters, recorded, run, sortSent, useSimulator } from './support';
import { RULES, inexactInteger, type Defect } from './arbitraries';

const API_KEY = 'test-key-properties';
const sim = useSimulator({ apiKey: API_KEY });

jest.setTimeout(60_000);

/** A field of the operation and one of its defects. */
const brokenField = (spec: OperationSpec): fc.Arbitrary<{ field: FieldSpec; defect: Defect }> =>
	fc
		.constantFrom(...spec.fields)
		.chain((field) => field.defect.map((defect) => ({ field, defect })));

describe('the generators cover the spec', () => {
	it.each(BODY_OPERATIONS.map((spec) => [spec.name, spec]))(
		'%s: one field spec per schema field',
		(_name, spec) => {
			const schema = SCHEMAS[spec.name];
			const bodyKeys = spec.fields.filter((field) => !field.query).map((field) => field.key);
			expect([...bodyKeys].sort()).toEqual(Object.keys(schema.shape).sort());
		},
	);

	it('valid generators fill every field of each schema, and optional ones only where the schema allows', () => {
		expect(Object.keys(PLAYGROUND_CALL_FIELDS).sort()).toEqual(
			Object.keys(SCHEMAS['Playground Call → Start'].shape).sort(),
		);
		expect(Object.keys(KNOWLEDGE_BASE_FIELDS).sort()).toEqual(
			Object.keys(SCHEMAS['Knowledge Base → Create (JSON)'].shape).sort(),
		);
		expect(Object.keys(SEGMENT_CONTACT_FIELDS).sort()).toEqual(
			Object.keys(SCHEMAS['Segment Contact → Update'].shape).sort(),
		);
		const shape = SCHEMAS['Segment Contact → Update'].shape as Record<
			string,
			{ safeParse(value: unknown): { success: boolean } }
		>;
		const optionalKeys = Object.keys(shape).filter(
			(key) => shape[key].safeParse(undefined).success,
		);
		expect(optionalKeys.sort()).toEqual(optionalFields(CONTACT_FIELDS).sort());
	});
});

describe.each(BODY_OPERATIONS.map((spec) => [spec.name, spec] as const))('%s', (_name, spec) => {
	it('refuses an item with one bad field before sending anything, naming the field, the rule and the item', async () => {
		await fc.assert(
			fc.asyncProperty(
				fc.array(spec.valid, { minLength: 1, maxLength: 4 }),
				fc.nat(),
				brokenField(spec),
				async (rows, position, { field, defect }) => {
					sim().reset();
					const index = position % rows.length;
					const items = rows.map((row, i) => ({
						json: i === index ? breakRow(row.json, field, defect) : row.json,
					}));
					const { error, outputs } = await run(sim(), API_KEY, {
						parameters: spec.parameters,
						items,
					});
					// n8n reports item 0: the bad item's own error, or item 0's saying which item failed first.
					const problem = expectedMessage(field, defect, index);
					expect(error?.message).toBe(
						index === 0 ? problem : `Not sent: item ${index} failed first: ${problem}`,
					);
					expect(error?.context?.itemIndex).toBe(0);
					expect(error?.description).toMatch(
						/^Nothing was sent for this item(\. Problems found:|: item \d+ failed first)/,
					);
					expect(outputs).toEqual([]);
					expect(sim().requests).toHaveLength(0);
				},
			),
			{ numRuns: 45 },
		);
	});

	it('with Continue On Fail, answers each bad item with its error and sends exactly the good ones', async () => {
		await fc.assert(
			fc.asyncProperty(
				fc.array(fc.tuple(spec.valid, fc.option(brokenField(spec), { freq: 2 })), {
					minLength: 1,
					maxLength: 5,
				}),
				async (rows) => {
					sim().reset();
					const items = rows.map(([row, broken]) => ({
						json: broken ? breakRow(row.json, broken.field, broken.defect) : row.json,
					}));
					const { error, outputs } = await run(sim(), API_KEY, {
						parameters: spec.parameters,
						items,
						continueOnFail: true,
					});
					expect(error).toBeUndefined();
					expect(outputs[0].map((item) => item.pairedItem)).toEqual(
						rows.map((_row, i) => ({ item: i })),
					);
					rows.forEach(([row, broken], i) => {
						const expected: IDataObject = broken
							? { error: expectedMessage(broken.field, broken.defect, i) }
							: row.output;
						expect(outputs[0][i].json).toEqual(expected);
					});
					const good = rows.filter(([, broken]) => !broken).map(([row]) => row.sent);
					expect(recorded(sim())).toEqual(sortSent(good));
				},
			),
			{ numRuns: 30 },
		);
	});

	it('sends valid items exactly as given (after the documented coercions) and outputs what the service answered', async () => {
		await fc.assert(
			fc.asyncProperty(fc.array(spec.valid, { minLength: 1, maxLength: 3 }), async (rows) => {
				sim().reset();
				const items = rows.map((row) => ({ json: row.json }));
				const { error, outputs } = await run(sim(), API_KEY, {
					parameters: spec.parameters,
					items,
				});
				expect(error).toBeUndefined();
				expect(sim().requests.every((request) => request.status === 200)).toBe(true);
				expect(recorded(sim())).toEqual(sortSent(rows.map((row) => row.sent)));
				expect(outputs[0].map((item) => item.json)).toEqual(rows.map((row) => row.output));
				expect(outputs[0].map((item) => item.pairedItem)).toEqual(
					rows.map((_row, i) => ({ item: i })),
				);
			}),
			{ numRuns: 30 },
		);
	});
});

describe('a number a text field gets that a number cannot hold exactly (beyond 2^53 - 1)', () => {
	/** Every text field of every operation, the record ids included (a knowledge base's language and pairs are no text). */
	const textFields = BODY_OPERATIONS.flatMap((spec) =>
		spec.fields
			.filter((field) => field.key !== 'language' && field.key !== 'data')
			.map((field) => ({ spec, field })),
	);

	it('in any text field of any operation, the ids included, is refused naming the field, the rule and the fix; nothing is sent', async () => {
		await fc.assert(
			fc.asyncProperty(
				fc
					.constantFrom(...textFields)
					.chain(({ spec, field }) =>
						fc.tuple(fc.constant({ spec, field }), spec.valid, inexactInteger),
					),
				async ([{ spec, field }, row, n]) => {
					sim().reset();
					const json = { ...row.json, [field.key]: n };
					const { error } = await run(sim(), API_KEY, {
						parameters: spec.parameters,
						items: [{ json }],
					});
					// One number given for the Phone Numbers is a list of one.
					const at = field.key === 'phone_number' ? '[0]' : undefined;
					expect(error?.message).toBe(
						expectedMessage(field, { value: n, rule: RULES.inexact(n), at }, 0),
					);
					expect(sim().requests).toHaveLength(0);
				},
			),
			{ numRuns: 40 },
		);
	});
});

describe('a Base URL with a user name or password in it', () => {
	const credentialUrl = fc
		.tuple(
			fc.stringMatching(/^[A-Za-z0-9_~-]{0,10}$/),
			fc.stringMatching(/^[A-Za-z0-9_~-]{12,20}$/),
			fc.constantFrom('user+pass', 'user', 'pass'),
		)
		.map(([user, password, which]) => {
			const name = which === 'pass' ? '' : user || 'u';
			const secret = which === 'user' ? '' : `:${password}`;
			return { password, userinfo: `${name}${secret}` };
		});
	/** Valid items, so that only the Base URL is wrong. */
	const operations = fc.oneof(
		fc.constant({ parameters: getManyParameters, json: {} }),
		fc
			.constantFrom(...BODY_OPERATIONS)
			.chain((spec) => spec.valid.map((row) => ({ parameters: spec.parameters, json: row.json }))),
	);

	it('is refused for every operation, with a clear message that does not repeat it, and nothing is sent', async () => {
		await fc.assert(
			fc.asyncProperty(
				credentialUrl,
				operations,
				async ({ password, userinfo }, { parameters, json }) => {
					sim().reset();
					const baseUrl = sim().url.replace('http://', `http://${userinfo}@`);
					const { error } = await run(sim(), API_KEY, { parameters, baseUrl, items: [{ json }] });
					expect(error?.message).toBe(
						'The credential "Test account" cannot be used: "Base URL" in the credential must not contain a user name or password: put the API key in the API Key field',
					);
					expect(
						`${error?.message} ${error?.description} ${JSON.stringify(error?.context)}`,
					).not.toContain(password);
					expect(sim().requests).toHaveLength(0);
				},
			),
			{ numRuns: 30 },
		);
	});
});
