/**
 * One pace per service account in this process, shared by the runs sending to it at the same
 * time: a registry test with a fake clock, and two runs in n8n's engine against a rate-limited
 * simulator over HTTP.
 */
import { joinServicePace, leaveServicePace, STALE_PACE_MS } from '../nodes/VoiceAssistant/shared/request/servicePace';
import { runNode } from './helpers/runNode';
import { useSimulator } from './helpers/simulator';
import { API_KEY, segmentContactParameters } from './helpers/fixtures';

describe('joinServicePace', () => {
	const account = { root: 'https://api.example.com', apiKey: 'key-1' };

	it('runs that overlap share the pace of one account; another key or Base URL has its own', () => {
		const first = joinServicePace(account);
		const second = joinServicePace({ ...account });
		expect(second).toBe(first);
		expect(joinServicePace({ ...account, apiKey: 'key-2' })).not.toBe(first);
		expect(joinServicePace({ ...account, root: 'https://other.example.com' })).not.toBe(first);
		leaveServicePace(first);
		expect(joinServicePace(account)).toBe(first); // one run still sends
		leaveServicePace(first);
		leaveServicePace(first);
		expect(joinServicePace(account)).not.toBe(first); // all had left: a later run finds the limit anew
	});

	it('a pace idle for a minute is not joined (a run that never ended does not pace later runs)', () => {
		let now = 1_000_000;
		const clock = () => now;
		const stale = joinServicePace({ ...account, apiKey: 'key-3' }, clock);
		now += STALE_PACE_MS - 1;
		expect(joinServicePace({ ...account, apiKey: 'key-3' }, clock)).toBe(stale);
		now += STALE_PACE_MS + 1;
		expect(joinServicePace({ ...account, apiKey: 'key-3' }, clock)).not.toBe(stale);
	});
});

describe('two runs at once against one rate limit (n8n engine, simulator over HTTP)', () => {
	const sim = useSimulator();
	const rows = (prefix: string, count: number) => Array.from({ length: count }, (_, i) => ({ json: { id: `${prefix}-${i}` } }));
	const parameters = { ...segmentContactParameters, contactId: '={{ $json.id }}' };
	const credentials = () => ({ apiKey: API_KEY, baseUrl: sim().url });
	const throttledOf = (prefix: string) =>
		sim().requests.filter((r) => r.status === 429 && String(r.query.id).startsWith(`${prefix}-`)).length;

	it('a run that starts while another is paced takes turns at that pace instead of bursting into the spent limit', async () => {
		sim().setOptions({ latencyMs: 20, rateLimit: { ratePerSec: 100, burst: 20 } });
		const first = runNode({ parameters, items: rows('a', 400), credentials: credentials() });
		// The first run has found the limit (its burst of 429s) and paces its requests.
		while (throttledOf('a') < 20) await new Promise((resolve) => setTimeout(resolve, 20));
		await new Promise((resolve) => setTimeout(resolve, 1000));
		const second = await runNode({ parameters, items: rows('b', 60), credentials: credentials() });
		const { error } = await first;
		expect(error).toBeUndefined();
		expect(second.error).toBeUndefined();
		expect(sim().ledger.applied).toHaveLength(460);
		expect([...sim().ledger.countsByKey.values()].every((count) => count === 1)).toBe(true);
		// Alone, the second run would send 32 at once into a limit the first one spends: most 429.
		expect(throttledOf('b')).toBeLessThan(10);
	}, 60_000);
});
