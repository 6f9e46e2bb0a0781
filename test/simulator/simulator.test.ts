import { spawn } from 'child_process';
import { once } from 'events';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'fs';
import { tmpdir } from 'os';
import { join } from 'path';
import http from 'http';
import net from 'net';
import { createInterface } from 'readline';

import {
	apiKeyProblem,
	createSimulator,
	requestProblem,
	OPT_OUT_SCRIPT,
	SEEDED_KNOWLEDGE_BASE_IDS,
	type Simulator,
} from './index';
import { freshStart } from '../helpers/simulator';
import { mostAcceptedInWindow } from '../helpers/arrivals';

const KEY = 'secret';
const CONTACT_PATH = '/api/v1/segment/contact/update';
const PLAYGROUND_PATH = '/api/v1/playground/call';
const LIST_PATH = '/api/v1/user/listAssistant';
const KB_CREATE_PATH = '/api/v1/knowledgeBase/create';
const KB_UPDATE_PATH = '/api/v1/knowledgeBase/update';

const playgroundBody = {
	first_name: 'Ada',
	last_name: 'Lovelace',
	email: 'ada@example.com',
	phone_number: ['+15550100'],
	assistant_id: '6650b7c1e4a2f9d3b8c10a01',
	dialer_id: 'dialer-1',
};
const knowledgeBaseBody = {
	title: 'Opening hours',
	language: 'en',
	data: [{ question: 'When are you open?', answer: 'Every weekday from 9 to 5.' }],
};
const contactBody = { first_name: 'Grace', last_name: 'Hopper', phone: '+15550101' };

interface Answer {
	status: number;
	headers: Headers;
	text: string;
	json: any;
}

interface CallOptions {
	body?: unknown;
	rawBody?: string;
	/** null sends no x-api-key header. */
	key?: string | null;
	/** null sends no explicit content-type. */
	contentType?: string | null;
	signal?: AbortSignal;
}

async function call(
	target: Simulator | string,
	method: string,
	path: string,
	options: CallOptions = {},
): Promise<Answer> {
	const base = typeof target === 'string' ? target : target.url;
	const headers: Record<string, string> = {};
	if (options.key !== null) headers['x-api-key'] = options.key ?? KEY;
	const rawBody =
		options.rawBody ?? (options.body === undefined ? undefined : JSON.stringify(options.body));
	if (rawBody !== undefined && options.contentType !== null) {
		headers['content-type'] = options.contentType ?? 'application/json';
	}
	const res = await fetch(base + path, { method, headers, body: rawBody, signal: options.signal });
	const text = await res.text();
	let json: any;
	try {
		json = JSON.parse(text);
	} catch {
		json = undefined;
	}
	return { status: res.status, headers: res.headers, text, json };
}

/** Calls and maps a destroyed socket to status 0. */
async function statusOf(sim: Simulator, method: string, path: string, options?: CallOptions) {
	try {
		return (await call(sim, method, path, options)).status;
	} catch {
		return 0;
	}
}

async function eventually(check: () => boolean, timeoutMs = 5000) {
	const deadline = Date.now() + timeoutMs;
	while (!check()) {
		if (Date.now() > deadline) throw new Error('condition not met in time');
		await new Promise((resolve) => setTimeout(resolve, 10));
	}
}

describe('simulator', () => {
	let sim: Simulator;

	beforeAll(async () => {
		sim = await createSimulator({ apiKey: KEY });
	});
	afterAll(() => sim.close());
	beforeEach(() => {
		sim.setOptions({
			latencyMs: 0,
			rateLimit: null,
			strictRate: null,
			chaos: null,
			throttleFirst: null,
		});
		sim.reset();
	});

	it('has a url without trailing slash', () => {
		expect(sim.url).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
	});

	describe('authentication', () => {
		it.each([
			['missing', null],
			['wrong', 'not-the-key'],
		])('answers 401 to a %s API key and applies nothing', async (_label, key) => {
			const answer = await call(sim, 'PUT', `${CONTACT_PATH}?id=c1`, { key, body: contactBody });
			expect(answer.status).toBe(401);
			expect(answer.json).toEqual({ message: 'Invalid or missing API key' });
			expect(sim.ledger.applied).toHaveLength(0);
			expect(sim.requests[0]).toMatchObject({ status: 401, outcome: 'rejected' });
		});

		it('checks auth before the path', async () => {
			expect((await call(sim, 'GET', '/api/v1/nowhere', { key: null })).status).toBe(401);
		});
	});

	describe('GET /api/v1/user/listAssistant', () => {
		it('returns the seeded assistants with every required field and allowed values', async () => {
			const answer = await call(sim, 'GET', LIST_PATH);
			expect(answer.status).toBe(200);
			expect(answer.headers.get('content-type')).toMatch(/^application\/json/);
			const assistants: any[] = answer.json;
			expect(assistants.length).toBeGreaterThanOrEqual(3);
			expect(assistants.length).toBeLessThanOrEqual(4);

			const languages = [
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
			];
			const tenths = (from: number, to: number) =>
				Array.from(
					{ length: Math.round((to - from) * 10) + 1 },
					(_, i) => Math.round((from + i / 10) * 10) / 10,
				);
			for (const a of assistants) {
				expect(a._id).toMatch(/^[0-9a-f]{24}$/);
				expect(['inbound', 'outbound']).toContain(a.type);
				expect(languages).toContain(a.language);
				for (const field of [
					'name',
					'company_name',
					'accent',
					'goal',
					'start_speech',
					'voice_id',
					'voice_name',
					'script',
					'voice_note',
					'ai_model_id',
					'ai_modal',
					'meeting_note_prompt',
					'call_outcome_prompt',
				]) {
					expect(typeof a[field]).toBe('string');
				}
				expect(typeof a.maximum_time_per_call).toBe('number');
				for (const flag of ['is_voice_note', 'is_filler', 'is_wait_start_speech']) {
					expect(typeof a[flag]).toBe('boolean');
				}
				if (a.is_voice_note) expect(a.voice_note).not.toBe('');
				expect(Object.keys(a.sentiment).sort()).toEqual([
					'general_prompt',
					'negative_prompt',
					'neutral_prompt',
					'positive_prompt',
				]);
				expect(tenths(1, 2)).toContain(a.voice_speed);
				expect(Array.isArray(a.fillers)).toBe(true);
				expect(a.assistant_image).toMatch(
					/^https:\/\/assets\.example\.com\/assistant_profile\/[1345]\.jpeg$/,
				);
				expect(Array.from({ length: 15 }, (_, i) => 600 + i * 100)).toContain(a.sensitivity);
				expect(tenths(0.7, 2)).toContain(a.temperature);
				expect(a.opt_out_script).toBe(OPT_OUT_SCRIPT);
				expect(Number.isInteger(a.utterance_length)).toBe(true);
				expect(a.utterance_length).toBeGreaterThanOrEqual(1);
				expect(a.utterance_length).toBeLessThanOrEqual(10);
			}
			expect(new Set(assistants.map((a) => a.type))).toEqual(new Set(['inbound', 'outbound']));
			expect(new Set(assistants.map((a) => a.language)).size).toBeGreaterThan(1);
			const linked = assistants.filter((a) => a.knowledge_base_Id);
			expect(linked.length).toBeGreaterThan(0);
			const knowledgeBaseIds = Object.keys(sim.data.knowledgeBases);
			for (const a of linked) expect(knowledgeBaseIds).toContain(a.knowledge_base_Id);
		});

		it('records the request, a refused one too', async () => {
			await call(sim, 'GET', `${LIST_PATH}?page=2`);
			expect(sim.requests).toHaveLength(1);
			const [record] = sim.requests;
			expect(record).toMatchObject({
				method: 'GET',
				path: LIST_PATH,
				query: { page: '2' },
				rawBody: '',
				body: undefined,
				status: 400,
				outcome: 'rejected',
			});
			expect(record.headers['x-api-key']).toBe(KEY);
			expect(typeof record.receivedAt).toBe('number');
		});
	});

	describe('POST /api/v1/playground/call', () => {
		it('echoes the six fields and records the call', async () => {
			const answer = await call(sim, 'POST', PLAYGROUND_PATH, { body: playgroundBody });
			expect(answer.status).toBe(200);
			expect(answer.json).toEqual(playgroundBody);
			expect(sim.data.calls[sim.data.calls.length - 1]).toMatchObject(playgroundBody);
			expect(sim.ledger.applied).toEqual([
				{ op: 'playground.call', id: undefined, body: playgroundBody, at: expect.any(Number) },
			]);
			expect(sim.requests[0]).toMatchObject({ body: playgroundBody, outcome: 'applied' });
		});
	});

	describe('knowledge bases', () => {
		it('creates one, answers without an id and stores it under a new id', async () => {
			const answer = await call(sim, 'POST', KB_CREATE_PATH, { body: knowledgeBaseBody });
			expect(answer.status).toBe(200);
			expect(answer.json).toEqual(knowledgeBaseBody);
			const [entry] = sim.ledger.applied;
			expect(entry.op).toBe('knowledgeBase.create');
			expect(entry.createdId).toMatch(/^[0-9a-f]{24}$/);
			expect(sim.data.knowledgeBases[entry.createdId!]).toEqual(knowledgeBaseBody);
		});

		it('accepts an empty data list (the spec sets no minimum)', async () => {
			const answer = await call(sim, 'POST', KB_CREATE_PATH, {
				body: { ...knowledgeBaseBody, data: [] },
			});
			expect(answer.status).toBe(200);
		});

		it('replaces a seeded knowledge base', async () => {
			const id = SEEDED_KNOWLEDGE_BASE_IDS.workshopHours;
			const answer = await call(sim, 'PUT', `${KB_UPDATE_PATH}?id=${id}`, {
				body: knowledgeBaseBody,
			});
			expect(answer.status).toBe(200);
			expect(answer.json).toEqual(knowledgeBaseBody);
			expect(sim.data.knowledgeBases[id]).toEqual(knowledgeBaseBody);
			expect(sim.ledger.applied[0]).toMatchObject({ op: 'knowledgeBase.update', id });
		});

		it('updates a knowledge base created earlier', async () => {
			await call(sim, 'POST', KB_CREATE_PATH, { body: knowledgeBaseBody });
			const id = sim.ledger.applied[0].createdId;
			const changed = { ...knowledgeBaseBody, title: 'Changed' };
			const answer = await call(sim, 'PUT', `${KB_UPDATE_PATH}?id=${id}`, { body: changed });
			expect(answer.status).toBe(200);
			expect(sim.data.knowledgeBases[id!].title).toBe('Changed');
		});

		it('answers 404 to an unknown id and applies nothing', async () => {
			const answer = await call(sim, 'PUT', `${KB_UPDATE_PATH}?id=000000000000000000000000`, {
				body: knowledgeBaseBody,
			});
			expect(answer.status).toBe(404);
			expect(answer.json).toEqual({ message: 'Knowledge base not found' });
			expect(sim.ledger.applied).toHaveLength(0);
		});
	});

	describe('PUT /api/v1/segment/contact/update', () => {
		it('upserts any contact id and confirms', async () => {
			const body = {
				...contactBody,
				email: 'grace@example.com',
				lead_status: 'New',
				job_title: '',
			};
			const answer = await call(sim, 'PUT', `${CONTACT_PATH}?id=crm-42`, { body });
			expect(answer.status).toBe(200);
			expect(answer.json).toEqual({ message: 'Contact updated successfully.' });
			expect(sim.data.contacts['crm-42']).toEqual(body);
			expect(sim.ledger.applied[0]).toMatchObject({
				op: 'segment.contact.update',
				id: 'crm-42',
				body,
			});
		});
	});

	describe('validation', () => {
		const withoutKey = (obj: Record<string, unknown>, key: string) => {
			const copy = { ...obj };
			delete copy[key];
			return copy;
		};
		const cases: Array<[string, string, string, unknown, string]> = [
			['POST', PLAYGROUND_PATH, 'empty object', {}, 'first_name: is required'],
			['POST', PLAYGROUND_PATH, 'array body', [], 'body: must be a JSON object'],
			[
				'POST',
				PLAYGROUND_PATH,
				'empty first_name',
				{ ...playgroundBody, first_name: '' },
				'first_name: must be a non-empty string',
			],
			[
				'POST',
				PLAYGROUND_PATH,
				'numeric last_name',
				{ ...playgroundBody, last_name: 7 },
				'last_name: must be a non-empty string',
			],
			[
				'POST',
				PLAYGROUND_PATH,
				'missing email',
				withoutKey(playgroundBody, 'email'),
				'email: is required',
			],
			[
				'POST',
				PLAYGROUND_PATH,
				'email without @',
				{ ...playgroundBody, email: 'ada' },
				'email: must be a string containing @',
			],
			[
				'POST',
				PLAYGROUND_PATH,
				'missing phone_number',
				withoutKey(playgroundBody, 'phone_number'),
				'phone_number: is required',
			],
			[
				'POST',
				PLAYGROUND_PATH,
				'empty phone_number',
				{ ...playgroundBody, phone_number: [] },
				'phone_number: must be a non-empty array of strings',
			],
			[
				'POST',
				PLAYGROUND_PATH,
				'string phone_number',
				{ ...playgroundBody, phone_number: '+1555' },
				'phone_number: must be a non-empty array of strings',
			],
			[
				'POST',
				PLAYGROUND_PATH,
				'blank phone entry',
				{ ...playgroundBody, phone_number: ['+1555', ''] },
				'phone_number[1]: must be a non-empty string',
			],
			[
				'POST',
				PLAYGROUND_PATH,
				'missing assistant_id',
				withoutKey(playgroundBody, 'assistant_id'),
				'assistant_id: is required',
			],
			[
				'POST',
				PLAYGROUND_PATH,
				'missing dialer_id',
				withoutKey(playgroundBody, 'dialer_id'),
				'dialer_id: is required',
			],
			[
				'POST',
				PLAYGROUND_PATH,
				'unknown key',
				{ ...playgroundBody, extra: 1 },
				'extra: is not an allowed field',
			],
			[
				'POST',
				KB_CREATE_PATH,
				'missing title',
				withoutKey(knowledgeBaseBody, 'title'),
				'title: is required',
			],
			[
				'POST',
				KB_CREATE_PATH,
				'missing language',
				withoutKey(knowledgeBaseBody, 'language'),
				'language: is required',
			],
			[
				'POST',
				KB_CREATE_PATH,
				'language de',
				{ ...knowledgeBaseBody, language: 'de' },
				'language: must be en',
			],
			[
				'POST',
				KB_CREATE_PATH,
				'missing data',
				withoutKey(knowledgeBaseBody, 'data'),
				'data: is required',
			],
			[
				'POST',
				KB_CREATE_PATH,
				'data not an array',
				{ ...knowledgeBaseBody, data: 'x' },
				'data: must be an array of {question, answer} objects',
			],
			[
				'POST',
				KB_CREATE_PATH,
				'data entry not an object',
				{ ...knowledgeBaseBody, data: ['x'] },
				'data[0]: must be an object with question and answer',
			],
			[
				'POST',
				KB_CREATE_PATH,
				'missing answer',
				{ ...knowledgeBaseBody, data: [{ question: 'q' }] },
				'data[0].answer: is required',
			],
			[
				'POST',
				KB_CREATE_PATH,
				'empty question',
				{ ...knowledgeBaseBody, data: [{ question: '', answer: 'a' }] },
				'data[0].question: must be a non-empty string',
			],
			[
				'POST',
				KB_CREATE_PATH,
				'unknown entry key',
				{ ...knowledgeBaseBody, data: [{ question: 'q', answer: 'a', tag: 'x' }] },
				'data[0].tag: is not an allowed field',
			],
			[
				'POST',
				KB_CREATE_PATH,
				'id in body',
				{ ...knowledgeBaseBody, id: 'x' },
				'id: is not an allowed field',
			],
			['PUT', KB_UPDATE_PATH, 'missing id', knowledgeBaseBody, 'id: is required'],
			['PUT', `${KB_UPDATE_PATH}?id=`, 'empty id', knowledgeBaseBody, 'id: is required'],
			[
				'PUT',
				`${KB_UPDATE_PATH}?id=${SEEDED_KNOWLEDGE_BASE_IDS.solarFaq}`,
				'language fr',
				{ ...knowledgeBaseBody, language: 'fr' },
				'language: must be en',
			],
			['PUT', CONTACT_PATH, 'missing id', contactBody, 'id: is required'],
			[
				'PUT',
				`${CONTACT_PATH}?id=c1`,
				'missing phone',
				withoutKey(contactBody, 'phone'),
				'phone: is required',
			],
			[
				'PUT',
				`${CONTACT_PATH}?id=c1`,
				'blank first_name',
				{ ...contactBody, first_name: ' ' },
				'first_name: must be a non-empty string',
			],
			[
				'PUT',
				`${CONTACT_PATH}?id=c1`,
				'missing last_name',
				withoutKey(contactBody, 'last_name'),
				'last_name: is required',
			],
			[
				'PUT',
				`${CONTACT_PATH}?id=c1`,
				'email without @',
				{ ...contactBody, email: 'nope' },
				'email: must be a string containing @',
			],
			[
				'PUT',
				`${CONTACT_PATH}?id=c1`,
				'numeric job_title',
				{ ...contactBody, job_title: 3 },
				'job_title: must be a string',
			],
			[
				'PUT',
				`${CONTACT_PATH}?id=c1`,
				'null lead_status',
				{ ...contactBody, lead_status: null },
				'lead_status: must be a string',
			],
			[
				'PUT',
				`${CONTACT_PATH}?id=c1`,
				'unknown key',
				{ ...contactBody, company: 'ACME' },
				'company: is not an allowed field',
			],
			[
				'PUT',
				`${CONTACT_PATH}?id=c1&dryRun=1`,
				'another query parameter',
				contactBody,
				'dryRun: is not a query parameter of this endpoint',
			],
			[
				'POST',
				`${PLAYGROUND_PATH}?id=c1`,
				'an id query parameter',
				playgroundBody,
				'id: is not a query parameter of this endpoint',
			],
			[
				'GET',
				`${LIST_PATH}?page=2`,
				'a query parameter',
				undefined,
				'page: is not a query parameter of this endpoint',
			],
		];

		it.each(cases)('%s %s rejects %s with 400', async (method, path, _label, body, message) => {
			const answer = await call(sim, method, path, { body });
			expect(answer.status).toBe(400);
			expect(answer.json).toEqual({ message });
			expect(sim.ledger.applied).toHaveLength(0);
			expect(sim.requests[0].outcome).toBe('rejected');
			// The e2e suite reads recorded requests with the same check.
			expect(requestProblem(sim.requests[0])).toEqual({ status: 400, message });
		});

		it('answers 415 to a body that is not declared JSON', async () => {
			const answer = await call(sim, 'POST', PLAYGROUND_PATH, {
				body: playgroundBody,
				contentType: 'text/plain',
			});
			expect(answer.status).toBe(415);
			expect(sim.ledger.applied).toHaveLength(0);
			expect(requestProblem(sim.requests[0])).toEqual({
				status: 415,
				message: 'Content-Type must be application/json',
			});
		});

		it('accepts a charset parameter on the content type', async () => {
			const answer = await call(sim, 'POST', PLAYGROUND_PATH, {
				body: playgroundBody,
				contentType: 'application/json; charset=utf-8',
			});
			expect(answer.status).toBe(200);
		});

		it('answers 400 to malformed JSON', async () => {
			const answer = await call(sim, 'POST', PLAYGROUND_PATH, { rawBody: '{"first_name":' });
			expect(answer.status).toBe(400);
			expect(answer.json).toEqual({ message: 'Malformed JSON body' });
			expect(sim.requests[0].body).toBeUndefined();
		});

		it('answers 400 to an empty body', async () => {
			const answer = await call(sim, 'PUT', `${CONTACT_PATH}?id=c1`, { rawBody: '' });
			expect(answer.status).toBe(400);
			expect(answer.json).toEqual({ message: 'body: must be a JSON object' });
		});

		it('answers 400 to a body sent to an endpoint without one', async () => {
			const answer = await new Promise<{ status: number; text: string }>((resolve, reject) => {
				const request = http.request(
					`${sim.url}${LIST_PATH}`,
					{ method: 'GET', headers: { 'x-api-key': KEY, 'content-length': '2' } },
					(res) => {
						let text = '';
						res.on('data', (chunk) => (text += chunk));
						res.on('end', () => resolve({ status: res.statusCode ?? 0, text }));
					},
				);
				request.on('error', reject);
				request.end('{}');
			});
			expect(answer.status).toBe(400);
			expect(JSON.parse(answer.text)).toEqual({ message: 'body: this endpoint takes none' });
		});

		it('has no problem with a request of each endpoint as the spec asks (the check the e2e suite runs)', async () => {
			const valid: Array<[string, string, unknown]> = [
				['GET', LIST_PATH, undefined],
				['POST', PLAYGROUND_PATH, playgroundBody],
				['POST', KB_CREATE_PATH, knowledgeBaseBody],
				['PUT', `${KB_UPDATE_PATH}?id=${SEEDED_KNOWLEDGE_BASE_IDS.solarFaq}`, knowledgeBaseBody],
				[
					'PUT',
					`${CONTACT_PATH}?id=c1`,
					{ ...contactBody, email: 'grace@example.com', lead_status: '' },
				],
			];
			for (const [method, path, body] of valid) await call(sim, method, path, { body });
			expect(sim.requests.map((request) => request.status)).toEqual([200, 200, 200, 200, 200]);
			for (const request of sim.requests) {
				expect(requestProblem(request)).toBeNull();
				expect(apiKeyProblem(request.headers, KEY)).toBeNull();
			}
			expect(apiKeyProblem(sim.requests[0].headers, 'another key')).toBe(
				'x-api-key: is missing or wrong',
			);
			expect(apiKeyProblem({}, KEY)).toBe('x-api-key: is missing or wrong');
		});

		it('answers 404 to an unknown path and 405 to a wrong method', async () => {
			const unknown = await call(sim, 'GET', '/api/v1/user/listAssistants');
			expect(unknown.status).toBe(404);
			expect(unknown.json).toEqual({ message: 'Not found' });
			const wrongMethod = await call(sim, 'GET', PLAYGROUND_PATH);
			expect(wrongMethod.status).toBe(405);
			expect(wrongMethod.headers.get('allow')).toBe('POST');
		});
	});

	describe('failNext', () => {
		it('answers a canned status once, without applying, then behaves normally', async () => {
			sim.failNext({
				status: 404,
				body: { message: 'Contact not found' },
				method: 'PUT',
				path: CONTACT_PATH,
			});
			const first = await call(sim, 'PUT', `${CONTACT_PATH}?id=c1`, { body: contactBody });
			expect(first.status).toBe(404);
			expect(first.json).toEqual({ message: 'Contact not found' });
			const second = await call(sim, 'PUT', `${CONTACT_PATH}?id=c1`, { body: contactBody });
			expect(second.status).toBe(200);
			expect(sim.ledger.applied).toHaveLength(1);
			expect(sim.requests[0]).toMatchObject({ status: 404, outcome: 'rejected', canned: true });
		});

		it('only matches the given method and path', async () => {
			sim.failNext({ status: 500, method: 'post', path: PLAYGROUND_PATH });
			expect((await call(sim, 'GET', LIST_PATH)).status).toBe(200);
			const failed = await call(sim, 'POST', PLAYGROUND_PATH, { body: playgroundBody });
			expect(failed.status).toBe(500);
			expect(failed.json).toEqual({ message: 'Internal Server Error' });
		});

		it('only matches the given id query parameter', async () => {
			sim.failNext({ status: 409, id: 'c2' });
			expect((await call(sim, 'PUT', `${CONTACT_PATH}?id=c1`, { body: contactBody })).status).toBe(
				200,
			);
			expect((await call(sim, 'PUT', `${CONTACT_PATH}?id=c2`, { body: contactBody })).status).toBe(
				409,
			);
		});

		it('answers before auth and validation, as many times as asked', async () => {
			sim.failNext({ status: 503, headers: { 'Retry-After': '2' }, times: 2 });
			const a = await call(sim, 'GET', '/nowhere', { key: null });
			const b = await call(sim, 'POST', PLAYGROUND_PATH, { body: {} });
			const c = await call(sim, 'GET', LIST_PATH, { key: null });
			expect([a.status, b.status, c.status]).toEqual([503, 503, 401]);
			expect(a.headers.get('retry-after')).toBe('2');
		});

		it('can send a raw non-JSON body', async () => {
			const html = '<html><body><h1>502 Bad Gateway</h1></body></html>';
			sim.failNext({ status: 502, rawBody: html });
			const answer = await call(sim, 'GET', LIST_PATH);
			expect(answer.status).toBe(502);
			expect(answer.text).toBe(html);
			expect(answer.headers.get('content-type')).toMatch(/^text\/html/);
		});

		it('destroys the socket for status 0', async () => {
			sim.failNext({ status: 0 });
			await expect(call(sim, 'GET', LIST_PATH)).rejects.toThrow();
			expect(sim.requests[0]).toMatchObject({ status: 0, outcome: 'reset-before' });
			expect(sim.stats.inFlight).toBe(0);
			expect((await call(sim, 'GET', LIST_PATH)).status).toBe(200);
		});

		it('only matches a body with the given field values', async () => {
			sim.failNext({
				status: 400,
				body: { message: 'Do not call' },
				bodyFields: { email: 'grace@example.com', phone_number: ['+15550100'] },
			});
			expect((await call(sim, 'POST', PLAYGROUND_PATH, { body: playgroundBody })).status).toBe(200);
			const grace = { ...playgroundBody, email: 'grace@example.com' };
			const refused = await call(sim, 'POST', PLAYGROUND_PATH, { body: grace });
			expect(refused.status).toBe(400);
			expect(refused.json).toEqual({ message: 'Do not call' });
			expect((await call(sim, 'POST', PLAYGROUND_PATH, { body: grace })).status).toBe(200);
			expect((await call(sim, 'GET', LIST_PATH)).status).toBe(200);
		});

		it('cuts the connection after applying (afterApplying), once the request is applied', async () => {
			sim.failNext({ status: 0, afterApplying: true, bodyFields: { email: 'grace@example.com' } });
			const grace = { ...playgroundBody, email: 'grace@example.com' };
			// Not applied (invalid, or another body): neither answer uses it up.
			expect(
				(await call(sim, 'POST', PLAYGROUND_PATH, { body: { ...grace, dialer_id: '' } })).status,
			).toBe(400);
			expect((await call(sim, 'POST', PLAYGROUND_PATH, { body: playgroundBody })).status).toBe(200);
			await expect(call(sim, 'POST', PLAYGROUND_PATH, { body: grace })).rejects.toThrow();
			expect(sim.requests[2]).toMatchObject({ status: 0, outcome: 'reset-after', canned: true });
			expect(sim.ledger.applied.map((entry) => (entry.body as { email: string }).email)).toEqual([
				'ada@example.com',
				'grace@example.com',
			]);
			expect((await call(sim, 'POST', PLAYGROUND_PATH, { body: grace })).status).toBe(200);
			expect(sim.stats.inFlight).toBe(0);
		});

		it('rejects an invalid spec', () => {
			expect(() => sim.failNext({ status: 42 })).toThrow(TypeError);
			expect(() => sim.failNext({ status: 500, times: 0 })).toThrow(TypeError);
			expect(() => sim.failNext({ status: 500, afterApplying: 'yes' as never })).toThrow(TypeError);
			expect(() => sim.failNext({ status: 500, bodyFields: ['email'] as never })).toThrow(
				TypeError,
			);
		});
	});

	describe('rate limit', () => {
		it('answers 429 with Retry-After beyond the burst and applies nothing', async () => {
			sim.setOptions({ rateLimit: { ratePerSec: 0.01, burst: 2 } });
			expect((await call(sim, 'GET', LIST_PATH)).status).toBe(200);
			expect((await call(sim, 'GET', LIST_PATH)).status).toBe(200);
			const limited = await call(sim, 'PUT', `${CONTACT_PATH}?id=c1`, { body: contactBody });
			expect(limited.status).toBe(429);
			expect(limited.json).toEqual({ message: 'Too many requests' });
			const retryAfter = limited.headers.get('retry-after');
			expect(retryAfter).toMatch(/^\d+$/);
			expect(Number(retryAfter)).toBeGreaterThanOrEqual(1);
			expect(sim.ledger.applied).toHaveLength(0);
			expect(sim.requests[2]).toMatchObject({ status: 429, outcome: 'throttled' });

			sim.reset(); // refills the bucket
			expect((await call(sim, 'GET', LIST_PATH)).status).toBe(200);
			sim.setOptions({ rateLimit: null });
			for (let i = 0; i < 5; i++) expect((await call(sim, 'GET', LIST_PATH)).status).toBe(200);
		});

		it('does not spend tokens on unauthenticated requests', async () => {
			sim.setOptions({ rateLimit: { ratePerSec: 0.01, burst: 1 } });
			expect((await call(sim, 'GET', LIST_PATH, { key: null })).status).toBe(401);
			expect((await call(sim, 'GET', LIST_PATH)).status).toBe(200);
		});
	});

	describe('throttleFirst', () => {
		it('answers the first requests 429 with Retry-After without applying, then the rest as usual, anew after reset()', async () => {
			sim.setOptions({ throttleFirst: { count: 2, retryAfterSeconds: 3 } });
			// An unauthenticated request is not one of them.
			expect((await call(sim, 'GET', LIST_PATH, { key: null })).status).toBe(401);
			for (const id of ['c1', 'c2']) {
				const throttled = await call(sim, 'PUT', `${CONTACT_PATH}?id=${id}`, { body: contactBody });
				expect(throttled.status).toBe(429);
				expect(throttled.json).toEqual({ message: 'Too many requests' });
				expect(throttled.headers.get('retry-after')).toBe('3');
			}
			expect(sim.ledger.applied).toHaveLength(0);
			for (let i = 0; i < 5; i++) {
				expect(
					(await call(sim, 'PUT', `${CONTACT_PATH}?id=d${i}`, { body: contactBody })).status,
				).toBe(200);
			}
			expect(sim.requests.map((r) => r.outcome)).toEqual([
				'rejected',
				'throttled',
				'throttled',
				...Array(5).fill('applied'),
			]);

			sim.reset(); // counts the first requests anew
			sim.setOptions({ throttleFirst: { count: 1 } }); // Retry-After: 1 by default
			const first = await call(sim, 'GET', LIST_PATH);
			expect(first.status).toBe(429);
			expect(first.headers.get('retry-after')).toBe('1');
			expect((await call(sim, 'GET', LIST_PATH)).status).toBe(200);
			sim.reset();
			expect((await call(sim, 'GET', LIST_PATH)).status).toBe(429);
			sim.setOptions({ throttleFirst: null });
			expect((await call(sim, 'GET', LIST_PATH)).status).toBe(200);
		});

		it('rejects an invalid count or Retry-After', () => {
			expect(() => sim.setOptions({ throttleFirst: { count: 0 } })).toThrow(TypeError);
			expect(() => sim.setOptions({ throttleFirst: { count: 1.5 } })).toThrow(TypeError);
			expect(() => sim.setOptions({ throttleFirst: { count: 1, retryAfterSeconds: -1 } })).toThrow(
				TypeError,
			);
		});
	});

	describe('chaos', () => {
		it('answers 429 or 503 with Retry-After: 1 without applying', async () => {
			sim.setOptions({ chaos: { rate429: 1 } });
			const throttled = await call(sim, 'PUT', `${CONTACT_PATH}?id=c1`, { body: contactBody });
			expect(throttled.status).toBe(429);
			expect(throttled.headers.get('retry-after')).toBe('1');
			sim.setOptions({ chaos: { rate503: 1 } });
			const unavailable = await call(sim, 'PUT', `${CONTACT_PATH}?id=c1`, { body: contactBody });
			expect(unavailable.status).toBe(503);
			expect(unavailable.headers.get('retry-after')).toBe('1');
			expect(sim.ledger.applied).toHaveLength(0);
			expect(sim.requests.map((r) => r.outcome)).toEqual(['throttled', 'throttled']);
		});

		it('resets sockets before or after applying and records which', async () => {
			sim.setOptions({ chaos: { rateReset: 1, seed: 3 }, latencyMs: 5 });
			for (let i = 0; i < 12; i++) {
				expect(await statusOf(sim, 'PUT', `${CONTACT_PATH}?id=r${i}`, { body: contactBody })).toBe(
					0,
				);
			}
			const outcomes = sim.requests.map((r) => r.outcome);
			expect(new Set(outcomes)).toEqual(new Set(['reset-before', 'reset-after']));
			const appliedIds = sim.ledger.applied.map((e) => e.id);
			const resetAfterIds = sim.requests
				.filter((r) => r.outcome === 'reset-after')
				.map((r) => r.query.id);
			expect(appliedIds).toEqual(resetAfterIds);
			expect(sim.requests.every((r) => r.status === 0)).toBe(true);
			expect(sim.stats.inFlight).toBe(0);
		});

		it('is reproducible for a given seed', async () => {
			const chaos = { rate429: 0.3, rate503: 0.2, rateReset: 0.2, seed: 42 };
			const run = async () => {
				const own = await createSimulator({ apiKey: KEY, chaos });
				try {
					const statuses: number[] = [];
					for (let i = 0; i < 30; i++) statuses.push(await statusOf(own, 'GET', LIST_PATH));
					return { statuses, outcomes: own.requests.map((r) => r.outcome) };
				} finally {
					await own.close();
				}
			};
			const first = await run();
			expect(await run()).toEqual(first);
			expect(new Set(first.statuses)).toEqual(new Set([200, 429, 503, 0]));
		});

		it('rejects invalid rates', () => {
			expect(() => sim.setOptions({ chaos: { rate429: 1.5 } })).toThrow(TypeError);
			expect(() => sim.setOptions({ chaos: { rate429: 0.6, rate503: 0.6 } })).toThrow(TypeError);
		});
	});

	describe('ledger', () => {
		it('counts repeated applications by key', async () => {
			for (let i = 0; i < 3; i++)
				await call(sim, 'PUT', `${CONTACT_PATH}?id=dup`, { body: contactBody });
			await call(sim, 'POST', PLAYGROUND_PATH, { body: playgroundBody });
			await call(sim, 'POST', PLAYGROUND_PATH, { body: playgroundBody });
			await call(sim, 'POST', PLAYGROUND_PATH, { body: {} }); // rejected: not counted
			expect(sim.ledger.countsByKey.get('segment.contact.update:dup')).toBe(3);
			expect(sim.ledger.countsByKey.get(`playground.call:${JSON.stringify(playgroundBody)}`)).toBe(
				2,
			);
			expect(sim.ledger.applied).toHaveLength(5);
		});
	});

	describe('stats', () => {
		it('tracks the maximum number of requests in flight across the latency wait', async () => {
			sim.setOptions({ latencyMs: 300 });
			const answers = await Promise.all(
				Array.from({ length: 6 }, () => call(sim, 'GET', LIST_PATH)),
			);
			expect(answers.every((a) => a.status === 200)).toBe(true);
			expect(sim.stats).toEqual({ inFlight: 0, maxInFlight: 6, total: 6 });
		});

		it('still applies a request whose client gave up during the latency wait', async () => {
			sim.setOptions({ latencyMs: 1000 });
			await expect(
				call(sim, 'PUT', `${CONTACT_PATH}?id=gone`, {
					body: contactBody,
					signal: AbortSignal.timeout(150),
				}),
			).rejects.toThrow();
			await eventually(() => sim.stats.inFlight === 0);
			expect(sim.ledger.countsByKey.get('segment.contact.update:gone')).toBe(1);
			expect(sim.requests[0].outcome).toBe('applied');
		});

		it("reset() cuts a request in flight before it is applied: the last test's request lands in no later ledger", async () => {
			sim.setOptions({ latencyMs: 600_000 });
			const pending = statusOf(sim, 'PUT', `${CONTACT_PATH}?id=earlier`, { body: contactBody });
			await eventually(() => sim.stats.inFlight === 1);
			const earlier = sim.requests[0];
			sim.reset();
			expect(await pending).toBe(0);
			expect(earlier).toMatchObject({ status: 0, outcome: 'reset-before' });
			expect(sim.requests).toEqual([]);
			expect(sim.ledger.applied).toEqual([]);
			expect(sim.stats.inFlight).toBe(0);
		});

		it('freshStart: a request written before it, not read yet by the simulator, is not counted after it', async () => {
			const socket = net.connect(Number(new URL(sim.url).port), '127.0.0.1');
			await once(socket, 'connect');
			const body = JSON.stringify(contactBody);
			// Written to the kernel at once; the simulator reads it in a later poll phase of the loop.
			socket.write(
				`PUT ${CONTACT_PATH}?id=unread HTTP/1.1\r\nhost: 127.0.0.1\r\nx-api-key: ${KEY}\r\n` +
					`content-type: application/json\r\ncontent-length: ${body.length}\r\n\r\n${body}`,
			);
			await freshStart(sim);
			// The simulator cuts it (reset() after it was read), or answers it (read after reset()).
			await Promise.race([once(socket, 'close'), once(socket, 'data')]);
			socket.destroy();
			expect(sim.requests).toEqual([]);
			expect(sim.ledger.applied).toEqual([]);
		});

		it('closes promptly during a latency wait without applying', async () => {
			// Ten minutes of latency: close() waiting for it would fail the test by its timeout.
			const own = await createSimulator({ apiKey: KEY, latencyMs: 600_000 });
			const pending = statusOf(own, 'PUT', `${CONTACT_PATH}?id=late`, { body: contactBody });
			await eventually(() => own.stats.inFlight === 1);
			await own.close();
			expect(await pending).toBe(0);
			expect(own.requests[0]).toMatchObject({ status: 0, outcome: 'reset-before' });
			expect(own.ledger.applied).toHaveLength(0);
			expect(own.stats.inFlight).toBe(0);
		});
	});

	describe('control endpoints', () => {
		const control = async (method: string, path: string, body?: unknown) =>
			call(sim, method, `/__sim${path}`, { key: null, body });

		it('report requests, ledger and stats without recording themselves', async () => {
			await call(sim, 'PUT', `${CONTACT_PATH}?id=ctl`, { body: contactBody });
			const requests = await control('GET', '/requests');
			expect(requests.status).toBe(200);
			expect(requests.json).toHaveLength(1);
			expect(requests.json[0]).toMatchObject({
				path: CONTACT_PATH,
				status: 200,
				body: contactBody,
			});
			const ledger = await control('GET', '/ledger');
			expect(ledger.json.countsByKey).toEqual({ 'segment.contact.update:ctl': 1 });
			expect(ledger.json.applied[0]).toMatchObject({ op: 'segment.contact.update', id: 'ctl' });
			const stats = await control('GET', '/stats');
			expect(stats.json).toEqual({ inFlight: 0, maxInFlight: 1, total: 1 });
			expect((await control('GET', '/data')).json.contacts.ctl).toEqual(contactBody);
			expect(sim.requests).toHaveLength(1);
		});

		it('queue failures, change options and reset', async () => {
			expect(
				(await control('POST', '/fail-next', { status: 429, headers: { 'Retry-After': '3' } }))
					.status,
			).toBe(200);
			const failed = await call(sim, 'GET', LIST_PATH);
			expect(failed.status).toBe(429);
			expect(failed.headers.get('retry-after')).toBe('3');

			await control('POST', '/options', { rateLimit: { ratePerSec: 0.01, burst: 1 } });
			expect((await call(sim, 'GET', LIST_PATH)).status).toBe(200);
			expect((await call(sim, 'GET', LIST_PATH)).status).toBe(429);
			await control('POST', '/options', { rateLimit: null });
			expect((await call(sim, 'GET', LIST_PATH)).status).toBe(200);

			expect((await control('POST', '/reset')).status).toBe(200);
			expect(sim.requests).toHaveLength(0);
		});

		it('set the strict rate, refuse a bad one and switch it off', async () => {
			const set = await control('POST', '/options', {
				strictRate: { perSecond: 1, windowMs: 600_000 },
			});
			expect(set.status).toBe(200);
			expect((await call(sim, 'GET', LIST_PATH)).status).toBe(200);
			const refused = await call(sim, 'GET', LIST_PATH);
			expect(refused.status).toBe(429);
			// The oldest leaves the ten-minute window in a little under 600 s.
			expect(Number(refused.headers.get('retry-after'))).toBeGreaterThan(500);
			const bad = await control('POST', '/options', { strictRate: { perSecond: 2.5 } });
			expect(bad.status).toBe(400);
			expect(bad.json.message).toMatch(/^strictRate\.perSecond/);
			expect((await call(sim, 'GET', LIST_PATH)).status).toBe(429); // the mode it had
			await control('POST', '/options', { strictRate: null });
			expect((await call(sim, 'GET', LIST_PATH)).status).toBe(200);
		});

		it('answer 400 to bad commands and 404 to unknown ones', async () => {
			expect((await control('POST', '/options', { chaos: { rate429: 2 } })).status).toBe(400);
			expect((await control('POST', '/fail-next', { status: 'x' })).status).toBe(400);
			expect((await call(sim, 'POST', '/__sim/options', { key: null, rawBody: '{' })).status).toBe(
				400,
			);
			expect((await control('GET', '/nothing')).status).toBe(404);
		});
	});
});

describe('strict rate (strictRate)', () => {
	// The simulator's monotonic clock is the test's: time moves only when a test moves it, so
	// what is asserted about the window holds however busy the machine is.
	const T0 = 1_000_000;
	let time = T0;
	let sim: Simulator;
	beforeAll(async () => {
		sim = await createSimulator({ apiKey: KEY, now: () => time });
	});
	afterAll(() => sim.close());
	beforeEach(() => {
		time = T0;
		sim.setOptions({ strictRate: null, statedCount: null, rateLimit: null, throttleFirst: null });
		sim.reset();
	});

	const put = (id: string, key?: string | null) =>
		call(sim, 'PUT', `${CONTACT_PATH}?id=${id}`, { body: contactBody, key });
	const appliedIds = () => sim.ledger.applied.map((entry) => entry.id);

	it('accepts N at once, then answers the next 429 with Retry-After 1, without applying it', async () => {
		sim.setOptions({ strictRate: { perSecond: 3 } });
		const first = await Promise.all(['a', 'b', 'c'].map((id) => put(id)));
		expect(first.map((answer) => answer.status)).toEqual([200, 200, 200]);
		const refused = await put('d');
		expect(refused.status).toBe(429);
		expect(refused.headers.get('retry-after')).toBe('1');
		expect(refused.json).toEqual({ message: 'Too many requests' });
		expect(appliedIds().sort()).toEqual(['a', 'b', 'c']);
		expect(sim.data.contacts.d).toBeUndefined();
		expect(sim.requests[3]).toMatchObject({
			query: { id: 'd' },
			status: 429,
			outcome: 'throttled',
			arrivedAt: T0,
		});
		expect(mostAcceptedInWindow(sim.requests)).toBe(3);
	});

	it('accepts a request exactly when the oldest accepted one leaves the window, (now − windowMs, now]', async () => {
		sim.setOptions({ strictRate: { perSecond: 2 } });
		const at = async (ms: number, id: string) => {
			time = T0 + ms;
			return (await put(id)).status;
		};
		expect(await at(0, 'a')).toBe(200);
		expect(await at(400, 'b')).toBe(200);
		expect(await at(999.5, 'c')).toBe(429); // a is still in the window
		expect(await at(1000, 'd')).toBe(200); // a leaves it now
		expect(await at(1000, 'e')).toBe(429);
		expect(await at(1400, 'f')).toBe(200); // b leaves it now
		expect(appliedIds()).toEqual(['a', 'b', 'd', 'f']);
		expect(sim.requests.map((request) => request.arrivedAt - T0)).toEqual([
			0, 400, 999.5, 1000, 1000, 1400,
		]);
		expect(mostAcceptedInWindow(sim.requests)).toBe(2);
		// The same arrivals with a window one millisecond longer would be 3 in one.
		expect(mostAcceptedInWindow(sim.requests, 1001)).toBe(3);
	});

	it('counts only accepted requests: refused ones do not extend the window, and Retry-After runs to when the oldest leaves', async () => {
		sim.setOptions({ strictRate: { perSecond: 1, windowMs: 3000 } });
		expect((await put('a')).status).toBe(200);
		const waits: Array<string | null> = [];
		for (const ms of [500, 1000, 2001, 2999.5]) {
			time = T0 + ms;
			const refused = await put(`x${ms}`);
			expect(refused.status).toBe(429);
			waits.push(refused.headers.get('retry-after'));
		}
		// max(1, ceil((T0 + 3000 − now) / 1000)): 2,500 ms, 2,000 ms, 999 ms, 0.5 ms left.
		expect(waits).toEqual(['3', '2', '1', '1']);
		time = T0 + 3000;
		expect((await put('b')).status).toBe(200);
		expect(appliedIds()).toEqual(['a', 'b']);
		expect(mostAcceptedInWindow(sim.requests, 3000)).toBe(1);
	});

	it('counts neither an unauthenticated request nor one throttleFirst answered', async () => {
		sim.setOptions({ strictRate: { perSecond: 1 }, throttleFirst: { count: 1 } });
		expect((await put('a', null)).status).toBe(401);
		expect((await put('b')).status).toBe(429); // throttleFirst's
		expect((await put('c')).status).toBe(200);
		expect((await put('d')).status).toBe(429); // the strict rate's
		expect(appliedIds()).toEqual(['c']);
	});

	it('reset() empties the window, setting it anew starts an empty one, other keys leave it, null switches it off', async () => {
		sim.setOptions({ strictRate: { perSecond: 1 } });
		expect((await put('a')).status).toBe(200);
		expect((await put('b')).status).toBe(429);
		sim.reset();
		expect((await put('c')).status).toBe(200);
		expect((await put('d')).status).toBe(429);
		sim.setOptions({ strictRate: { perSecond: 1 } });
		expect((await put('e')).status).toBe(200);
		sim.setOptions({ latencyMs: 0, rateLimit: null });
		expect((await put('f')).status).toBe(429);
		sim.setOptions({ strictRate: null });
		for (const id of ['g', 'h', 'i']) expect((await put(id)).status).toBe(200);
		expect(appliedIds()).toEqual(['c', 'e', 'g', 'h', 'i']);
	});

	it('with a token bucket too, a request must pass both, and one refused by either is counted by neither', async () => {
		sim.setOptions({ strictRate: { perSecond: 2 }, rateLimit: { ratePerSec: 0.001, burst: 3 } });
		expect((await put('a')).status).toBe(200);
		expect((await put('b')).status).toBe(200);
		const strictRefused = await put('c'); // the window is full, the bucket has a token left
		expect(strictRefused.status).toBe(429);
		expect(strictRefused.headers.get('retry-after')).toBe('1');
		time = T0 + 1000;
		expect((await put('d')).status).toBe(200); // the bucket's third token: c did not take it
		const bucketRefused = await put('e'); // room in the window, none in the bucket
		expect(bucketRefused.status).toBe(429);
		expect(Number(bucketRefused.headers.get('retry-after'))).toBeGreaterThan(1);
		sim.setOptions({ rateLimit: null });
		expect((await put('f')).status).toBe(200); // the window did not count e
		expect((await put('g')).status).toBe(429);
		expect(appliedIds()).toEqual(['a', 'b', 'd', 'f']);
		expect(mostAcceptedInWindow(sim.requests)).toBe(2);
	});

	it.each<[string, unknown, RegExp]>([
		['perSecond 0', { perSecond: 0 }, /perSecond/],
		['a negative perSecond', { perSecond: -2 }, /perSecond/],
		['a fractional perSecond', { perSecond: 1.5 }, /perSecond/],
		['perSecond as a string', { perSecond: '2' }, /perSecond/],
		['an infinite perSecond', { perSecond: Infinity }, /perSecond/],
		['no perSecond', {}, /perSecond/],
		['windowMs 0', { perSecond: 1, windowMs: 0 }, /windowMs/],
		['a negative windowMs', { perSecond: 1, windowMs: -5 }, /windowMs/],
		['an infinite windowMs', { perSecond: 1, windowMs: Infinity }, /windowMs/],
		['windowMs as a string', { perSecond: 1, windowMs: '1000' }, /windowMs/],
	])(
		'refuses %s with a TypeError, keeping the mode it had',
		async (_label, strictRate, message) => {
			sim.setOptions({ strictRate: { perSecond: 1 } });
			expect(() => sim.setOptions({ strictRate: strictRate as never })).toThrow(TypeError);
			expect(() => sim.setOptions({ strictRate: strictRate as never })).toThrow(message);
			expect((await put('a')).status).toBe(200);
			expect((await put('b')).status).toBe(429);
		},
	);

	it('refuses a bad strict rate or clock when created', async () => {
		await expect(createSimulator({ apiKey: KEY, strictRate: { perSecond: 0 } })).rejects.toThrow(
			TypeError,
		);
		await expect(createSimulator({ apiKey: KEY, now: 5 as never })).rejects.toThrow(TypeError);
	});

	it('records arrivedAt on performance.now() by default, between the call and its answer', async () => {
		const own = await createSimulator({ apiKey: KEY, strictRate: { perSecond: 1 } });
		try {
			const before = performance.now();
			expect((await call(own, 'GET', LIST_PATH)).status).toBe(200);
			const after = performance.now();
			expect((await call(own, 'GET', LIST_PATH)).status).toBe(429);
			const [first, second] = own.requests.map((request) => request.arrivedAt);
			expect(first).toBeGreaterThanOrEqual(before);
			expect(first).toBeLessThanOrEqual(after);
			expect(second).toBeGreaterThanOrEqual(first);
		} finally {
			await own.close();
		}
	});

	describe('its windows and its stated count (statedCount)', () => {
		const at = async (ms: number, id: string) => {
			time = T0 + ms;
			return await put(id);
		};
		const header = (answer: Answer, name: string) => answer.headers.get(name);

		it('IETF fields: every window as a policy with its quota and seconds, and on every answer (429 included) what is left of each and when it takes more', async () => {
			sim.setOptions({
				strictRate: { perSecond: 2, perMinute: 3 },
				statedCount: { fields: 'ietf' },
			});
			const first = await at(0, 'a');
			expect(first.status).toBe(200);
			expect(header(first, 'ratelimit-policy')).toBe('"second";q=2;w=1, "minute";q=3;w=60');
			// Counted in both: 1 left of 2, a frees its place in 1 s; 2 left of 3, in 60 s.
			expect(header(first, 'ratelimit')).toBe('"second";r=1;t=1, "minute";r=2;t=60');
			expect(header(await at(300, 'b'), 'ratelimit')).toBe('"second";r=0;t=1, "minute";r=1;t=60');
			const refused = await at(600, 'c');
			expect([refused.status, header(refused, 'retry-after')]).toEqual([429, '1']);
			expect(header(refused, 'ratelimit')).toBe('"second";r=0;t=1, "minute";r=1;t=60');
			// a and b left the second; the minute had one place: d takes it, then the minute is full.
			expect(header(await at(1500, 'd'), 'ratelimit')).toBe('"second";r=1;t=1, "minute";r=0;t=59');
			const minuteFull = await at(2500, 'e');
			expect([minuteFull.status, header(minuteFull, 'retry-after')]).toEqual([429, '58']);
			expect(header(minuteFull, 'ratelimit')).toBe('"second";r=2;t=0, "minute";r=0;t=58');
			expect(sim.ledger.applied.map((entry) => entry.id)).toEqual(['a', 'b', 'd']);
			// A validation error was judged too: it carries the count.
			time = T0 + 70_000;
			const invalid = await call(sim, 'PUT', `${CONTACT_PATH}?id=f`, { body: {} });
			expect([invalid.status, header(invalid, 'ratelimit')]).toEqual([
				400,
				'"second";r=1;t=1, "minute";r=2;t=60',
			]);
		});

		it('fixed windows: counted from zero in each window of the clock, the reset at its end', async () => {
			sim.setOptions({
				strictRate: { perSecond: 2, window: 'fixed' },
				statedCount: { fields: 'ietf' },
			});
			// T0 is a whole second of the clock: windows [T0, T0 + 1000), [T0 + 1000, …).
			expect((await at(100, 'a')).status).toBe(200);
			expect(header(await at(900, 'b'), 'ratelimit')).toBe('"second";r=0;t=1');
			expect((await at(999, 'c')).status).toBe(429);
			// 1 ms later a new window: two more at once, where a sliding window would take none.
			const next = await at(1000, 'd');
			expect([next.status, header(next, 'ratelimit')]).toEqual([200, '"second";r=1;t=1']);
			expect((await at(1001, 'e')).status).toBe(200);
			expect((await at(1999, 'f')).status).toBe(429);
			expect(sim.ledger.applied.map((entry) => entry.id)).toEqual(['a', 'b', 'd', 'e']);
		});

		it.each([
			['seconds to wait', 'seconds'],
			['Unix seconds', 'unix'],
			['an HTTP date', 'date'],
		] as const)(
			'X-RateLimit-* fields, the reset as %s: the second window, or the minute one',
			async (_label, reset) => {
				sim.setOptions({
					strictRate: { perSecond: 5, perMinute: 100 },
					statedCount: { fields: 'x-ratelimit', reset },
				});
				const before = Date.now();
				const answer = await at(0, 'a');
				const after = Date.now();
				expect(header(answer, 'ratelimit')).toBeNull();
				expect([
					header(answer, 'x-ratelimit-limit'),
					header(answer, 'x-ratelimit-remaining'),
				]).toEqual(['5', '4']);
				const stated = header(answer, 'x-ratelimit-reset') as string;
				// The window takes more in 1,000 ms: as said, from the time of day of the answer.
				const inSeconds = (ms: number) => Math.ceil(ms / 1000);
				if (reset === 'seconds') expect(stated).toBe('1');
				else {
					const unix = reset === 'unix' ? Number(stated) : Date.parse(stated) / 1000;
					expect(unix).toBeGreaterThanOrEqual(inSeconds(before + 1000));
					expect(unix).toBeLessThanOrEqual(inSeconds(after + 1000));
					if (reset === 'date')
						expect(stated).toMatch(/^\w{3}, \d\d \w{3} \d{4} \d\d:\d\d:\d\d GMT$/);
				}
				expect(header(answer, 'date')).toMatch(/GMT$/);
				sim.setOptions({ statedCount: { fields: 'x-ratelimit', reset, policy: 'minute' } });
				const minute = await at(10, 'b');
				expect([
					header(minute, 'x-ratelimit-limit'),
					header(minute, 'x-ratelimit-remaining'),
				]).toEqual(['100', '98']);
			},
		);

		it('states nothing without a strict rate, nor once switched off; refuses bad options', async () => {
			sim.setOptions({ statedCount: { fields: 'ietf' } });
			expect(header(await at(0, 'a'), 'ratelimit')).toBeNull();
			sim.setOptions({ strictRate: { perSecond: 5 } });
			expect(header(await at(0, 'b'), 'ratelimit')).toBe('"second";r=4;t=1');
			sim.setOptions({ statedCount: null });
			expect(header(await at(0, 'c'), 'ratelimit')).toBeNull();
			for (const bad of [
				{ fields: 'other' },
				{ fields: 'ietf', reset: 'ms' },
				{ fields: 'x-ratelimit', policy: 'hour' },
			])
				expect(() => sim.setOptions({ statedCount: bad as never })).toThrow(TypeError);
			for (const bad of [
				{ perSecond: 1, perMinute: 0 },
				{ perSecond: 1, perMinute: 2.5 },
				{ perSecond: 1, window: 'rolling' },
			])
				expect(() => sim.setOptions({ strictRate: bad as never })).toThrow(TypeError);
		});
	});
});

describe('data file', () => {
	let dir: string;
	beforeEach(() => {
		dir = mkdtempSync(join(tmpdir(), 'va-sim-'));
	});
	afterEach(() => rmSync(dir, { recursive: true, force: true }));

	it('saves changes soon and on close, and loads them at the next start', async () => {
		const dataFile = join(dir, 'nested', 'data.json');
		const first = await createSimulator({ apiKey: KEY, dataFile });
		const assistants = (await call(first, 'GET', LIST_PATH)).json;
		await call(first, 'POST', KB_CREATE_PATH, { body: knowledgeBaseBody });
		const createdId = first.ledger.applied[0].createdId!;
		await call(first, 'PUT', `${CONTACT_PATH}?id=crm-1`, { body: contactBody });
		await eventually(
			() => existsSync(dataFile) && readFileSync(dataFile, 'utf8').includes('crm-1'),
		);
		await call(first, 'POST', PLAYGROUND_PATH, { body: playgroundBody });
		await first.close();

		const saved = JSON.parse(readFileSync(dataFile, 'utf8'));
		expect(saved.knowledgeBases[createdId]).toEqual(knowledgeBaseBody);
		expect(saved.contacts['crm-1']).toEqual(contactBody);
		expect(saved.calls).toHaveLength(1);

		const second = await createSimulator({ apiKey: KEY, dataFile });
		try {
			expect((await call(second, 'GET', LIST_PATH)).json).toEqual(assistants);
			expect(second.data.contacts['crm-1']).toEqual(contactBody);
			const update = await call(second, 'PUT', `${KB_UPDATE_PATH}?id=${createdId}`, {
				body: { ...knowledgeBaseBody, title: 'Updated' },
			});
			expect(update.status).toBe(200);
		} finally {
			await second.close();
		}
		expect(JSON.parse(readFileSync(dataFile, 'utf8')).knowledgeBases[createdId].title).toBe(
			'Updated',
		);
	});

	it('lets explicit assistants win over the file', async () => {
		const dataFile = join(dir, 'data.json');
		await (await createSimulator({ apiKey: KEY, dataFile })).close();
		const own = await createSimulator({ apiKey: KEY, dataFile, assistants: [{ name: 'Only' }] });
		try {
			expect((await call(own, 'GET', LIST_PATH)).json).toEqual([{ name: 'Only' }]);
		} finally {
			await own.close();
		}
	});

	it('refuses to start on a corrupt file', async () => {
		const dataFile = join(dir, 'data.json');
		writeFileSync(dataFile, '{not json');
		await expect(createSimulator({ apiKey: KEY, dataFile })).rejects.toThrow(/data file/);
	});
});

describe('cli', () => {
	const cli = join(__dirname, 'cli.js');

	it('prints its url, serves the API and saves the data file on SIGTERM', async () => {
		const dir = mkdtempSync(join(tmpdir(), 'va-sim-cli-'));
		const dataFile = join(dir, 'data.json');
		const child = spawn(
			process.execPath,
			[cli, '--port', '0', '--api-key', 'k', '--data-file', dataFile],
			{
				stdio: ['ignore', 'pipe', 'inherit'],
			},
		);
		try {
			const [line] = await once(createInterface({ input: child.stdout! }), 'line');
			const { url } = JSON.parse(line);
			expect(url).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
			const list = await call(url, 'GET', LIST_PATH, { key: 'k' });
			expect(list.status).toBe(200);
			await call(url, 'PUT', `${CONTACT_PATH}?id=cli-1`, { key: 'k', body: contactBody });
			expect((await call(url, 'GET', '/__sim/requests', { key: null })).json).toHaveLength(2);

			const exited = once(child, 'exit');
			child.kill('SIGTERM');
			const [code] = await exited;
			expect(code).toBe(0);
			expect(JSON.parse(readFileSync(dataFile, 'utf8')).contacts['cli-1']).toEqual(contactBody);
		} finally {
			if (child.exitCode === null) child.kill('SIGKILL');
			rmSync(dir, { recursive: true, force: true });
		}
	});

	it('exits with status 2 on bad arguments', async () => {
		const child = spawn(process.execPath, [cli, '--port', '0'], { stdio: 'ignore' });
		const [code] = await once(child, 'exit');
		expect(code).toBe(2);
	});

	it('sets the strict rate from --strict-rate and --strict-window-ms', async () => {
		const args = ['--port', '0', '--api-key', 'k', '--strict-rate', '2'];
		const child = spawn(process.execPath, [cli, ...args, '--strict-window-ms', '600000'], {
			stdio: ['ignore', 'pipe', 'inherit'],
		});
		try {
			const [line] = await once(createInterface({ input: child.stdout! }), 'line');
			const { url } = JSON.parse(line);
			const statuses: number[] = [];
			for (let i = 0; i < 3; i++)
				statuses.push((await call(url, 'GET', LIST_PATH, { key: 'k' })).status);
			expect(statuses).toEqual([200, 200, 429]);
		} finally {
			const exited = once(child, 'exit');
			child.kill('SIGKILL');
			await exited;
		}
	});

	it.each([
		'--strict-rate 0',
		'--strict-rate 1.5',
		'--strict-rate x',
		'--strict-rate 2 --strict-window-ms 0',
		'--strict-window-ms 1000',
	])('exits with status 2 on %s', async (flags) => {
		const args = [cli, '--port', '0', '--api-key', 'k', ...flags.split(' ')];
		const child = spawn(process.execPath, args, { stdio: 'ignore' });
		const [code] = await once(child, 'exit');
		expect(code).toBe(2);
	});
});
