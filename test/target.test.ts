/**
 * Where a run sends (shared/target.ts) under the credential's Allowed HTTP Request Domains: a
 * Base URL outside the list, or an empty list, sends nothing and fails with n8n's message; a
 * listed host, "All" and "None" send. In n8n's engine, in process, against the simulator.
 */
import { useSimulator } from './helpers/simulator';
import { API_KEY } from './helpers/fixtures';
import { contacts, rows, runAgainst } from './helpers/contactRuns';

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
