/**
 * The failure model (nodes/VoiceAssistant/shared/failureModel.ts) in real n8n on every version
 * claimed, with the packed package: whatever the service answers to a call start after placing it,
 * the call is not placed again, also under n8n's Retry On Fail, and the error says so; a message
 * containing an error code reaches the user as the node wrote it.
 */
import {
	expectSuccess,
	manualTrigger,
	outputOf,
	requestedVersions,
	simulatorCredential,
	useImportedN8n,
	useSimulatorProcess,
	voiceAssistant,
	workflow,
} from './helpers';
import { CALL_PATH, callStart, callStarts, emailOf, people } from './calls';

const CONTACT_PATH = '/api/v1/segment/contact/update';
const sim = useSimulatorProcess();

const retried = { retryOnFail: true, maxTries: 3, waitBetweenTries: 0 };
const updateContact = (extra = {}) =>
	voiceAssistant(
		'Update',
		{
			resource: 'segmentContact',
			operation: 'update',
			contactId: 'contact-42',
			contactFirstName: 'Grace',
			contactLastName: 'Hopper',
			phone: '+14155550123',
			additionalFields: {},
			options: { retryOnFailure: false },
		},
		extra,
	);

describe.each(requestedVersions())('n8n %s: the failure model', (version) => {
	const { execute, requests } = useImportedN8n(sim, version, () => ({
		credentials: [simulatorCredential(sim().url)],
		workflows: [
			workflow('vaFmCalls', 'e2e: three call starts, Retry On Fail', [
				manualTrigger(),
				people('f', 3),
				callStart(retried),
			]),
			workflow('vaFmUpdate', 'e2e: a contact update answered with an error code in its message', [
				manualTrigger(),
				updateContact(),
			]),
			workflow('vaFmUpdateCof', 'e2e: the same, Continue On Fail', [
				manualTrigger(),
				updateContact({ onError: 'continueRegularOutput' }),
			]),
		],
	}));

	test.each([
		[
			'answered 200 text/html after placing it',
			{ status: 200, rawBody: 'Call queued' },
			/^The service answered HTTP 200, but not as JSON \(an HTML page\): the call may have been placed; not sent again$/,
		],
		[
			'answered 303 See Other after placing it',
			{ status: 303, rawBody: '', headers: { location: '/api/v1/playground/call/1' } },
			/^The service redirected the request \(HTTP 303\).*: the call may have been placed; not sent again$/,
		],
	])(
		'the first call start %s: placed once, Retry On Fail sends it no more',
		async (_name, answer, message) => {
			await sim().failNext({
				...answer,
				afterApplying: true,
				method: 'POST',
				path: CALL_PATH,
				bodyFields: { email: 'f0@example.com' },
			});
			const { status, run } = await execute('vaFmCalls');
			expect(status).toBe('error');
			const emails = callStarts(await requests()).map(emailOf);
			expect(emails.filter((email) => email === 'f0@example.com')).toHaveLength(1);
			const placed = (await sim().ledger()).applied.filter(
				(entry) => entry.op === 'playground.call',
			);
			expect(placed).toHaveLength(emails.length);
			const error = run.data.resultData.runData.Call.at(-1)?.error;
			expect(error?.message).toMatch(message);
			expect(error?.description).toMatch(
				/^It was not sent again because the service may have received it/,
			);
		},
	);

	const SAID = 'Database unavailable: connect ECONNREFUSED 10.0.3.4:5432';
	test('a 500 whose message contains ECONNREFUSED reaches the user as the node wrote it', async () => {
		await sim().failNext({ status: 500, body: { message: SAID }, path: CONTACT_PATH });
		const { status, run } = await execute('vaFmUpdate');
		expect(status).toBe('error');
		expect(run.data.resultData.runData.Update[0].error?.message).toBe(
			`The service failed (HTTP 500): ${SAID}`,
		);

		await sim().failNext({
			status: 422,
			body: { message: 'Template ENOENT: missing' },
			path: CONTACT_PATH,
		});
		const cof = await execute('vaFmUpdateCof');
		expectSuccess(cof);
		expect(outputOf(cof.run, 'Update')[0].json.error).toBe(
			'The service rejected the request (HTTP 422): Template ENOENT: missing',
		);
	});
});
