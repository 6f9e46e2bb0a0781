/**
 * The n8n adapter's inferences (shared/request/n8nAdapter.ts): which node run an item belongs
 * to, which items n8n's loop skipped (the watch itself: test/itemLoop.test.ts), and what n8n's
 * Retry On Fail repeats; an item n8n's loop
 * cannot prepare (an expression error, with Batching too) sends nothing of the run. In n8n-core's
 * own engine (2.8.1, in process: the node run, tool calls through its makeHandleToolInvocation)
 * over HTTP, and on the adapter's functions with the contexts other n8n versions give. The e2e
 * suite checks the same in every real n8n of tools/n8n/install.js (SUPPORTED_VERSIONS).
 */
import type { IExecuteSingleFunctions, INode, INodeParameters } from 'n8n-workflow';
import { readLoopItem } from '../nodes/VoiceAssistant/shared/request/n8nAdapter';
import { asOtherAccount, requestsReceived, useSimulator } from './helpers/simulator';
import { accountAdmissions } from '../nodes/VoiceAssistant/shared/request/admission';
import { accountOf } from '../nodes/VoiceAssistant/shared/target';
import { callAsTool, callTool, nodeRuns, runNode } from './helpers/runNode';
import { realClock, useClock } from '../nodes/VoiceAssistant/shared/clock';
import { VirtualClock } from './helpers/virtualClock';
import { contacts, rows, runAgainst } from './helpers/contactRuns';
import { captureLog, runsEnded } from './helpers/logLines';
import {
	API_KEY,
	CONTACT_UPDATE_PATH,
	PLAYGROUND_CALL_PATH,
	knowledgeBaseListParameters,
	playgroundCallParameters,
	segmentContactParameters,
} from './helpers/fixtures';

const sim = useSimulator();
const credentials = () => ({ apiKey: API_KEY, baseUrl: sim().url });
const run = runAgainst(sim);

describe('an AI Agent tool call is a run of its own', () => {
	it('the same call asked for twice in one agent run places two calls, with Retry On Fail on', async () => {
		const parameters = {
			...playgroundCallParameters,
			phoneNumbers: "={{ $fromAI('phone', 'The phone number', 'string') }}",
		};
		const answers = await callAsTool({
			parameters,
			credentials: credentials(),
			retryOnFail: { maxTries: 3, waitBetweenTries: 1 },
			calls: [{ phone: '+14155550100' }, { phone: '+14155550100' }],
		});
		expect(
			sim().requests.map((r) => [
				r.method,
				r.path,
				(r.body as { phone_number: string[] }).phone_number,
			]),
		).toEqual([
			['POST', '/api/v1/playground/call', ['+14155550100']],
			['POST', '/api/v1/playground/call', ['+14155550100']],
		]);
		expect(answers.map((answer) => JSON.parse(answer)[0].phone_number)).toEqual([
			['+14155550100'],
			['+14155550100'],
		]);
	});
});

describe("an MCP client's tool call through n8n's MCP Server Trigger", () => {
	const start = {
		...playgroundCallParameters,
		phoneNumbers: "={{ $fromAI('phone', 'The phone numbers', 'string') }}",
	};

	it.each([
		['in the process its trigger runs in', 'mcp' as const],
		['on a queue-mode worker', 'mcp-worker' as const],
	])(
		"%s: a refused or failed call is an error to the client (isError), in the node's words; an AI Agent still reads them as a result",
		async (_where, caller) => {
			const [refused] = await callTool({
				parameters: start,
				credentials: credentials(),
				caller,
				calls: [{ phone: '' }],
			});
			expect(refused.isError).toBe(true);
			expect(refused.text).toContain(
				'"phone_number" (Phone Numbers) must hold at least one phone number',
			);
			expect(refused.text).toContain('Nothing was sent');
			expect(sim().requests).toHaveLength(0);
			sim().failNext({ status: 404, body: { message: 'Assistant not found' } });
			const [failed] = await callTool({
				parameters: start,
				credentials: credentials(),
				caller,
				calls: [{ phone: '+14155550100' }],
			});
			expect(failed.isError).toBe(true);
			expect(failed.text).toContain('Assistant not found');
			const [agent] = await callTool({
				parameters: start,
				credentials: credentials(),
				calls: [{ phone: '' }],
			});
			expect(agent.isError).toBe(false);
			expect(JSON.parse(agent.text)[0].error).toContain('must hold at least one phone number');
		},
	);

	/**
	 * On a queue-mode worker n8n waits 120 s for the call (the node counts 110 s of them from its
	 * run's start); in the trigger's own process it gives none. On virtual time
	 * (test/helpers/virtualClock.ts) over real HTTP: the node's clock stands still while the
	 * simulator answers, and moves only when the test moves it. Each case on an account of its own,
	 * left quiet again (its admission gone) before the real clock is back.
	 */
	describe("nothing of a call outlasts its caller's deadline, where n8n gives one (a queue-mode worker)", () => {
		let clock: VirtualClock;
		const quiet = () => ({ apiKey: API_KEY, baseUrl: asOtherAccount(sim().url) });
		beforeEach(() => useClock((clock = new VirtualClock())));
		afterEach(async () => {
			await clock.advance(300_000);
			expect(accountAdmissions.has(accountOf(quiet().baseUrl, API_KEY))).toBe(false);
			useClock(realClock);
		});

		/** The call's answer, which must come before the node's clock moves past `ms` more. */
		async function answeredBy(
			call: Promise<Array<{ isError: boolean; text: string }>>,
			ms = 0,
		): Promise<{ isError: boolean; text: string }> {
			const started = clock.now();
			if (ms > 0) {
				await clock.advance(ms - 1);
				await new Promise((resolve) => setTimeout(resolve, 100));
				expect(await Promise.race([call, 'waiting'])).toBe('waiting');
				await clock.advance(1);
			}
			let timer: NodeJS.Timeout | undefined;
			const late = new Promise<never>((_, reject) => {
				timer = setTimeout(
					() => reject(new Error(`no answer by ${ms} ms of the node's clock`)),
					5_000,
				);
			});
			try {
				const [answer] = await Promise.race([call, late]);
				expect(clock.now() - started).toBe(ms);
				return answer;
			} finally {
				clearTimeout(timer);
			}
		}

		/** A call whose request the service holds `latencyMs` of real time; resolves once the request is there. */
		async function heldCall(
			caller: 'mcp' | 'mcp-worker',
			parameters: INodeParameters,
			latencyMs = 20_000,
		): Promise<{ call: Promise<Array<{ isError: boolean; text: string }>> }> {
			sim().setOptions({ latencyMs });
			const call = callTool({
				parameters,
				credentials: quiet(),
				caller,
				calls: [{ phone: '+14155550100' }],
			});
			await requestsReceived(sim(), 1);
			return { call };
		}

		it('a 429 asking for 115 s fails at once, naming when the service asked to come back; nothing more is sent', async () => {
			sim().failNext({ status: 429, headers: { 'retry-after': '115' } });
			const asked = new Date(clock.date() + 115_000).toISOString().slice(11, 19);
			const answer = await answeredBy(
				callTool({
					parameters: { ...start, options: { maxRetryWaitSeconds: 600 } },
					credentials: quiet(),
					caller: 'mcp-worker',
					calls: [{ phone: '+14155550100' }],
				}),
			);
			expect(sim().requests.map((r) => r.status)).toEqual([429]);
			expect(answer.isError).toBe(true);
			expect(answer.text).toContain(
				`The service asked to wait until ${asked} UTC (in 115 s) before trying again (HTTP 429, Retry-After), past the caller's deadline: it waits 120 s for this tool call (n8n's MCP Server Trigger in queue mode)`,
			);
		});

		it('a call start the service has not answered by the deadline is given up then: "may have been placed", never sent again', async () => {
			const { call } = await heldCall('mcp-worker', start);
			const answer = await answeredBy(call, 110_000);
			expect(sim().requests.map((r) => [r.method, r.path])).toEqual([
				['POST', PLAYGROUND_CALL_PATH],
			]);
			expect(answer.isError).toBe(true);
			expect(answer.text).toContain(
				"No answer before the caller's deadline: it waits 120 s for this tool call (n8n's MCP Server Trigger in queue mode): the call may have been placed; not sent again",
			);
		});

		it('in the process its trigger runs in, n8n gives the call neither a deadline nor a cancel: a call start the service answers after 200 s is placed and answered', async () => {
			const { call } = await heldCall('mcp', start, 1_000);
			await clock.advance(200_000);
			const [answer] = await call;
			expect(sim().requests.map((r) => [r.method, r.path, r.status])).toEqual([
				['POST', PLAYGROUND_CALL_PATH, 200],
			]);
			expect(answer.isError).toBe(false);
			expect(JSON.parse(answer.text)[0].phone_number).toEqual(['+14155550100']);
		});

		it('a contact update the service has not answered by the deadline is given up then and not sent again: a retry would come after it', async () => {
			const { call } = await heldCall('mcp-worker', segmentContactParameters);
			const answer = await answeredBy(call, 110_000);
			expect(sim().requests.map((r) => [r.method, r.path])).toEqual([['PUT', CONTACT_UPDATE_PATH]]);
			expect(answer.isError).toBe(true);
			expect(answer.text).toContain(
				"No answer before the caller's deadline: it waits 120 s for this tool call (n8n's MCP Server Trigger in queue mode)",
			);
			expect(answer.text).not.toContain('may have been applied');
		});
	});
});

describe("n8n's Retry On Fail remembers the input item, not the request's bytes", () => {
	it('a knowledge base titled with $now, cut off after the service applied it: one knowledge base, the same error on every try', async () => {
		sim().failNext({ status: 0, afterApplying: true, path: '/api/v1/knowledgeBase/create' });
		const parameters = { ...knowledgeBaseListParameters, title: "={{ 'FAQ ' + $now.toMillis() }}" };
		const { error } = await runNode({
			parameters,
			credentials: credentials(),
			retryOnFail: { maxTries: 3, waitBetweenTries: 20 },
		});
		expect(sim().requests.map((r) => [r.method, r.path])).toEqual([
			['POST', '/api/v1/knowledgeBase/create'],
		]);
		expect(sim().ledger.applied).toHaveLength(1);
		expect(error?.description).toContain('may have received it');
	});
});

/** The context n8n gives an item, as far as the adapter reads it. */
function contextOf(
	node: INode,
	itemIndex: number,
	executeData: object | undefined,
	inputData: object | undefined,
): IExecuteSingleFunctions {
	return {
		getNode: () => node,
		getItemIndex: () => itemIndex,
		getExecuteData: () => executeData,
		continueOnFail: () => false,
		inputData,
	} as unknown as IExecuteSingleFunctions;
}

/** The node run readLoopItem names for an item. */
const nodeRunIn = (context: IExecuteSingleFunctions) => readLoopItem(context).nodeRun;

describe('the node run an item belongs to', () => {
	const node = { name: 'Voice Assistant', type: 'voiceAssistant' } as INode;
	const items = { main: [[{ json: {} }, { json: {} }]] };

	it('a node run n8n scheduled: its execute data, the same on every try of Retry On Fail', () => {
		const executeData = { node, data: items };
		expect(nodeRunIn(contextOf(node, 0, executeData, items))).toBe(executeData);
		expect(nodeRunIn(contextOf(node, 1, executeData, items))).toBe(executeData);
	});

	it("a tool call inside an agent's run: the call's arguments, shared by its tries and no other call", () => {
		const agent = { node: { name: 'AI Agent' } };
		const [first, second] = [{ phone: '+1' }, { phone: '+1' }];
		const tryOf = (args: object) => contextOf(node, 0, agent, { ai_tool: [[{ json: args }]] });
		expect(nodeRunIn(tryOf(first))).toBe(first);
		expect(nodeRunIn(tryOf(first))).toBe(nodeRunIn(tryOf(first)));
		expect(nodeRunIn(tryOf(second))).not.toBe(nodeRunIn(tryOf(first)));
	});

	it('without execute data: the loop input every item of the loop shares (not each item its own run)', () => {
		expect(nodeRunIn(contextOf(node, 0, undefined, items))).toBe(items);
		expect(nodeRunIn(contextOf(node, 1, undefined, items))).toBe(items);
	});

	it('with neither: a clear error, nothing sent', () => {
		expect(() => nodeRunIn(contextOf(node, 3, undefined, undefined))).toThrow(
			'This n8n version runs the node in a way it does not know',
		);
	});
});

describe('an item n8n cannot prepare (an expression error mid-loop)', () => {
	const failingAtItem2 = contacts();
	failingAtItem2.contactId = "={{ $json.id === 'c-2' ? $('Nope').item.json.id : $json.id }}";

	it('sends nothing of the run, on every try of Retry On Fail', async () => {
		const { error } = await run(failingAtItem2, rows(5), {
			retryOnFail: { maxTries: 3, waitBetweenTries: 1 },
		});
		expect(error?.message).toMatch(/Referenced node/);
		await Promise.all(nodeRuns);
		expect(sim().requests).toHaveLength(0);
	});

	it('with Batching too (n8n pauses between batches while it prepares them)', async () => {
		const parameters = {
			...failingAtItem2,
			requestOptions: { batching: { batch: { batchSize: 2, batchInterval: 50 } } },
		};
		const lines = captureLog();
		const { error } = await run(parameters, rows(5));
		expect(error?.message).toMatch(/Referenced node/);
		await Promise.all(nodeRuns);
		await runsEnded(lines); // past the pause that tells the loop has thrown: the run has ended
		expect(sim().requests).toHaveLength(0);
	});

	it('Batching: one invalid item (the last) sends nothing, the other batches neither', async () => {
		const parameters = {
			...contacts(),
			contactId: "={{ $json.id === 'c-4' ? '' : $json.id }}",
			requestOptions: { batching: { batch: { batchSize: 2, batchInterval: 50 } } },
		};
		const { error } = await run(parameters, rows(5));
		expect(error?.message).toMatch(/Invalid input: "Contact ID" is required \[item 4\]$/);
		expect(sim().requests).toHaveLength(0);
	});

	it('Batching: a valid run is sent at most a batch per interval, after every item is checked', async () => {
		const parameters = {
			...contacts(),
			requestOptions: { batching: { batch: { batchSize: 2, batchInterval: 200 } } },
		};
		const { error } = await run(parameters, rows(5));
		expect(error).toBeUndefined();
		const times = sim().requests.map((r) => r.receivedAt as number);
		expect(times).toHaveLength(5);
		// Batches of 2, 2, 1, due 0, 200 and 400 ms after every item was checked. A busy machine
		// delays a request, never brings one forward: only how late the first one was (well under
		// 100 ms) can shrink the gaps to the later batches.
		expect(times[2] - times[0]).toBeGreaterThanOrEqual(100);
		expect(times[4] - times[0]).toBeGreaterThanOrEqual(300);
	});
});
