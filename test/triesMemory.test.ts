/**
 * The memory of tries (shared/request/triesMemory.ts) under n8n's own Retry On Fail (node
 * settings): each try sends again what the failed try stopped, and nothing an earlier try got
 * answered, nor a call start the service may have received. In n8n's engine, in process, on its
 * production path for declarative nodes, against the simulator over HTTP.
 */
import { useSimulator } from './helpers/simulator';
import { playgroundCallParameters } from './helpers/fixtures';
import { contacts, rows, runAgainst } from './helpers/contactRuns';

const sim = useSimulator();

const CONTACTS = '/api/v1/segment/contact/update';
const run = runAgainst(sim);

describe("n8n's Retry On Fail (node settings)", () => {
	it('each try sends again: a 503 then a success is one good item', async () => {
		sim().failNext({ status: 503, path: CONTACTS });
		const { outputs, error } = await run(contacts({ retryOnFailure: false }), rows(1), {
			retryOnFail: { maxTries: 3, waitBetweenTries: 1 },
		});
		expect(error).toBeUndefined();
		expect(sim().requests.map((r) => [r.method, r.path, r.query.id, r.status])).toEqual([
			['PUT', CONTACTS, 'c-0', 503],
			['PUT', CONTACTS, 'c-0', 200],
		]);
		expect(outputs[0].map((item) => item.json)).toEqual([
			{ id: 'c-0', message: 'Contact updated successfully.' },
		]);
	});

	it('every try re-sends the items the failed try stopped', async () => {
		sim().failNext({ status: 400, path: CONTACTS, body: { message: 'segment is locked' } });
		const { error } = await run(contacts({ retryOnFailure: false, maxConcurrency: 1 }), rows(3), {
			retryOnFail: { maxTries: 2, waitBetweenTries: 1 },
		});
		expect(error).toBeUndefined();
		const statuses = sim().requests.map((r) => `${r.query.id}:${r.status}`);
		expect(statuses).toEqual(['c-0:400', 'c-0:200', 'c-1:200', 'c-2:200']);
	});

	it('the last try fails with its own error, after sending', async () => {
		for (let i = 0; i < 3; i++) sim().failNext({ status: 503, path: CONTACTS });
		const { error } = await run(contacts({ retryOnFailure: false }), rows(1), {
			retryOnFail: { maxTries: 3, waitBetweenTries: 1 },
		});
		expect(error?.message).toBe('The service failed (HTTP 503): Service Unavailable');
		expect(sim().requests).toHaveLength(3);
	});
});

describe("n8n's Retry On Fail sends nothing twice (at most once per execution)", () => {
	it('items an earlier try got answered are not sent again; the refused and the unsent ones are', async () => {
		sim().failNext({
			status: 400,
			path: CONTACTS,
			id: 'c-1',
			body: { message: 'segment is locked' },
		});
		const { outputs, error } = await run(
			contacts({ retryOnFailure: false, maxConcurrency: 1 }),
			rows(3),
			{
				retryOnFail: { maxTries: 2, waitBetweenTries: 1 },
			},
		);
		expect(error).toBeUndefined();
		expect(sim().requests.map((r) => `${r.query.id}:${r.status}`)).toEqual([
			'c-0:200',
			'c-1:400',
			'c-1:200',
			'c-2:200',
		]);
		expect(outputs[0].map((item) => item.json.id)).toEqual(['c-0', 'c-1', 'c-2']);
	});

	it('a call start the service may have received fails again with the same message, without a request', async () => {
		sim().failNext({ status: 0, path: '/api/v1/playground/call' });
		const calls = Array.from({ length: 3 }, (_, i) => ({ json: { phone: `+1415555010${i}` } }));
		const { error } = await run(
			{
				...playgroundCallParameters,
				phoneNumbers: '={{ $json.phone }}',
				options: { maxConcurrency: 1 },
			},
			calls,
			{
				retryOnFail: { maxTries: 3, waitBetweenTries: 1 },
			},
		);
		expect(sim().requests.map((r) => r.body)).toEqual([
			expect.objectContaining({ phone_number: ['+14155550100'] }),
		]);
		expect(error?.message).toMatch(
			/^The connection to http:\/\/127\.0\.0\.1:\d+ was dropped before an answer arrived: the call may have been placed; not sent again$/,
		);
		expect(error?.description).toContain('may have received it');
	});
});
