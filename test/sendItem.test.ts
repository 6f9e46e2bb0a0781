/**
 * One item's send step (shared/request/sendItem.ts), in n8n's engine in process over HTTP: the words a user
 * reads are the node's (n8n's error constructors rewrite messages that contain an error code); an
 * item that was sent says so when another item stops the run; no exception escapes it.
 */
import { RoutingNode } from 'n8n-core';
import { nodeRuns, runNode } from './helpers/runNode';
import * as failureModel from '../nodes/VoiceAssistant/shared/failureModel';
import { accountAdmissions } from '../nodes/VoiceAssistant/shared/request/admission';
import { useSimulator } from './helpers/simulator';
import {
	API_KEY,
	CONTACT_UPDATE_PATH as UPDATE,
	playgroundCallParameters,
	segmentContactParameters,
} from './helpers/fixtures';
import { byColumns, namedRows } from './helpers/contactRuns';

describe('the send step', () => {
	const sim = useSimulator();
	const credentials = () => ({ apiKey: API_KEY, baseUrl: sim().url });

	describe("the node's words reach the user, whatever error code they contain", () => {
		it.each([
			[
				500,
				'Database unavailable: connect ECONNREFUSED 10.0.3.4:5432',
				'The service failed (HTTP 500)',
			],
			[422, 'Template ENOENT: no such file', 'The service rejected the request (HTTP 422)'],
			[500, 'Upstream ETIMEDOUT after 30 s', 'The service failed (HTTP 500)'],
		])('HTTP %i saying "%s"', async (status, said, start) => {
			sim().failNext({ status, body: { message: said }, path: UPDATE });
			const { error } = await runNode({
				parameters: { ...segmentContactParameters, options: { retryOnFailure: false } },
				credentials: credentials(),
			});
			expect(error?.message).toBe(`${start}: ${said}`);

			sim().failNext({ status, body: { message: said }, path: UPDATE });
			const { outputs } = await runNode({
				parameters: { ...segmentContactParameters, options: { retryOnFailure: false } },
				credentials: credentials(),
				continueOnFail: true,
			});
			expect(outputs[0][0].json.error).toBe(`${start}: ${said}`);
		});

		it('an invalid value that contains an error code is named as it is', async () => {
			const { error } = await runNode({
				parameters: { ...segmentContactParameters, contactId: ' ', phone: 'ECONNRESET' },
				credentials: credentials(),
			});
			expect(error?.message).toMatch(/^Invalid input: /);
			expect(sim().requests).toHaveLength(0);
		});
	});

	describe('an item not sent again says what it sent', () => {
		it('answered 503 and waiting for its retry when another item fails: sent once, last answer HTTP 503', async () => {
			sim().failNext({
				status: 503,
				headers: { 'retry-after': '5' },
				path: UPDATE,
				id: 'contact-0',
			});
			sim().failNext({
				status: 422,
				body: { message: 'Phone rejected' },
				path: UPDATE,
				id: 'contact-1',
			});
			const { error } = await runNode({
				parameters: byColumns,
				items: namedRows(2),
				credentials: credentials(),
			});
			expect(sim().requests.map((request) => request.query.id)).toEqual(['contact-0', 'contact-1']);
			// n8n reports the first item in input order that did not succeed: item 0.
			expect(error?.message).toBe(
				'Not sent again: item 1 failed first: The service rejected the request (HTTP 422): Phone rejected',
			);
			expect(error?.description).toMatch(
				/^This item was sent 1 time \(last answer: HTTP 503\): the service may have received it\. It was not sent again because item 1 failed first/,
			);
		});

		it('an item that never started says nothing was sent', async () => {
			sim().failNext({
				status: 422,
				body: { message: 'Phone rejected' },
				path: UPDATE,
				id: 'contact-0',
			});
			const { outputs, error } = await runNode({
				parameters: { ...byColumns, options: { maxConcurrency: 1, adaptiveConcurrency: false } },
				items: namedRows(3),
				credentials: credentials(),
			});
			expect(outputs).toEqual([]);
			expect(error?.message).toMatch(/^The service rejected the request \(HTTP 422\)/);
			expect(sim().requests).toHaveLength(1);
		});
	});

	describe('nothing escapes the send step', () => {
		it('an error body whose message is an object: the status, no crash', async () => {
			sim().failNext({
				status: 422,
				body: { errors: [{ message: { toString: 'x' } }] },
				path: UPDATE,
			});
			const { error } = await runNode({
				parameters: segmentContactParameters,
				credentials: credentials(),
			});
			expect(error?.message).toBe('The service rejected the request (HTTP 422)');
		});

		it("an exception of the node's own fails its item, stops the run and leaves the account's admission", async () => {
			const classify = jest.spyOn(failureModel, 'classifyFailure').mockImplementation(() => {
				throw new Error('classifier broke');
			});
			try {
				sim().failNext({ status: 500, path: UPDATE, id: 'contact-0' });
				const { error } = await runNode({
					parameters: { ...byColumns, options: { maxConcurrency: 1 } },
					items: namedRows(3),
					credentials: credentials(),
				});
				expect(error?.message).toBe('The node could not handle this item: classifier broke');
				expect(error?.description).toMatch(/^This item was sent 1 time/);
				expect(sim().requests).toHaveLength(1);
				expect(accountAdmissions.size).toBe(0);
			} finally {
				classify.mockRestore();
			}
		});

		it('the same under Continue On Fail: that item fails, the others are sent', async () => {
			const classify = jest.spyOn(failureModel, 'classifyFailure').mockImplementation(() => {
				throw new Error('classifier broke');
			});
			try {
				sim().failNext({ status: 500, path: UPDATE, id: 'contact-1' });
				const { outputs } = await runNode({
					parameters: byColumns,
					items: namedRows(3),
					credentials: credentials(),
					continueOnFail: true,
				});
				expect(outputs[0].map((item) => item.json.error ?? item.json.id)).toEqual([
					'contact-0',
					'The node could not handle this item: classifier broke',
					'contact-2',
				]);
			} finally {
				classify.mockRestore();
			}
		});

		it('a call start answered with a page that is not JSON is reported as placed', async () => {
			sim().failNext({ status: 200, rawBody: 'Call queued', afterApplying: true });
			const { error } = await runNode({
				parameters: playgroundCallParameters,
				credentials: credentials(),
			});
			expect(error?.message).toBe(
				'The service answered HTTP 200, but not as JSON (an HTML page): the call may have been placed; not sent again',
			);
			expect(sim().ledger.applied).toHaveLength(1);
		});
	});

	describe("an item settles only where n8n awaits it (its loop may still sleep in Batching's pause)", () => {
		/** What happened to each item's request promise in n8n's loop (RoutingNode.makeRequest), in order. */
		function watchItems(): { events: string[]; restore: () => void } {
			const events: string[] = [];
			// n8n-core's own method (private in its types): each item's request promise of its loop.
			const routing = RoutingNode.prototype as unknown as {
				makeRequest: (...args: unknown[]) => Promise<unknown>;
			};
			const makeRequest = routing.makeRequest;
			const spy = jest.spyOn(routing, 'makeRequest').mockImplementation(function (
				this: unknown,
				...args
			) {
				const itemIndex = args[2];
				events.push(`prepared ${itemIndex}`);
				const promise = makeRequest.apply(this, args);
				promise.then(
					() => events.push(`resolved ${itemIndex}`),
					() => events.push(`rejected ${itemIndex}`),
				);
				return promise;
			});
			return { events, restore: () => spy.mockRestore() };
		}

		it.each(['a cancel', 'an item failing', 'an invalid item'])(
			'%s during a pause: no item rejects before n8n prepared the last one (and awaits them all)',
			async (how) => {
				if (how === 'an item failing') sim().failNext({ status: 400, body: { message: 'no' } });
				const items = namedRows(6);
				// Item 1 has no last name: it fails in its preSend, inside n8n's loop.
				if (how === 'an invalid item') items[1].json.last_name = '';
				const { events, restore } = watchItems();
				try {
					await runNode({
						parameters: {
							...byColumns,
							requestOptions: { batching: { batch: { batchSize: 2, batchInterval: 500 } } },
						},
						items,
						credentials: credentials(),
						// During the first pause: n8n-core 2.8's loop sleeps on, then prepares the rest.
						onStart: (cancel) => void (how === 'a cancel' && setTimeout(cancel, 200)),
					});
					await Promise.all(nodeRuns);
				} finally {
					restore();
				}
				const beforeLast = events.slice(0, events.indexOf('prepared 5'));
				expect(beforeLast.filter((event) => event.startsWith('rejected'))).toEqual([]);
				expect(events.filter((event) => event.startsWith('prepared'))).toHaveLength(6);
			},
		);
	});
});
