/**
 * The preSend (shared/request/prepareRequest.ts), in n8n's engine in process over HTTP: item 0 of
 * a node run starts a run and the other items join it; each try of n8n's Retry On Fail is a run of
 * its own; an invalid item is refused before anything of the run is sent, or alone under Continue
 * On Fail.
 */
import { useSimulator } from './helpers/simulator';
import { API_KEY, CONTACT_UPDATE_PATH as UPDATE } from './helpers/fixtures';
import { byColumns, namedRows, runAgainst } from './helpers/contactRuns';
import { captureLog, runSummaries } from './helpers/logLines';

const sim = useSimulator();
const run = runAgainst(sim);
const log = captureLog();
beforeEach(() => log.splice(0));

it('item 0 starts a run and the other items join it: one run, one summary, every item sent', async () => {
	const { error, outputs } = await run(byColumns, namedRows(3));
	expect(error).toBeUndefined();
	expect(outputs[0]).toHaveLength(3);
	expect(sim().requests.map((request) => request.query.id)).toEqual([
		'contact-0',
		'contact-1',
		'contact-2',
	]);
	expect(runSummaries(log)).toEqual([expect.stringMatching(/: done: 3 items in /)]);
});

it("each try of n8n's Retry On Fail is a run of its own, started by its item 0", async () => {
	sim().failNext({ status: 500, path: UPDATE });
	const { error } = await run({ ...byColumns, options: { retryOnFailure: false } }, namedRows(1), {
		retryOnFail: { maxTries: 2, waitBetweenTries: 1 },
	});
	expect(error).toBeUndefined();
	expect(sim().requests).toHaveLength(2);
	expect(runSummaries(log)).toEqual([
		expect.stringMatching(/: stopped: 1 items .*1 failed/),
		expect.stringMatching(/: done: 1 items .*1 succeeded/),
	]);
});

describe('an invalid item', () => {
	const rows = () => {
		const items = namedRows(3);
		items[1].json.id = ' ';
		return items;
	};

	it('is refused before anything of the run is sent, naming the field, the rule and the item', async () => {
		const { error } = await run(byColumns, rows());
		expect(sim().requests).toHaveLength(0);
		// n8n reports the first item in input order that did not succeed: item 0, not sent.
		expect(error?.message).toBe(
			'Not sent: item 1 failed first: Invalid input: "Contact ID" must not be empty [item 1]',
		);
	});

	it('fails alone under Continue On Fail, without a request; the others are sent', async () => {
		const { outputs } = await run(byColumns, rows(), { continueOnFail: true });
		expect(sim().requests.map((request) => request.query.id)).toEqual(['contact-0', 'contact-2']);
		expect(outputs[0].map((item) => item.json.error ?? item.json.id)).toEqual([
			'contact-0',
			expect.stringMatching(/^Invalid input: /),
			'contact-2',
		]);
		expect(sim().requests.every((request) => request.headers['x-api-key'] === API_KEY)).toBe(true);
	});
});
