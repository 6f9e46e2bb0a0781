/**
 * One pace per service account in this process (shared/request/accountPace.ts), shared by the
 * runs sending to it at the same time: the registry with a fake clock, and two runs in n8n's
 * engine against a rate-limited simulator over HTTP. The gate paced attempts wait at:
 * test/paceGate.test.ts.
 */
import {
	accountPaces,
	joinAccountPace,
	leaveAccountPace,
} from '../nodes/VoiceAssistant/shared/request/accountPace';
import { accountOf } from '../nodes/VoiceAssistant/shared/target';
import { realClock, useClock } from '../nodes/VoiceAssistant/shared/clock';
import { runNode } from './helpers/runNode';
import { useSimulator } from './helpers/simulator';
import { API_KEY, segmentContactParameters } from './helpers/fixtures';

describe('the account pace registry', () => {
	const account = accountOf('https://api.example.com', 'key-1');
	afterEach(() => useClock(realClock));

	it('runs that overlap share the pace of one account; another key or Base URL has its own', () => {
		const [a, b] = [{}, {}];
		const first = joinAccountPace(account, a);
		expect(joinAccountPace(account, b)).toBe(first);
		expect(joinAccountPace(accountOf('https://api.example.com', 'key-2'), {})).not.toBe(first);
		expect(joinAccountPace(accountOf('https://other.example.com', 'key-1'), {})).not.toBe(first);
		leaveAccountPace(first, a);
		expect(joinAccountPace(account, a)).toBe(first); // one run still sends
		leaveAccountPace(first, a);
		leaveAccountPace(first, b);
		expect(joinAccountPace(account, a)).not.toBe(first); // all had left: a later run finds the limit anew
	});

	it('one key per account however it is written: host case, trailing slash, spaces around the key', () => {
		expect(accountOf('https://API.Example.com/', ' key-1 ')).toBe(account);
		expect(accountOf('https://api.example.com/v2', 'key-1')).not.toBe(account);
		expect(account).not.toContain('key-1');
	});

	it('a pace is kept however long its runs are quiet (a long Retry-After, a slow answer) and dropped when the last one leaves', () => {
		let now = 1_000_000;
		useClock({ now: () => now, sleep: realClock.sleep });
		const waiting = {};
		const before = accountPaces.size;
		const held = joinAccountPace(accountOf('https://api.example.com', 'key-3'), waiting);
		held.pacer.rateLimited();
		now += 3_600_000; // an hour without a turn: the member still waits out its Retry-After
		const next = {};
		expect(joinAccountPace(accountOf('https://api.example.com', 'key-3'), next)).toBe(held);
		expect(held.pacer.rate).toBe(1); // paced still, at what was answered before the 429: nothing, so 1 a second
		leaveAccountPace(held, waiting);
		expect(accountPaces.size).toBe(before + 1);
		leaveAccountPace(held, next);
		expect(accountPaces.size).toBe(before);
	});
});

describe('two runs at once against one rate limit (n8n engine, simulator over HTTP)', () => {
	const sim = useSimulator();
	const rows = (prefix: string, count: number) =>
		Array.from({ length: count }, (_, i) => ({ json: { id: `${prefix}-${i}` } }));
	const parameters = { ...segmentContactParameters, contactId: '={{ $json.id }}' };
	const credentials = () => ({ apiKey: API_KEY, baseUrl: sim().url });
	const throttledOf = (prefix: string) =>
		sim().requests.filter((r) => r.status === 429 && String(r.query.id).startsWith(`${prefix}-`))
			.length;
	/** The answers to the run's latest requests since its last 429. */
	const acceptedInARow = (prefix: string) => {
		const answered = sim().requests.filter(
			(r) => r.outcome !== 'pending' && String(r.query.id).startsWith(`${prefix}-`),
		);
		const lastThrottled = answered.map((r) => r.status).lastIndexOf(429);
		return answered.length - 1 - lastThrottled;
	};

	it('a run that starts while another is paced takes turns at that pace instead of bursting into the spent limit', async () => {
		sim().setOptions({ latencyMs: 20, rateLimit: { ratePerSec: 100, burst: 20 } });
		// 400 items, 4 s at the limit: the first run still sends, paced, long after the second one
		// joined its pace, also on a busy machine.
		const first = runNode({ parameters, items: rows('a', 400), credentials: credentials() });
		// The first run has found the limit (its burst of 429s) and paces its requests: the service
		// accepts them again, 20 in a row.
		while (throttledOf('a') < 20 || acceptedInARow('a') < 20)
			await new Promise((resolve) => setTimeout(resolve, 20));
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
