/**
 * Odd or hostile answers from the service: HTML pages, empty bodies, malformed JSON, a list
 * that is not a list, a huge list, answers slower than the timeout. Each gives a clear error or
 * a correct result, never a crash or a hang.
 */
import type { INodeParameters } from 'n8n-workflow';
import {
	ASSISTANT_LANGUAGES,
	ASSISTANT_TYPES,
} from '../../nodes/VoiceAssistant/shared/spec/values';
import {
	SEEDED_KNOWLEDGE_BASE_IDS,
	createSimulator,
	defaultAssistants,
	type Simulator,
} from '../simulator';
import {
	knowledgeBaseListParameters,
	playgroundCallParameters,
	segmentContactParameters,
} from '../helpers/fixtures';
import { getManyParameters, run, useSimulator, type Run } from './support';

const API_KEY = 'test-key-hostile';
const sim = useSimulator({ apiKey: API_KEY });
const noRetries = { maxRetries: 0 };

const KB_ID = SEEDED_KNOWLEDGE_BASE_IDS.solarFaq;
const OPERATIONS: Array<[string, INodeParameters]> = [
	['Get Many', getManyParameters],
	['Start call', playgroundCallParameters],
	['Create KB', knowledgeBaseListParameters],
	['Update KB', { ...knowledgeBaseListParameters, operation: 'update', knowledgeBaseId: KB_ID }],
	['Update contact', segmentContactParameters],
];
const UPDATES: Array<[string, INodeParameters, string]> = [
	['Update KB', OPERATIONS[3][1], KB_ID],
	['Update contact', segmentContactParameters, 'contact-42'],
];
const ECHOING: Array<[string, INodeParameters]> = [OPERATIONS[1], OPERATIONS[2]];

const HTML_PAGE =
	'<!DOCTYPE html><html><head><title>Oops</title></head><body><h1>Something went wrong</h1></body></html>';
const JSON_TYPE = { 'content-type': 'application/json; charset=utf-8' };

async function runWith(parameters: INodeParameters, extra: Partial<Run> = {}) {
	return await run(sim(), API_KEY, {
		...extra,
		parameters: { ...parameters, options: noRetries, ...extra.parameters },
	});
}

describe('an HTML page instead of JSON', () => {
	it.each(OPERATIONS)('with 502: %s fails saying so', async (_name, parameters) => {
		sim().failNext({ status: 502, rawBody: HTML_PAGE });
		const { error, outputs } = await runWith(parameters);
		// A POST answered by the service may have acted: it says so.
		expect(error?.message).toMatch(
			/^The service failed \(HTTP 502\): the service answered with an HTML page instead of JSON(: the (call|knowledge base) may have been (placed|created); not sent again)?$/,
		);
		expect(outputs).toEqual([]);
	});

	// A 2xx HTML page (a proxy's login page, a web site at the Base URL) is no success.
	it.each(OPERATIONS)(
		'with 200: %s fails saying it got an HTML page',
		async (_name, parameters) => {
			sim().failNext({ status: 200, rawBody: HTML_PAGE });
			const { error, outputs } = await runWith(parameters);
			expect(error?.message).toMatch(/HTML page/);
			expect(outputs).toEqual([]);
		},
	);
});

describe('an empty body with 200', () => {
	it('Get Many fails clearly', async () => {
		sim().failNext({ status: 200, rawBody: '', headers: JSON_TYPE });
		const { error } = await runWith(getManyParameters);
		expect(error?.message).toBe(
			'The service answered the assistant list with an empty body instead of a list',
		);
		expect(error?.description).toMatch(/Base URL/);
	});

	it.each(UPDATES)('%s outputs the id it updated', async (_name, parameters, id) => {
		for (const answer of [{ status: 200, rawBody: '', headers: JSON_TYPE }, { status: 204 }]) {
			sim().failNext(answer);
			const { error, outputs } = await runWith(parameters);
			expect(error).toBeUndefined();
			expect(outputs[0]).toEqual([{ json: { id }, pairedItem: { item: 0 } }]);
		}
	});

	it.each(ECHOING)(
		'%s outputs an empty item (nothing was echoed) paired with its input',
		async (_name, parameters) => {
			sim().failNext({ status: 200, rawBody: '' });
			const { error, outputs } = await runWith(parameters);
			expect(error).toBeUndefined();
			expect(outputs[0]).toEqual([{ json: {}, pairedItem: { item: 0 } }]);
		},
	);
});

describe('a 2xx answer that is not an object', () => {
	it.each([
		['text', 'Call queued'],
		['a number', 42],
		['a list', ['call-1', 'call-2']],
		['true', true],
	])('%s is output as { response } (Start call), never dropped', async (_name, body) => {
		sim().failNext({ status: 200, body });
		const { error, outputs } = await runWith(playgroundCallParameters);
		expect(error).toBeUndefined();
		expect(outputs[0]).toEqual([{ json: { response: body }, pairedItem: { item: 0 } }]);
	});

	it.each(UPDATES)('%s: next to the id it updated', async (_name, parameters, id) => {
		sim().failNext({ status: 200, rawBody: 'OK', headers: { 'content-type': 'text/plain' } });
		const { outputs } = await runWith(parameters);
		expect(outputs[0]).toEqual([{ json: { id, response: 'OK' }, pairedItem: { item: 0 } }]);
	});
});

describe('malformed JSON', () => {
	// n8n hands the node the raw text when a body does not parse: the list is refused, a write
	// that the service accepted (2xx) is reported as done, with what can be read of the answer.
	const malformed = { status: 200, rawBody: '{"message": "Contact updated",', headers: JSON_TYPE };

	it('from the list endpoint fails clearly', async () => {
		sim().failNext(malformed);
		const { error } = await runWith(getManyParameters);
		expect(error?.message).toBe(
			'The service answered the assistant list with a string instead of a list',
		);
	});

	it.each(UPDATES)(
		'after %s, outputs the id it updated and the text of the answer',
		async (_name, parameters, id) => {
			sim().failNext(malformed);
			const { outputs } = await runWith(parameters);
			expect(outputs[0]).toEqual([
				{ json: { id, response: malformed.rawBody }, pairedItem: { item: 0 } },
			]);
		},
	);

	it('in an error answer, shows what the service said', async () => {
		sim().failNext({ ...malformed, status: 500 });
		const { error } = await runWith(segmentContactParameters);
		expect(error?.message).toBe('The service failed (HTTP 500): {"message": "Contact updated",');
	});
});

describe('a list endpoint that does not answer with a list', () => {
	it.each([
		['an object', { assistants: defaultAssistants() }],
		['a number', 42],
		['a string', 'assistants'],
		['a boolean', true],
	])('%s is refused clearly', async (_name, body) => {
		sim().failNext({ status: 200, body });
		const { error, outputs } = await runWith(getManyParameters);
		expect(error?.message).toMatch(
			/^The service answered the assistant list with .+ instead of a list$/,
		);
		expect(error?.description).toBe(
			'Check that the Base URL in the credential points at the voice assistant service.',
		);
		expect(outputs).toEqual([]);
	});

	// BUG (wording): typeof null is "object", so a `null` list is reported as "an object".
	it('null is called null', async () => {
		sim().failNext({ status: 200, rawBody: 'null', headers: JSON_TYPE });
		const { error } = await runWith(getManyParameters);
		expect(error?.message).toBe(
			'The service answered the assistant list with null instead of a list',
		);
	});

	it('entries that are not assistants are skipped', async () => {
		const [assistant] = defaultAssistants();
		sim().failNext({ status: 200, body: [1, 'x', null, assistant, false] });
		const { error, outputs } = await runWith({ ...getManyParameters, returnAll: true });
		expect(error).toBeUndefined();
		expect(outputs[0].map((item) => item.json.id)).toEqual([assistant._id]);
	});
});

describe('an answer longer than anyone can read', () => {
	it('is cut short in the error message', async () => {
		sim().failNext({ status: 400, body: { message: `too long ${'x'.repeat(100_000)}` } });
		const { error } = await runWith(segmentContactParameters);
		expect(error?.message).toMatch(/^The service rejected the request \(HTTP 400\): too long x+…$/);
		expect(error?.message.length).toBeLessThan(500);
	});
});

describe('answers slower than the timeout', () => {
	const timeout = { requestOptions: { timeout: 200 } };

	it('a read fails with the timeout after its retries, without waiting for the answer', async () => {
		sim().setOptions({ latencyMs: 10_000 });
		const { error } = await runWith(getManyParameters, {
			parameters: { ...timeout, options: { maxRetries: 1, maxRetryWaitSeconds: 1 } },
		});
		expect(error?.message).toBe('The request timed out after 200 ms (after 2 attempts)');
		expect(sim().requests).toHaveLength(2);
		// The run is over while the service still holds both requests: no answer was waited for.
		expect(sim().requests.map((request) => request.outcome)).toEqual(['pending', 'pending']);
	});

	it('a call start is not sent twice and says why', async () => {
		sim().setOptions({ latencyMs: 10_000 });
		const { error } = await runWith(playgroundCallParameters, {
			parameters: { ...timeout, options: {} },
		});
		expect(error?.message).toBe(
			'The request timed out after 200 ms: the call may have been placed; not sent again',
		);
		expect(error?.description).toMatch(/not sent again because the service may have received it/);
		expect(sim().requests).toHaveLength(1);
	});

	it('with Continue On Fail, every slow item fails on its own and the run ends', async () => {
		sim().setOptions({ latencyMs: 10_000 });
		const rows = Array.from({ length: 25 }, (_, i) => ({ json: { id: `c-${i}` } }));
		const { error, outputs } = await runWith(
			{ ...segmentContactParameters, contactId: '={{ $json.id }}' },
			{ items: rows, continueOnFail: true, parameters: timeout },
		);
		expect(error).toBeUndefined();
		expect(outputs[0].map((item) => item.json.error)).toEqual(
			rows.map(() => 'The request timed out after 200 ms'),
		);
		// No item was sent twice, and the run ended while the service still held every request it
		// got. On a starved machine a request can time out before it reaches the service at all (the
		// 200 ms run out before it was written): it is not sent again either.
		const received = sim().requests;
		expect(new Set(received.map((request) => String(request.query.id))).size).toBe(received.length);
		expect(received.map((request) => request.outcome)).toEqual(received.map(() => 'pending'));
	});
});

describe('a huge assistant list (50,000)', () => {
	const COUNT = 50_000;
	// Every field of the spec, with the long texts shortened to keep the test quick.
	const shorten = (value: unknown): unknown => {
		if (typeof value === 'string') return value.slice(0, 12);
		if (Array.isArray(value)) return value.map(shorten);
		if (value && typeof value === 'object')
			return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, shorten(v)]));
		return value;
	};
	const template = shorten(defaultAssistants()[0]) as Record<string, unknown>;
	const assistants = Array.from({ length: COUNT }, (_, i) => ({
		...template,
		_id: `as-${i}`,
		name: `Assistant ${i}`,
		type: ASSISTANT_TYPES[i % ASSISTANT_TYPES.length],
		language: ASSISTANT_LANGUAGES[i % ASSISTANT_LANGUAGES.length],
	}));
	let big: Simulator;

	beforeAll(async () => {
		big = await createSimulator({ apiKey: API_KEY, assistants });
	});
	afterAll(async () => big.close());

	const list = async (parameters: INodeParameters) =>
		await run(big, API_KEY, { parameters: { ...getManyParameters, ...parameters } });

	it('Return All outputs every assistant, in order, from one request', async () => {
		big.reset();
		const { error, outputs } = await list({ returnAll: true });
		expect(error).toBeUndefined();
		expect(outputs[0]).toHaveLength(COUNT);
		expect(outputs[0].map((item) => item.json.id)).toEqual(
			assistants.map((assistant) => assistant._id),
		);
		expect(outputs[0][COUNT - 1]).toEqual({
			json: expect.objectContaining({ id: `as-${COUNT - 1}`, name: `Assistant ${COUNT - 1}` }),
			pairedItem: { item: 0 },
		});
		expect(big.requests).toHaveLength(1);
	}, 60_000);

	it('the Limit and the filters apply to the whole list', async () => {
		expect((await list({})).outputs[0]).toHaveLength(50);
		const german = await list({ returnAll: true, filters: { language: 'de', type: 'inbound' } });
		const expected = assistants
			.filter((a) => a.language === 'de' && a.type === 'inbound')
			.map((a) => a._id);
		expect(expected.length).toBeGreaterThan(0);
		expect(german.outputs[0].map((item) => item.json.id)).toEqual(expected);
	}, 60_000);
});
