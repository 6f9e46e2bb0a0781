import type { INodeParameters } from 'n8n-workflow';
import { useSimulator } from './helpers/simulator';
import {
	CONTACT_UPDATE_PATH as CONTACTS,
	PLAYGROUND_CALL_PATH as CALLS,
	playgroundCallParameters,
} from './helpers/fixtures';
import { contacts, rows, runAgainst } from './helpers/contactRuns';
import { recordItemErrors } from './helpers/itemErrors';
import { useFastClock } from './helpers/fastClock';

const sim = useSimulator();
const itemErrors = recordItemErrors();

const callParameters = (options: INodeParameters = {}): INodeParameters => ({
	...playgroundCallParameters,
	firstName: '={{ $json.name }}',
	options,
});

const run = runAgainst(sim);

describe('requests in flight are bounded across the items of a run', () => {
	it('never more than Max Concurrent Requests', async () => {
		sim().setOptions({ latencyMs: 40 });
		const { outputs } = await run(contacts({ maxConcurrency: 4 }), rows(40));
		expect(outputs[0]).toHaveLength(40);
		expect(sim().stats.maxInFlight).toBe(4);
	});

	it('automatic by default: 32 at first, more while the service keeps up', async () => {
		sim().setOptions({ latencyMs: 40 });
		await run(contacts(), rows(300));
		const inFlightAtStart = sim().requests.filter(
			(r) => r.receivedAt === sim().requests[0].receivedAt,
		).length;
		expect(inFlightAtStart).toBeLessThanOrEqual(32);
		expect(sim().stats.maxInFlight).toBeGreaterThan(32);
	});

	it('automatic, never above the ceiling set in Max Concurrent Requests', async () => {
		sim().setOptions({ latencyMs: 40 });
		await run(contacts({ maxConcurrency: 40 }), rows(300));
		expect(sim().stats.maxInFlight).toBeGreaterThan(32);
		expect(sim().stats.maxInFlight).toBeLessThanOrEqual(40);
	});

	it('a fixed number when it does not adapt', async () => {
		sim().setOptions({ latencyMs: 40 });
		await run(contacts({ adaptiveConcurrency: false, maxConcurrency: 17 }), rows(60));
		expect(sim().stats.maxInFlight).toBe(17);
	});

	it('a Max Concurrent Requests below the UI range (0, from an expression) is 1, not the default', async () => {
		sim().setOptions({ latencyMs: 40 });
		const { outputs } = await run(contacts({ maxConcurrency: '={{ 0 }}' }), rows(12));
		expect(outputs[0]).toHaveLength(12);
		expect(sim().stats.maxInFlight).toBe(1);
	});
});

describe('options that are not numbers', () => {
	it.each([
		['maxConcurrency', 'Max Concurrent Requests'],
		['maxRetries', 'Max Retries'],
		['maxRetryWaitSeconds', 'Max Retry Wait (Seconds)'],
	])('%s = "x" is refused before anything is sent, naming the option', async (name, label) => {
		const { error } = await run(contacts({ [name]: '={{ "x" }}' }), rows(3));
		expect(error?.message).toBe(`Invalid input: "${label}" (Options) must be a number [item 0]`);
		expect(error?.context?.itemIndex).toBe(0);
		expect(sim().requests).toHaveLength(0);
	});
});

describe('retries', () => {
	// The waits between attempts (Retry-After, the floor, the backoff) on a clock 20 times faster:
	// the times below are the node's.
	const clock = useFastClock();

	it('counts Retry-After against Max Retry Wait: within it the item retries, beyond it the item fails at once', async () => {
		sim().failNext({ status: 429, headers: { 'retry-after': '1' }, path: CONTACTS });
		const within = await run(contacts({ maxRetryWaitSeconds: 1 }), rows(1));
		expect(within.error).toBeUndefined();
		expect(sim().requests.map((r) => r.status)).toEqual([429, 200]);

		sim().reset();
		sim().failNext({ status: 429, headers: { 'retry-after': '2' }, path: CONTACTS });
		const beyond = await run(contacts({ maxRetryWaitSeconds: 1 }), rows(1));
		expect(beyond.error?.message).toBe(
			'The service asked to wait 2 s before trying again (HTTP 429, Retry-After), longer than "Max Retry Wait" allows',
		);
		expect(sim().requests.map((r) => r.status)).toEqual([429]);
	});

	it('honours Retry-After before trying again', async () => {
		sim().failNext({ status: 429, headers: { 'retry-after': '1' }, path: CONTACTS });
		const { outputs, error } = await run(contacts(), rows(1));
		expect(error).toBeUndefined();
		expect(outputs[0][0].json).toEqual({ id: 'c-0', message: 'Contact updated successfully.' });
		expect(sim().requests.map((r) => r.status)).toEqual([429, 200]);
		const [first, second] = sim().requests.map((request) => clock().at(request.receivedAt));
		expect(second - first).toBeGreaterThanOrEqual(950);
	});

	it.each([
		['503', { status: 503, headers: { 'retry-after': '0' } }],
		['500', { status: 500, headers: { 'retry-after': '0' } }],
		['a dropped connection', { status: 0 }],
	])('repeats an update after %s', async (_name, failure) => {
		sim().failNext({ ...failure, path: CONTACTS });
		const { outputs, error } = await run(contacts(), rows(1));
		expect(error).toBeUndefined();
		expect(outputs[0][0].json.message).toBe('Contact updated successfully.');
		expect(sim().requests).toHaveLength(2);
		expect(sim().ledger.applied).toHaveLength(1);
	});

	it('repeats a call start after 429: the service did not take it', async () => {
		sim().failNext({ status: 429, headers: { 'retry-after': '0' }, path: CALLS });
		const { error } = await run(callParameters(), [{ json: { name: 'Ada' } }]);
		expect(error).toBeUndefined();
		expect(sim().requests.map((r) => r.status)).toEqual([429, 200]);
		expect(sim().data.calls).toHaveLength(1);
	});

	it.each([
		[
			'503',
			{ status: 503, headers: { 'retry-after': '0' } },
			'The service failed (HTTP 503): Service Unavailable: the call may have been placed; not sent again',
		],
		[
			'a dropped connection',
			{ status: 0 },
			`The connection to ${'URL'} was dropped before an answer arrived: the call may have been placed; not sent again`,
		],
	])(
		'never repeats a call start after %s: it may have rung already',
		async (_name, failure, message) => {
			sim().failNext({ ...failure, path: CALLS });
			const { error } = await run(callParameters(), [{ json: { name: 'Ada' } }]);
			expect(error?.message).toBe(message.replace('URL', sim().url));
			expect(error?.description).toMatch(
				/^It was not sent again because the service may have received it/,
			);
			expect(sim().requests).toHaveLength(1);
		},
	);

	it('a Retry-After of 0 does not retry back to back: the floor between attempts uses up Max Retry Wait', async () => {
		// 1 s of waiting at 250 ms per retry allows 4 retries, whatever Max Retries says (clamped to 50).
		sim().failNext({ status: 503, headers: { 'retry-after': '0' }, times: 60, path: CONTACTS });
		const { error } = await run(contacts({ maxRetries: 100_000, maxRetryWaitSeconds: 1 }), rows(1));
		expect(error?.message).toBe(
			'The service failed (HTTP 503): Service Unavailable (after 5 attempts)',
		);
		expect(sim().requests).toHaveLength(5);
	});

	it('waits out every Retry-After of a 429 or 503, past Max Retries, within Max Retry Wait', async () => {
		sim().failNext({ status: 429, headers: { 'retry-after': '0' }, times: 3, path: CONTACTS });
		sim().failNext({ status: 503, headers: { 'retry-after': '0' }, times: 3, path: CONTACTS });
		const { error, outputs } = await run(contacts({ maxRetries: 1 }), rows(1));
		expect(error).toBeUndefined();
		expect(sim().requests.map((r) => r.status)).toEqual([429, 429, 429, 503, 503, 503, 200]);
		expect(outputs[0][0].json.message).toBe('Contact updated successfully.');
	});

	it('gives up after Max Retries and says how many attempts were made', async () => {
		sim().failNext({ status: 500, times: 10, path: CONTACTS }); // no Retry-After: bounded by Max Retries
		const { error } = await run(contacts({ maxRetries: 2 }), rows(1));
		expect(error?.message).toBe(
			'The service failed (HTTP 500): Internal Server Error (after 3 attempts)',
		);
		expect(sim().requests).toHaveLength(3);
	});

	it('does not retry when retrying is off, nor a 4xx', async () => {
		sim().failNext({ status: 503, headers: { 'retry-after': '0' }, path: CONTACTS });
		await run(contacts({ retryOnFailure: false }), rows(1));
		expect(sim().requests).toHaveLength(1);

		sim().reset();
		sim().failNext({ status: 400, body: { message: 'bad phone' }, path: CONTACTS });
		await run(contacts(), rows(1));
		expect(sim().requests).toHaveLength(1);
	});
});

describe('a failing run stops sending', () => {
	it('without Continue On Fail, queued items are not sent after the first failure', async () => {
		sim().setOptions({ latencyMs: 20 });
		sim().failNext({
			status: 400,
			body: { message: 'segment is locked' },
			path: CONTACTS,
			id: 'c-0',
		});
		const { error } = await run(contacts({ maxConcurrency: 2 }), rows(200));
		expect(error?.message).toBe('The service rejected the request (HTTP 400): segment is locked');
		expect(sim().requests.length).toBeLessThan(10);
	});

	it('each item not sent gets its own error naming the item that failed, and so does the run', async () => {
		// Item 0 waits out a Retry-After (holding its slot) while item 1 is refused.
		sim().failNext({ status: 503, headers: { 'retry-after': '1' }, path: CONTACTS, id: 'c-0' });
		sim().failNext({
			status: 400,
			body: { message: 'segment is locked' },
			path: CONTACTS,
			id: 'c-1',
		});
		const { error, outputs } = await run(contacts({ maxConcurrency: 2 }), rows(4));

		const failure = 'The service rejected the request (HTTP 400): segment is locked';
		const notSent = `Not sent: item 1 failed first: ${failure}`;
		// Item 0 was sent (answered 503) and waited for its retry.
		const notSentAgain = `Not sent again: item 1 failed first: ${failure}`;
		expect(sim().requests.map((request) => [request.query.id, request.status])).toEqual([
			['c-0', 503],
			['c-1', 400],
		]);
		expect(outputs).toEqual([]);
		expect([...itemErrors.entries()].sort(([a], [b]) => a - b)).toEqual([
			[0, expect.objectContaining({ message: notSentAgain, itemIndex: 0 })],
			[1, expect.objectContaining({ message: failure, itemIndex: 1 })],
			[2, expect.objectContaining({ message: notSent, itemIndex: 2 })],
			[3, expect.objectContaining({ message: notSent, itemIndex: 3 })],
		]);
		// n8n reports the first item (in input order) that rejected: here item 0, which says why.
		expect(error?.message).toBe(notSentAgain);
		expect(error?.context?.itemIndex).toBe(0);
		expect(error?.description).toMatch(
			/^This item was sent 1 time \(last answer: HTTP 503\): the service may have received it\. It was not sent again because item 1 failed first/,
		);
	});
});

describe('chaos: nothing lost, no call started twice', () => {
	// The retries after each 429 or 503 wait on a fast clock: what is checked is what arrived.
	useFastClock();
	const chaos = { rate429: 0.3, rate503: 0.05, rateReset: 0.01, seed: 7, retryAfterSeconds: 0 };

	it('applies every one of 300 contact updates', async () => {
		sim().setOptions({ chaos });
		const { outputs, error } = await run(contacts({ maxRetries: 20 }), rows(300));
		expect(error).toBeUndefined();
		expect(outputs[0].filter((item) => item.json.message)).toHaveLength(300);
		const appliedIds = new Set(sim().ledger.applied.map((entry) => entry.id));
		expect(appliedIds.size).toBe(300);
		expect(sim().requests.some((r) => r.outcome === 'throttled')).toBe(true);
	});

	it('starts each of 100 calls at most once; calls that may have rung fail instead of repeating', async () => {
		sim().setOptions({ chaos });
		const names = Array.from({ length: 100 }, (_, i) => ({ json: { name: `Caller${i}` } }));
		const { outputs } = await run(callParameters({ maxRetries: 20 }), names, {
			continueOnFail: true,
		});
		const counts = [...sim().ledger.countsByKey.values()];
		expect(counts.every((count) => count === 1)).toBe(true);
		const succeeded = outputs[0].filter((item) => !item.json.error).length;
		const failed = outputs[0].filter((item) => item.json.error).length;
		expect(succeeded + failed).toBe(100);
		// every failure is a 503 or a dropped connection, which are not repeated for a POST
		const notRepeatable = sim().requests.filter((r) => r.status === 503 || r.status === 0).length;
		expect(failed).toBe(notRepeatable);
		// a dropped connection may have been applied before the drop: such a call started, once
		const dropped = sim().requests.filter((r) => r.status === 0).length;
		expect(sim().data.calls.length).toBeGreaterThanOrEqual(succeeded);
		expect(sim().data.calls.length).toBeLessThanOrEqual(succeeded + dropped);
	});
});
