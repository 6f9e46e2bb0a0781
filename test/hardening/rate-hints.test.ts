/**
 * A header is a hint, never a trap (issue 53, item 4), in n8n's engine against the simulator over
 * HTTP: a date-form Retry-After read against the answer's Date however far off n8n's clock is; a
 * Retry-After or a stated count that cannot be meant (a timestamp, a number no date holds, a count
 * of 10^12, a limit of 0, a reset in a year) left out, never a crash or a stall; a stated limit
 * never lifting the credential's Rate Limit; a request the node gave up on keeping its ticket while
 * the service may still count it. The account's pause bound: test/admission.test.ts.
 */
import { realClock, useClock } from '../../nodes/VoiceAssistant/shared/clock';
import { accountAdmissions } from '../../nodes/VoiceAssistant/shared/request/admission';
import { accountOf } from '../../nodes/VoiceAssistant/shared/target';
import { CONTACT_UPDATE_PATH } from '../helpers/fixtures';
import { contacts, rows } from '../helpers/contactRuns';
import { mostInWindow } from '../helpers/arrivals';
import type { INodeParameters } from 'n8n-workflow';
import { runNode } from '../helpers/runNode';
import { useSimulator } from './support';

const KEY = 'test-key-hints';
const sim = useSimulator({ apiKey: KEY });
// One account for the file: each test starts once the last one's is forgotten (a second after
// its last request, unless something paused it).
beforeEach(async () => {
	const until = Date.now() + 5000;
	while (accountAdmissions.has(accountOf(sim().url, KEY)) && Date.now() < until)
		await new Promise((resolve) => setTimeout(resolve, 20));
});
/** Contact updates of `count` rows under On Error: Continue, with these Options and credential fields. */
const send = async (
	options: INodeParameters,
	count: number,
	{ requestOptions, ...credential }: { rateLimit?: number; requestOptions?: INodeParameters } = {},
) =>
	await runNode({
		parameters: { ...contacts(options), ...(requestOptions ? { requestOptions } : {}) },
		items: rows(count),
		credentials: { apiKey: KEY, baseUrl: sim().url, ...credential },
		continueOnFail: true,
	});
const arrivals = () => sim().requests.map((request) => request.arrivedAt);
const errorsOf = (outputs: Array<Array<{ json: Record<string, unknown> }>>): unknown[] =>
	outputs[0].map((item) => item.json.error).filter(Boolean);

/** n8n's time of day `offsetMs` off the service's, for the test. */
async function withClockOff<T>(offsetMs: number, body: () => Promise<T>): Promise<T> {
	useClock({ ...realClock, date: () => Date.now() + offsetMs });
	try {
		return await body();
	} finally {
		useClock(realClock);
	}
}

describe("a date-form Retry-After is read against the answer's Date", () => {
	it.each([
		['60 s behind the service', -60_000],
		['60 s ahead of it', 60_000],
	])(
		'n8n\'s clock %s: "in 2 s" is waited 2 s, one item retried once, no other wait',
		async (_label, offsetMs) => {
			const answeredAt = Math.floor(Date.now() / 1000) * 1000;
			sim().failNext({
				status: 429,
				path: CONTACT_UPDATE_PATH,
				headers: {
					date: new Date(answeredAt).toUTCString(),
					'retry-after': new Date(answeredAt + 2000).toUTCString(),
				},
			});
			const { outputs, error } = await withClockOff(offsetMs, () =>
				send({ maxConcurrency: 1, maxRetryWaitSeconds: 10 }, 1),
			);
			expect(error).toBeUndefined();
			expect(errorsOf(outputs)).toEqual([]);
			const [refused, retried] = arrivals();
			expect(sim().requests).toHaveLength(2);
			// Waited about what the service asked: 2 s from its Date, not 62 s, not 250 ms.
			expect(retried - refused).toBeGreaterThanOrEqual(1500);
			expect(retried - refused).toBeLessThan(4000);
		},
		20_000,
	);
});

describe('a Retry-After that cannot be meant is left out: the item backs off, the account is not paused, nothing fails', () => {
	it.each([
		['a timestamp in ms', '1767225600000'],
		['a number no date holds', '99999999999999'],
		['negative', '-5'],
		['a date in 2050', 'Fri, 25 Nov 2050 12:00:00 GMT'],
		['words', 'soon'],
	])('%s (%s)', async (_label, retryAfter) => {
		sim().failNext({
			status: 429,
			path: CONTACT_UPDATE_PATH,
			headers: { 'retry-after': retryAfter },
		});
		const started = Date.now();
		const { outputs, error } = await send({ maxConcurrency: 1 }, 3);
		expect(error).toBeUndefined();
		expect(errorsOf(outputs)).toEqual([]);
		expect(sim().ledger.applied).toHaveLength(3);
		expect(Date.now() - started).toBeLessThan(5000);
	});
});

describe('a stated count that cannot be meant is left out: no crash, no stall', () => {
	it.each([
		[
			'a remaining count of 10^12',
			{ 'x-ratelimit-limit': '200', 'x-ratelimit-remaining': '1000000000000' },
		],
		[
			'a limit of 0',
			{ 'x-ratelimit-limit': '0', 'x-ratelimit-remaining': '0', 'x-ratelimit-reset': '1' },
		],
		[
			'a reset in a year',
			{
				'x-ratelimit-limit': '5',
				'x-ratelimit-remaining': '0',
				'x-ratelimit-reset': String(365 * 86_400),
			},
		],
		[
			'a reset as a timestamp in ms',
			{
				'x-ratelimit-limit': '5',
				'x-ratelimit-remaining': '0',
				'x-ratelimit-reset': '1767225600000',
			},
		],
		[
			'a policy of quota 0 and window 0',
			{ 'ratelimit-policy': '"a";q=0;w=0', ratelimit: '"a";r=0;t=99999999999' },
		],
		[
			'fields that do not parse',
			{ 'ratelimit-policy': ';;"', ratelimit: '=;=', 'x-ratelimit-limit': 'many' },
		],
	])('%s: every item applied within a few seconds', async (_label, headers) => {
		sim().failNext({ status: 200, body: {}, headers, times: 5, path: CONTACT_UPDATE_PATH });
		const started = Date.now();
		const { outputs, error } = await send({}, 10);
		expect(error).toBeUndefined();
		expect(errorsOf(outputs)).toEqual([]);
		expect(sim().requests).toHaveLength(10);
		expect(Date.now() - started).toBeLessThan(8000);
	});
});

describe("the service's stated limit never lifts the credential's Rate Limit", () => {
	it("a service stating 200 a second: the credential's 2 a second holds, at most 2 arrive in any 1,000 ms", async () => {
		sim().setOptions({ strictRate: { perSecond: 200 }, statedCount: { fields: 'ietf' } });
		try {
			const { error } = await send({}, 6, { rateLimit: 2 });
			expect(error).toBeUndefined();
		} finally {
			sim().setOptions({ strictRate: null, statedCount: null });
		}
		expect(sim().requests[0].status).toBe(200);
		expect(
			mostInWindow(
				arrivals().sort((a, b) => a - b),
				1000,
			),
		).toBeLessThanOrEqual(2);
	}, 20_000);
});

describe('a request whose end the node never saw keeps its ticket as long as the service may still count it', () => {
	it('at 1 a second, a PUT that timed out after 500 ms and reached the service 900 ms after it started: the retry arrives a second after it, not 600 ms', async () => {
		// Seed 310: the first request is counted 897 ms after its body arrived, the second 14 ms.
		sim().setOptions({ arrivalDelay: { maxMs: 1000, seed: 310 } });
		try {
			const { error } = await send({}, 1, { rateLimit: 1, requestOptions: { timeout: 500 } });
			expect(error).toBeUndefined();
		} finally {
			sim().setOptions({ arrivalDelay: null });
		}
		const [timedOut, retried] = arrivals();
		expect(sim().requests).toHaveLength(2);
		expect(retried - timedOut).toBeGreaterThanOrEqual(1000);
	}, 20_000);
});
