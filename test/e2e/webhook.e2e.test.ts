/**
 * Zapier-style: another system calls in. examples/webhook-playground-call.json, active in a
 * running `n8n start`, driven over HTTP as a caller would: Webhook (Header Auth) → Playground
 * Call → Start → Respond to Webhook. The caller gets the call as JSON with 200, or the
 * service's refusal with its status and message (never the API key); a bad body gets 400
 * naming the field and nothing is sent; a caller without the header is turned away by n8n.
 * 50 callers at once, the credential's Rate Limit 25 a second, behind a strict service (at most
 * 25 accepted in any second): 50 answers, 50 calls placed, none twice, none answered 429.
 */
import {
	API_KEY,
	MAYA,
	readExample,
	requestedVersions,
	simulatorCredential,
	specProblems,
	useSimulatorProcess,
} from './helpers';
import { useN8n } from './session';
import { poll } from '../../tools/processes';
import { mostAcceptedInWindow } from '../helpers/arrivals';

const EXAMPLE = 'webhook-playground-call.json';
const CALL_PATH = '/api/v1/playground/call';
const HEADER = 'X-Webhook-Token';
const TOKEN = 'caller-token-8d1e4b';
const CONCURRENT = 50;
/** The credential's Rate Limit, and the strict service's. */
const PER_SECOND = 25;

const sim = useSimulatorProcess();
const example = readExample(EXAMPLE);
const webhookPath = example.nodes.find((node) => node.type === 'n8n-nodes-base.webhook')?.parameters
	.path as string;
const headerCredential = example.nodes.find((node) => node.type === 'n8n-nodes-base.webhook')
	?.credentials?.httpHeaderAuth;

const caller = (i: number) => ({
	first_name: `Caller${i}`,
	last_name: 'Zapier',
	email: `caller-${i}@example.com`,
	phone: `+1415556${String(i).padStart(4, '0')}`,
});
/** What the service receives (and echoes) for a caller's body. */
const callOf = (body: ReturnType<typeof caller>) => ({
	first_name: body.first_name,
	last_name: body.last_name,
	email: body.email,
	phone_number: [body.phone],
	assistant_id: MAYA,
	dialer_id: 'dialer-main',
});

describe.each(requestedVersions())('n8n %s', (version) => {
	const n8n = useN8n(version);
	let url: string;

	async function post(body: unknown, headers: Record<string, string> = { [HEADER]: TOKEN }) {
		const response = await fetch(url, {
			method: 'POST',
			headers: { 'content-type': 'application/json', ...headers },
			body: JSON.stringify(body),
		});
		const text = await response.text();
		let json: any;
		try {
			json = JSON.parse(text);
		} catch {
			json = undefined; // not JSON: the test reads `text`
		}
		return { status: response.status, text, json };
	}

	beforeAll(async () => {
		if (!headerCredential)
			throw new Error(`${EXAMPLE} has no Header Auth credential on its webhook`);
		await n8n().saveCredentials([
			{
				...simulatorCredential(sim().url),
				data: { apiKey: API_KEY, baseUrl: sim().url, rateLimit: PER_SECOND },
			},
			{ ...headerCredential, type: 'httpHeaderAuth', data: { name: HEADER, value: TOKEN } },
		]);
		await n8n().api.activate(await n8n().saveWorkflow(example));
		url = `${n8n().url}/webhook/${webhookPath}`;
		// The production webhook answers once n8n has registered it.
		await poll('the production webhook', async () => (await post({}, {})).status !== 404, {
			timeoutMs: 60_000,
			everyMs: 500,
		});
	});

	beforeEach(async () => {
		await sim().reset();
	});

	afterEach(async () => {
		expect((await sim().requests()).flatMap(specProblems)).toEqual([]);
		expect(n8n().log()).not.toContain(API_KEY);
	});

	test('a good call: 200 with the call as JSON, one call placed', async () => {
		const answer = await post(caller(1));
		expect([answer.status, answer.json]).toEqual([200, callOf(caller(1))]);
		const received = await sim().requests();
		expect(received.map((request) => `${request.method} ${request.path}`)).toEqual([
			`POST ${CALL_PATH}`,
		]);
		expect(JSON.parse(received[0].rawBody)).toStrictEqual(callOf(caller(1)));
	});

	test('a caller without the right header is turned away by n8n (403); nothing is sent', async () => {
		for (const headers of [{}, { [HEADER]: 'wrong-token' }] as Array<Record<string, string>>) {
			const answer = await post(caller(2), headers);
			expect(answer.status).toBe(403);
		}
		expect(await sim().requests()).toEqual([]);
	});

	test('a bad payload: 400 naming the field, nothing sent', async () => {
		const noPhone: Partial<ReturnType<typeof caller>> = caller(3);
		delete noPhone.phone;
		const missing = await post(noPhone);
		expect(missing.status).toBe(400);
		expect(missing.json.error).toBe(
			'Invalid input: "phone_number" (Phone Numbers) is required [item 0]',
		);
		const blankName = await post({ ...caller(3), first_name: '  ' });
		expect(blankName.status).toBe(400);
		expect(blankName.json.error).toBe(
			'Invalid input: "first_name" (First Name) must not be blank [item 0]',
		);
		expect(await sim().requests()).toEqual([]);
	});

	test("the service's refusal: its status and message, never the API key", async () => {
		const cases = [
			{
				status: 400,
				body: { message: 'dialer dialer-main is busy' },
				expected: /^The service rejected the request \(HTTP 400\): dialer dialer-main is busy$/,
			},
			{
				status: 401,
				body: { message: `invalid key ${API_KEY}` },
				expected: /^The service refused the API key \(HTTP 401\)/,
			},
			{
				status: 500,
				body: { error: `internal error near ${API_KEY}` },
				expected: /^The service failed \(HTTP 500\): internal error near .*$/,
			},
		];
		for (const [i, refusal] of cases.entries()) {
			await sim().failNext({
				status: refusal.status,
				method: 'POST',
				path: CALL_PATH,
				body: refusal.body,
			});
			const answer = await post(caller(10 + i));
			expect([answer.status, answer.json?.error]).toEqual([
				refusal.status,
				expect.stringMatching(refusal.expected),
			]);
			expect(answer.text).not.toContain(API_KEY);
		}
		// Each refused call was sent once: a call that may have reached the service is never repeated.
		expect((await sim().requests()).map((request) => request.status)).toEqual([400, 401, 500]);
		expect((await sim().ledger()).applied).toEqual([]);
	});

	test(`${CONCURRENT} callers at once, behind a strict ${PER_SECOND} a second: ${CONCURRENT} answers, ${CONCURRENT} calls placed, none twice, none refused, at most ${PER_SECOND} in any second at the service`, async () => {
		const bodies = Array.from({ length: CONCURRENT }, (_, i) => caller(100 + i));
		await sim().setOptions({ strictRate: { perSecond: PER_SECOND } });
		const answers = await Promise.all(bodies.map((body) => post(body))).finally(
			async () => await sim().setOptions({ strictRate: null }),
		);
		const received = await sim().requests();
		expect(received.filter((request) => request.status === 429)).toEqual([]);
		expect(mostAcceptedInWindow(received)).toBeLessThanOrEqual(PER_SECOND);
		expect(answers.map((answer) => answer.status)).toEqual(bodies.map(() => 200));
		expect(answers.map((answer) => answer.json)).toEqual(bodies.map(callOf));

		const ledger = await sim().ledger();
		expect(ledger.applied).toHaveLength(CONCURRENT);
		const phones = ledger.applied.map((entry) => entry.body.phone_number[0]).sort();
		expect(phones).toEqual(bodies.map((body) => body.phone).sort());
		expect(new Set(phones).size).toBe(CONCURRENT);
		expect(await sim().requests()).toHaveLength(CONCURRENT);
	});
});
