/**
 * The n8n adapter's inferences (nodes/VoiceAssistant/shared/request/n8nAdapter.ts and the wait in
 * shared/clock.ts), each in real n8n on every version claimed, with the packed package:
 * - each AI Agent tool call is a run of its own: asked for the same call twice in one agent run,
 *   with Retry On Fail on, the tool places two calls (both agent set-ups);
 * - items n8n skips do not hold back a run: under Continue On Fail, the last item's expression
 *   fails; n8n 2.41 skips it and the node sends the others, 2.8 and 1.x end their loop (nothing sent);
 * - Retry On Fail remembers the input item, not the request: a knowledge base titled with $now,
 *   the connection cut after the service applied it, is created once;
 * - each node run is a run of its own: Loop Over Items and two input branches run the node several
 *   times in one execution, Batching pauses n8n's loop; each person is called once;
 * - the wait clears its timer when aborted, with the n8n-workflow of each version.
 */
import fs from 'fs';
import path from 'path';
import {
	MAYA,
	expectSuccess,
	manualTrigger,
	outputOf,
	requestedVersions,
	simulatorCredential,
	useImportedN8n,
	useSimulatorProcess,
	voiceAssistant,
	workflow,
	type Workflow,
} from './helpers';
import {
	AGENT_SETUPS,
	agentWorkflow,
	openAiCredential,
	startCallTool,
	useFakeModel,
} from './agents';
import { callStart, callStarts, emailOf, people } from './calls';
import { instanceOf } from './session';
import { runtimeEnv } from '../../tools/n8n';
import { cleanEnv, runProcess } from '../../tools/processes';
import { REPO_ROOT } from '../../tools/repo';

const KNOWLEDGE_BASE_PATH = '/api/v1/knowledgeBase/create';
const EXPRESSION_ERROR = "Referenced node doesn't exist";
/** n8n-core 2.39.4 and later skip an item whose parameters fail under Continue On Fail (see n8nAdapter.ts). */
const LOOP_SKIPS_FAILED_ITEMS = (version: string) => {
	const [major, minor, patch] = version.split('.').map(Number);
	return major > 2 || (major === 2 && (minor > 39 || (minor === 39 && patch >= 4)));
};

const sim = useSimulatorProcess();
const model = useFakeModel();

const CALL = {
	assistant_id: MAYA,
	first_name: 'Ada',
	last_name: 'Lovelace',
	email: 'ada@example.com',
	phone_numbers: '+14155550101',
};
const startCall = startCallTool({ retryOnFail: true, maxTries: 3, waitBetweenTries: 0 });
// The last item's phone numbers name a node that does not exist.
const FAILS_AT_ITEM_4 = "={{ $json.i === 4 ? $('Nope').item.json.phone : $json.phone }}";
const callEach = callStart({ onError: 'continueRegularOutput' }, FAILS_AT_ITEM_4);
/** Call with n8n's Batching: 2 items, then a 300 ms pause (Request Options). */
const batchedCall = (phoneNumbers?: string) => {
	const node = callStart({}, phoneNumbers);
	return {
		...node,
		parameters: {
			...node.parameters,
			requestOptions: { batching: { batch: { batchSize: 2, batchInterval: 300 } } },
		},
	};
};

/** Manual → People → Loop Over Items (2 at a time) → Call → back to the loop. */
function loopOverItems(): Workflow {
	const wf = workflow('vaAdLoop', 'e2e: Loop Over Items', [
		manualTrigger(),
		people('l', 5),
		{
			name: 'Loop',
			type: 'n8n-nodes-base.splitInBatches',
			typeVersion: 3,
			parameters: { batchSize: 2, options: {} },
		},
		callStart(),
	]);
	wf.connections.Loop = { main: [[], [{ node: 'Call', type: 'main', index: 0 }]] };
	wf.connections.Call = { main: [[{ node: 'Loop', type: 'main', index: 0 }]] };
	return wf;
}

/** Manual → two sources of people → Call: n8n runs Call once per branch. */
function twoBranches(): Workflow {
	const wf = workflow(
		'vaAdBranches',
		'e2e: two input branches',
		[
			manualTrigger(),
			{ ...people('b', 2), name: 'People B' },
			{ ...people('c', 3), name: 'People C' },
			callStart(),
		],
		['People B', 'People C'],
	);
	wf.connections['People B'] = { main: [[{ node: 'Call', type: 'main', index: 0 }]] };
	wf.connections['People C'] = { main: [[{ node: 'Call', type: 'main', index: 0 }]] };
	return wf;
}

const createKnowledgeBase = voiceAssistant(
	'Create',
	{
		resource: 'knowledgeBase',
		operation: 'create',
		title: "={{ 'FAQ ' + $now.toMillis() }}",
		language: 'en',
		qaInputMode: 'list',
		questionsAndAnswers: { pairs: [{ question: 'When are you open?', answer: '9 to 5.' }] },
	},
	{ retryOnFail: true, maxTries: 3, waitBetweenTries: 50 },
);

describe.each(requestedVersions())('n8n %s: the n8n adapter', (version) => {
	const { execute, requests } = useImportedN8n(sim, version, () => ({
		credentials: [simulatorCredential(sim().url), openAiCredential(model())],
		workflows: [
			...AGENT_SETUPS.map((setup, i) =>
				agentWorkflow(
					`vaAdTwice${i}`,
					`e2e: the same call twice (${setup.label})`,
					setup,
					[manualTrigger()],
					'Call Ada twice.',
					[startCall],
				),
			),
			workflow('vaAdSkipLast', "e2e: the last item's expression fails, Continue On Fail", [
				manualTrigger(),
				people('s', 5),
				callEach,
				{ name: 'After', type: 'n8n-nodes-base.noOp', parameters: {} },
			]),
			workflow('vaAdNowTitle', 'e2e: a $now title, Retry On Fail, cut after applying', [
				manualTrigger(),
				createKnowledgeBase,
			]),
			loopOverItems(),
			twoBranches(),
			workflow('vaAdBatching', 'e2e: Batching', [manualTrigger(), people('t', 5), batchedCall()]),
			workflow('vaAdBatchFail', "e2e: Batching, the last item's expression fails", [
				manualTrigger(),
				people('u', 5),
				batchedCall(FAILS_AT_ITEM_4),
			]),
		],
	}));

	test.each(AGENT_SETUPS.map((setup, i) => [setup.label, i] as const))(
		'%s: the model asks for the same call twice, the tool has Retry On Fail: two calls are placed',
		async (_label, i) => {
			model().script([
				{ toolCalls: [{ name: 'Start_playground_call', arguments: CALL }] },
				{ toolCalls: [{ name: 'Start_playground_call', arguments: CALL }] },
				{ content: 'Maya called Ada twice.' },
			]);
			expectSuccess(await execute(`vaAdTwice${i}`));
			expect(model().remaining()).toBe(0);
			const calls = callStarts(await requests());
			expect(
				calls.map((call) => [call.status, (call.body as { phone_number: string[] }).phone_number]),
			).toEqual([
				[200, ['+14155550101']],
				[200, ['+14155550101']],
			]);
			expect(
				(await sim().ledger()).applied.filter((entry) => entry.op === 'playground.call'),
			).toHaveLength(2);
		},
	);

	test("Continue On Fail, the last item's expression fails: the valid items are sent once each where n8n skips it, none where its loop ends", async () => {
		const { status, run } = await execute('vaAdSkipLast');
		const emails = callStarts(await requests()).map(emailOf);
		expect(status).toBe('success');
		expect(outputOf(run, 'After')).toHaveLength(5);
		const output = outputOf(run, 'Call');
		if (LOOP_SKIPS_FAILED_ITEMS(version)) {
			expect(emails.sort()).toEqual(['s0', 's1', 's2', 's3'].map((who) => `${who}@example.com`));
			expect(output.map((item) => item.json.error ?? item.json.email)).toEqual(
				['s0', 's1', 's2', 's3'].map((who) => `${who}@example.com`).concat(EXPRESSION_ERROR),
			);
		} else {
			expect(emails).toEqual([]);
			expect(run.data.resultData.runData.Call[0].error?.message).toBe(EXPRESSION_ERROR);
		}
	});

	test('Retry On Fail, a knowledge base titled with $now, the connection cut after the service applied it: one knowledge base', async () => {
		await sim().failNext({
			status: 0,
			afterApplying: true,
			method: 'POST',
			path: KNOWLEDGE_BASE_PATH,
		});
		const { status, run } = await execute('vaAdNowTitle');
		expect(
			(await requests()).filter((r) => r.method === 'POST' && r.path === KNOWLEDGE_BASE_PATH),
		).toHaveLength(1);
		expect(
			(await sim().ledger()).applied.filter((entry) => entry.op === 'knowledgeBase.create'),
		).toHaveLength(1);
		expect(status).toBe('error');
		expect(run.data.resultData.error?.description).toContain('may have received it');
	});

	test.each([
		['Loop Over Items, 2 at a time (3 runs of the node)', 'vaAdLoop', 'l', 5],
		['two input branches (a run of the node per branch)', 'vaAdBranches', 'b', 2],
		["Batching, 2 items per 300 ms (n8n's loop pauses)", 'vaAdBatching', 't', 5],
	])('%s: each person is called once', async (_name, id, prefix, count) => {
		expectSuccess(await execute(id));
		const emails = callStarts(await requests()).map(emailOf);
		const expected = Array.from({ length: count }, (_, i) => `${prefix}${i}@example.com`);
		if (id === 'vaAdBranches') expected.push('c0@example.com', 'c1@example.com', 'c2@example.com');
		expect(emails.sort()).toEqual(expected.sort());
	});

	test("Batching, the last item's expression fails without Continue On Fail: nothing is sent", async () => {
		const { status } = await execute('vaAdBatchFail');
		expect(status).toBe('error');
		await new Promise((resolve) => setTimeout(resolve, 2000)); // past the pause that tells n8n's loop is over
		expect(callStarts(await requests())).toEqual([]);
	});

	test("an aborted wait ends at once and leaves no timer, with this version's n8n-workflow", async () => {
		// The built clock, outside the repo so that `n8n-workflow` resolves to this n8n's own.
		const dir = fs.mkdtempSync(
			path.join(process.env.VA_E2E_WORKDIR as string, `clock-${version}-`),
		);
		fs.copyFileSync(
			path.join(REPO_ROOT, 'dist', 'nodes', 'VoiceAssistant', 'shared', 'clock.js'),
			path.join(dir, 'clock.js'),
		);
		const script = `const { wait } = require('./clock.js');
const controller = new AbortController();
const waiting = wait(200000, controller.signal);
setTimeout(() => controller.abort(), 20);
waiting.then((waited) => setImmediate(() => console.log(JSON.stringify({ waited, timers: process.getActiveResourcesInfo().filter((kind) => kind === 'Timeout').length }))));`;
		const nodeModules = path.resolve(instanceOf(version).bin, '..', '..');
		const result = await runProcess('node', ['-e', script], {
			cwd: dir,
			env: runtimeEnv(version, cleanEnv({ NODE_PATH: nodeModules })),
			timeoutMs: 30_000,
			name: 'clock-check',
		});
		expect(JSON.parse(result.stdout.trim())).toEqual({ waited: false, timers: 0 });
	});
});
