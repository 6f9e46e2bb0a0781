/**
 * Big inputs in one run: a knowledge base of 20,000 pairs, 2,000 contact updates. No timing
 * assertions: the jest timeouts below are the bound.
 */
import { readRequestPolicy } from '../../nodes/VoiceAssistant/shared/requestPolicy';
import { SEEDED_KNOWLEDGE_BASE_IDS } from '../simulator';
import { knowledgeBaseJsonFromItem, run, segmentContactFromItem, useSimulator } from './support';

const API_KEY = 'test-key-big';
const sim = useSimulator({ apiKey: API_KEY });

describe('a knowledge base of 20,000 pairs from JSON', () => {
	const PAIRS = 20_000;
	const data = Array.from({ length: PAIRS }, (_, i) => ({
		question: `Question ${i}: what about ${'détail '.repeat(i % 7)}№${i}?`,
		answer: `Answer ${i} ✓ ${'🙂'.repeat(i % 3)}`,
		row_number: i + 2,
	}));
	const sent = data.map(({ question, answer }) => ({ question, answer }));

	it.each([
		['an Aggregate node (a list)', data],
		['JSON text', JSON.stringify(data)],
	])(
		'from %s: one request, arriving intact',
		async (_name, given) => {
			for (const operation of ['create', 'update'] as const) {
				sim().reset();
				const id = SEEDED_KNOWLEDGE_BASE_IDS.workshopHours;
				const { error, outputs } = await run(sim(), API_KEY, {
					parameters: knowledgeBaseJsonFromItem(operation),
					items: [{ json: { id, title: 'Everything', language: 'en', data: given } }],
				});
				expect(error).toBeUndefined();
				expect(sim().requests).toHaveLength(1);
				expect(sim().requests[0].body).toEqual({ title: 'Everything', language: 'en', data: sent });
				expect(outputs[0]).toHaveLength(1);
				expect(outputs[0][0].json.data).toEqual(sent);
			}
			expect(sim().data.knowledgeBases[SEEDED_KNOWLEDGE_BASE_IDS.workshopHours].data).toHaveLength(
				PAIRS,
			);
		},
		60_000,
	);
});

describe('2,000 contact updates in one run', () => {
	const COUNT = 2_000;
	const rows = Array.from({ length: COUNT }, (_, i) => ({
		json: {
			id: `c-${i}`,
			first_name: `First${i}`,
			last_name: `Last ${i}`,
			phone: `+1415555${String(i).padStart(4, '0')}`,
			...(i % 3 === 0 ? { email: `person${i}@example.com` } : { email: '' }),
		},
	}));

	// Only the email of the optional fields: each expression costs n8n time for every item.
	const additionalFields = Object.fromEntries(
		Object.entries(segmentContactFromItem.additionalFields as Record<string, string>).filter(
			([, value]) => value.includes('$json.email'),
		),
	);
	const manual = { ...segmentContactFromItem, additionalFields };
	const automatic = { resource: 'segmentContact', operation: 'update', mappingMode: 'auto' };

	it.each([
		['mapped field by field', manual],
		['mapped automatically', automatic],
	])(
		'%s: applies each exactly once and outputs them paired, in input order',
		async (_name, parameters) => {
			sim().setOptions({ latencyMs: 2 });
			const { error, outputs } = await run(sim(), API_KEY, { parameters, items: rows });
			expect(error).toBeUndefined();
			expect(outputs[0]).toHaveLength(COUNT);
			outputs[0].forEach((item, i) => {
				expect(item).toEqual({
					json: { id: `c-${i}`, message: 'Contact updated successfully.' },
					pairedItem: { item: i },
				});
			});
			expect(sim().requests).toHaveLength(COUNT);
			expect(sim().ledger.applied).toHaveLength(COUNT);
			expect([...sim().ledger.countsByKey.values()].every((count) => count === 1)).toBe(true);
			expect(sim().ledger.countsByKey.size).toBe(COUNT);
			for (const { json } of rows) {
				const { id, email, ...required } = json;
				expect(sim().data.contacts[id]).toEqual(email ? { ...required, email } : required);
			}
			expect(sim().stats.maxInFlight).toBeLessThanOrEqual(readRequestPolicy({}).maxConcurrency);
		},
		60_000,
	);
});
