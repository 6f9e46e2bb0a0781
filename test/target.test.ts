/**
 * Where a run sends (shared/target.ts) under the credential's Allowed HTTP Request Domains (a
 * Base URL outside the list, or an empty list, sends nothing and fails with n8n's message; a
 * listed host, "All" and "None" send), and the credential's Rate Limit as a run reads it (per
 * second or minute; a value that is not a positive number fails naming it, nothing sent). In
 * n8n's engine, in process, against the simulator.
 */
import { useSimulator } from './helpers/simulator';
import { API_KEY } from './helpers/fixtures';
import { contacts, rows, runAgainst } from './helpers/contactRuns';
import { apart } from './helpers/arrivals';

const sim = useSimulator();

const run = runAgainst(sim);

describe("the credential's Allowed HTTP Request Domains", () => {
	const restricted = (allowedDomains: string, mode = 'domains') => ({
		credentials: {
			apiKey: API_KEY,
			baseUrl: sim().url,
			allowedHttpRequestDomains: mode,
			allowedDomains,
		},
	});

	it("a Base URL outside the list: nothing sent, n8n's message", async () => {
		const { error } = await run(contacts(), rows(2), restricted('api.example.com, *.example.org'));
		expect(error?.message).toBe(
			`Domain not allowed: This credential is restricted from accessing ${new URL(sim().url).host}. Only the following domains are allowed: api.example.com, *.example.org`,
		);
		expect(sim().requests).toHaveLength(0);
	});

	it('an empty list: nothing sent', async () => {
		const { error } = await run(contacts(), rows(1), restricted('  '));
		expect(error?.message).toBe(
			'No allowed domains specified. Configure allowed domains or change restriction setting.',
		);
		expect(sim().requests).toHaveLength(0);
	});

	it.each([
		['a listed host', 'api.example.com,127.0.0.1', 'domains'],
		['"None" (it blocks the HTTP Request node, not the credential\'s own node)', '', 'none'],
		['"All"', '', 'all'],
	])('%s: sent', async (_name, allowedDomains, mode) => {
		const { error } = await run(contacts(), rows(1), restricted(allowedDomains, mode));
		expect(error).toBeUndefined();
		expect(sim().requests).toHaveLength(1);
	});
});

describe("the credential's Rate Limit", () => {
	const limited = (rateLimit: unknown, rateLimitUnit?: string) => ({
		credentials: {
			apiKey: API_KEY,
			baseUrl: sim().url,
			rateLimit: rateLimit as number,
			...(rateLimitUnit ? { rateLimitUnit } : {}),
		},
	});

	it('per minute: 60 a minute is one request a second', async () => {
		const { error } = await run(contacts(), rows(2), limited(60, 'minute'));
		expect(error).toBeUndefined();
		const [a, b] = sim().requests.map((request) => request.receivedAt);
		expect(b - a).toBeGreaterThanOrEqual(apart(1010));
	});

	it.each([
		['text an expression gave', 'many', 'not "many"'],
		['a negative number', -5, 'not -5'],
		['an expression that gave nothing', '', 'its expression gave nothing'],
	])('%s: nothing sent, the error names the field', async (_case, rateLimit, why) => {
		const { error } = await run(contacts(), rows(2), limited(rateLimit));
		expect(error?.message).toContain(
			'"Rate Limit" in the credential must be a positive number of requests (0: no limit)',
		);
		expect(error?.message).toContain(why);
		expect(sim().requests).toHaveLength(0);
	});

	it('0 is none: nothing holds the run back', async () => {
		const { error } = await run(contacts(), rows(5), limited(0));
		expect(error).toBeUndefined();
		const times = sim().requests.map((request) => request.receivedAt);
		expect(Math.max(...times) - Math.min(...times)).toBeLessThan(500);
	});
});
