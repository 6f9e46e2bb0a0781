/**
 * The node as tools of n8n's MCP Server Trigger, in a real n8n, with a real MCP client (the MCP
 * TypeScript SDK's Client, the copy n8n ships: mcpClient.ts): an MCP Server Trigger (version 2, Bearer auth) with three Voice
 * Assistant tools, active, reached at its production URL /mcp/<path> over Streamable HTTP and
 * over SSE (a GET on the same path, as trigger version 2 serves it), like any outside AI client.
 * Each case checks what the simulator received.
 *
 * n8n builds each tool from its node: the name from the node's name, the description ("Set
 * Automatically") from the operation's action, `${action} in Voice Assistant`, and the input
 * schema from the $fromAI() keys. A tool call runs the node inside n8n's webhook request, and
 * the client reads the node's output items as JSON text. Every call counts against the
 * credential's Rate Limit, whichever client makes it. Also the example workflow
 * (examples/mcp-server-tools.json, docs/recipes.md), active beside it, as its recipe says to
 * connect.
 *
 * The versions differ in what n8n does around the node, and each case asserts each version's own:
 * the words of an error result (thrownErrorForm: 2.8 adds n8n's stack trace), the `$schema` of
 * the input schemas (draft-07 before 2.41; not asserted). n8n runs here in its regular mode: the
 * tool runs in the process that took the request (in queue mode 2.8 and 2.41 run it on a worker,
 * 1.123 has no queue handling for it; not covered here).
 */
import {
	API_KEY,
	CREDENTIAL,
	CREDENTIAL_TYPE,
	MAYA,
	TOOL_NODE_TYPE,
	readExample,
	requestedVersions,
	simulatorCredential,
	useImportedN8n,
	useSimulatorProcess,
	voiceAssistant,
	workflow,
	type NodeSpec,
	type Workflow,
} from './helpers';
import { START_CALL_PARAMETERS, UPDATE_CONTACT_PARAMETERS } from './agents';
import { CALL_PATH } from './calls';
import { ARRIVAL_SLACK_MS, mostAcceptedInWindow } from '../helpers/arrivals';
import { poll } from '../../tools/processes';
import { connectMcpClient, type McpClient } from './mcpClient';

const sim = useSimulatorProcess();

const TRIGGER = 'MCP Server Trigger';
const MCP_PATH = 'va-e2e-mcp-tools';
const TOKEN = 'mcp-client-token-e2e-4c1f9a';
/** The account's Rate Limit, on the credential every tool uses. */
const PER_SECOND = 2;

const EXAMPLE = readExample('mcp-server-tools.json');
const exampleTrigger = EXAMPLE.nodes.find((node) => node.type.endsWith('.mcpTrigger'));
const BEARER_CREDENTIAL = exampleTrigger?.credentials?.httpBearerAuth;
const EXAMPLE_PATH = exampleTrigger?.parameters.path as string;

/** The node's description as built (dist/, what the packed package holds): its operations' actions. */
// eslint-disable-next-line @typescript-eslint/no-require-imports
const { VoiceAssistant } = require('../../dist/nodes/VoiceAssistant/VoiceAssistant.node.js');
const description = new VoiceAssistant().description;
/** n8n's tool description under "Set Automatically": `${action} in ${defaults.name}`. */
function automaticDescription(resource: string, operation: string): string {
	const selector = (description.properties as Array<Record<string, any>>).find(
		(property) =>
			property.name === 'operation' && property.displayOptions?.show?.resource?.includes(resource),
	);
	const action = selector?.options.find(
		(option: { value: string }) => option.value === operation,
	)?.action;
	if (!action) throw new Error(`dist/ has no action for ${resource} → ${operation}`);
	return `${action} in ${description.defaults.name}`;
}

/** This package's node as a tool of the trigger, its description set automatically. */
const tool = (name: string, parameters: Record<string, unknown>): NodeSpec =>
	voiceAssistant(name, { descriptionType: 'auto', ...parameters }, { type: TOOL_NODE_TYPE });

const TOOLS: NodeSpec[] = [
	tool('List assistants', { resource: 'assistant', operation: 'getAll', returnAll: true }),
	tool('Start call', START_CALL_PARAMETERS),
	tool('Update contact', UPDATE_CONTACT_PARAMETERS),
];

/** The trigger with the tools on its Tools input. */
function mcpWorkflow(): Workflow {
	const trigger: NodeSpec = {
		name: TRIGGER,
		type: '@n8n/n8n-nodes-langchain.mcpTrigger',
		typeVersion: 2,
		parameters: { authentication: 'bearerAuth', path: MCP_PATH },
		webhookId: '00000000-0000-4000-8000-00000000c0de',
		credentials: { httpBearerAuth: BEARER_CREDENTIAL! },
	};
	const wf = workflow('vaE2eMcpTools', 'e2e: MCP Server Trigger with three tools', [
		trigger,
		...TOOLS,
	]);
	wf.connections = Object.fromEntries(
		TOOLS.map((each) => [each.name, { ai_tool: [[{ node: TRIGGER, type: 'ai_tool', index: 0 }]] }]),
	);
	return wf;
}

interface Person {
	assistant_id: string;
	first_name: string;
	last_name: string;
	email: string;
	phone_numbers: string;
}
/** A Start call's arguments as a client sends them. */
const person = (i: number): Person => ({
	assistant_id: MAYA,
	first_name: 'Ada',
	last_name: `Lovelace ${i}`,
	email: `ada-${i}@example.com`,
	phone_numbers: `+1415555${String(i).padStart(4, '0')}, +1415556${String(i).padStart(4, '0')}`,
});
/** The body the spec asks for (and the service echoes): the dialer from the workflow. */
const callOf = (args: Person) => ({
	first_name: args.first_name,
	last_name: args.last_name,
	email: args.email,
	phone_number: args.phone_numbers.split(', '),
	assistant_id: args.assistant_id,
	dialer_id: 'dialer-main',
});

interface ToolResult {
	content?: Array<{ type: string; text?: string }>;
	isError?: boolean;
}
/** What a client read, in the test log when asked for (VA_E2E_REPORT=1). */
function report(label: string, result: ToolResult): void {
	if (process.env.VA_E2E_REPORT === '1') console.log(`${label}: ${JSON.stringify(result)}`);
}
/**
 * How n8n's MCP Server Trigger words a tool call whose node threw (the only way to an `isError`
 * result: n8n turns the node's output items into a plain text result in every version), as each
 * version's code has it: 1.123 `Error: <message>` (McpTrigger/McpServer.js); 2.8
 * `NodeOperationError: <message>` followed by n8n's stack trace (protocol/MessageFormatter.js
 * formatError); 2.41 `NodeOperationError: <message>`, no stack (seen on each with a tool whose
 * expression names a missing node). The message ends in "\n\nDetails: <description>" when the
 * error has one (n8n-core's tool wrapper, makeHandleToolInvocation).
 */
function thrownErrorForm(version: string): { prefix: string; stackTrace: boolean } {
	const [major, minor] = version.split('.').map(Number);
	if (major < 2) return { prefix: 'Error: ', stackTrace: false };
	return { prefix: 'NodeOperationError: ', stackTrace: major === 2 && minor <= 8 };
}
const STACK_FRAME = /\n\s+at /;

const textOf = (result: ToolResult) =>
	(result.content ?? []).map((part) => (part.type === 'text' ? part.text : '')).join('\n');

describe.each(requestedVersions())('n8n %s: the node as MCP Server Trigger tools', (version) => {
	const { n8n, requests } = useImportedN8n(sim, version, () => ({
		credentials: [
			{
				...simulatorCredential(sim().url),
				data: { apiKey: API_KEY, baseUrl: sim().url, rateLimit: PER_SECOND },
			},
			{ ...BEARER_CREDENTIAL!, type: 'httpBearerAuth', data: { token: TOKEN } },
		],
		workflows: [mcpWorkflow(), EXAMPLE],
	}));

	/** Everything an MCP client read in this file: no API key may be in it. */
	const read: string[] = [];
	const open: McpClient[] = [];

	const urlOf = (path: string) => new URL(`${n8n().url}/mcp/${path}`);

	/** An MCP client connected to the production URL with the Bearer token, over either transport. */
	async function connect(transport: 'http' | 'sse', path = MCP_PATH): Promise<McpClient> {
		const client = await connectMcpClient(version, urlOf(path), transport, {
			headers: { Authorization: `Bearer ${TOKEN}` },
		});
		open.push(client);
		return client;
	}

	async function listTools(client: McpClient) {
		const { tools } = await client.listTools();
		read.push(JSON.stringify(tools));
		return tools;
	}

	async function callTool(
		client: McpClient,
		name: string,
		args: Record<string, unknown>,
	): Promise<ToolResult> {
		try {
			const result = (await client.callTool({ name, arguments: args })) as ToolResult;
			read.push(JSON.stringify(result));
			return result;
		} catch (error) {
			read.push(String(error));
			throw error;
		}
	}

	beforeAll(async () => {
		if (!BEARER_CREDENTIAL || !EXAMPLE_PATH)
			throw new Error('examples/mcp-server-tools.json has no MCP Server Trigger with Bearer auth');
		for (const id of ['vaE2eMcpTools', EXAMPLE.id]) await n8n().api.activate(n8n().idOf(id));
		// The production URL answers (403 without the token) once n8n has registered it.
		for (const path of [MCP_PATH, EXAMPLE_PATH])
			await poll(
				`the MCP URL /mcp/${path}`,
				async () => (await fetch(urlOf(path), { method: 'POST' })).status === 403,
				{ timeoutMs: 60_000, everyMs: 250 },
			);
	});

	afterEach(async () => {
		await Promise.all(open.splice(0).map((client) => client.close()));
		expect(read.join('\n')).not.toContain(API_KEY);
	});

	test('tools/list: the three tools by their node names, described by their actions, with the $fromAI() keys required; nothing sent', async () => {
		const tools = await listTools(await connect('http'));
		expect(tools.map((each) => each.name).sort()).toEqual([
			'List_assistants',
			'Start_call',
			'Update_contact',
		]);
		const byName = Object.fromEntries(tools.map((each) => [each.name, each]));
		expect(Object.fromEntries(tools.map((each) => [each.name, each.description]))).toStrictEqual({
			List_assistants: automaticDescription('assistant', 'getAll'),
			Start_call: automaticDescription('playgroundCall', 'start'),
			Update_contact: automaticDescription('segmentContact', 'update'),
		});
		expect(byName.Start_call.description).toMatch(/rings the phone/);

		/** Each argument's JSON type, and the required ones. */
		const argumentsOf = (name: string) => {
			const schema = byName[name].inputSchema as {
				type: string;
				properties?: Record<string, { type: string }>;
				required?: string[];
			};
			return {
				type: schema.type,
				properties: Object.fromEntries(
					Object.entries(schema.properties ?? {}).map(([key, value]) => [key, value.type]),
				),
				required: [...(schema.required ?? [])].sort(),
			};
		};
		expect(argumentsOf('List_assistants')).toEqual({
			type: 'object',
			properties: {},
			required: [],
		});
		expect(argumentsOf('Start_call')).toEqual({
			type: 'object',
			properties: {
				assistant_id: 'string',
				email: 'string',
				first_name: 'string',
				last_name: 'string',
				phone_numbers: 'string',
			},
			required: ['assistant_id', 'email', 'first_name', 'last_name', 'phone_numbers'],
		});
		expect(argumentsOf('Update_contact')).toEqual({
			type: 'object',
			properties: {
				contact_id: 'string',
				first_name: 'string',
				last_name: 'string',
				phone: 'string',
			},
			required: ['contact_id', 'first_name', 'last_name', 'phone'],
		});
		expect(await requests()).toEqual([]);
	});

	test('Start call: exactly one POST with the spec body; the client reads the call the service answered', async () => {
		const args = person(1);
		const result = await callTool(await connect('http'), 'Start_call', { ...args });
		expect(result.isError).not.toBe(true);
		expect(JSON.parse(textOf(result))).toEqual([callOf(args)]);

		const received = await requests();
		expect(received.map((request) => `${request.method} ${request.path}`)).toEqual([
			`POST ${CALL_PATH}`,
		]);
		expect(received[0].query).toEqual({});
		expect(received[0].headers).toMatchObject({
			'x-api-key': API_KEY,
			'content-type': 'application/json',
		});
		expect(JSON.parse(received[0].rawBody)).toStrictEqual(callOf(args));
	});

	test('SSE (GET on the same path): the same tools/list, and a call placed once', async () => {
		const overHttp = await listTools(await connect('http'));
		const client = await connect('sse');
		expect(await listTools(client)).toEqual(overHttp);
		expect(await requests()).toEqual([]);

		const args = person(2);
		const result = await callTool(client, 'Start_call', { ...args });
		expect(result.isError).not.toBe(true);
		expect(JSON.parse(textOf(result))).toEqual([callOf(args)]);
		const received = await requests();
		expect(received.map((request) => `${request.method} ${request.path}`)).toEqual([
			`POST ${CALL_PATH}`,
		]);
		expect(JSON.parse(received[0].rawBody)).toStrictEqual(callOf(args));
	});

	test('bad arguments: an error result (isError) naming the field and saying nothing was sent; the service receives nothing', async () => {
		const client = await connect('http');
		const cases = [
			{ tool: 'Start_call', args: { ...person(3), phone_numbers: '' }, field: 'Phone Numbers' },
			{ tool: 'Start_call', args: { ...person(3), email: '' }, field: 'Email' },
			{
				tool: 'Update_contact',
				args: { contact_id: '', first_name: 'Ada', last_name: 'Lovelace', phone: '+14155550101' },
				field: 'Contact ID',
			},
		];
		const form = thrownErrorForm(version);
		const outcomes = [];
		for (const { tool: name, args, field } of cases) {
			const result = await callTool(client, name, args);
			const text = textOf(result);
			report(`bad arguments, ${field}`, result);
			outcomes.push({
				field,
				isError: result.isError === true,
				namesTheField: text.includes(field),
				saysNothingWasSent: /nothing was sent/i.test(text),
				inTheVersionsForm: text.startsWith(form.prefix),
				stackTrace: STACK_FRAME.test(text),
				// The text itself, shown by a failure: a tool call has one item, so no "[item 0]".
				text,
			});
		}
		expect(outcomes).toEqual(
			cases.map(({ field }) => ({
				field,
				isError: true,
				namesTheField: true,
				saysNothingWasSent: true,
				inTheVersionsForm: true,
				stackTrace: form.stackTrace,
				text: expect.not.stringContaining('[item 0]'),
			})),
		);
		expect(await requests()).toEqual([]);
	});

	test("an id sent as a JSON number (19 digits) is refused by n8n's schema, as the $fromAI() key is a string: an error result, nothing sent", async () => {
		// n8n checks the arguments against the $fromAI() types before the node runs (langchain's
		// schema parse): every version answers isError; 2.8 adds its stack trace here too.
		const result = await callTool(await connect('http'), 'Update_contact', {
			// A JSON number: 1234567890123456789 is already 1234567890123456800 in it.
			contact_id: Number('1234567890123456789'),
			first_name: 'Ada',
			last_name: 'Lovelace',
			phone: '+14155550101',
		});
		expect(result.isError).toBe(true);
		expect(textOf(result)).toMatch(
			/^Error: Received tool input did not match expected schema[\s\S]*contact_id/,
		);
		expect(STACK_FRAME.test(textOf(result))).toBe(thrownErrorForm(version).stackTrace);
		expect(await requests()).toEqual([]);
	});

	test(`two clients at once, 3 calls each, at the credential's Rate Limit (${PER_SECOND} a second): at most ${PER_SECOND} in any second at the service, none refused, each placed once`, async () => {
		await sim().setOptions({ strictRate: { perSecond: PER_SECOND } });
		try {
			const clients = await Promise.all([connect('http'), connect('http')]);
			const people = Array.from({ length: 6 }, (_, i) => person(10 + i));
			const results = await Promise.all(
				people.map((args, i) => callTool(clients[i % 2], 'Start_call', { ...args })),
			);
			expect(
				results.map((result) => [result.isError === true, JSON.parse(textOf(result))]),
			).toEqual(people.map((args) => [false, [callOf(args)]]));

			const received = await requests();
			if (process.env.VA_E2E_REPORT === '1')
				console.log(
					`arrivals (ms after the first): ${JSON.stringify(received.map((request) => Math.round(request.arrivedAt - received[0].arrivedAt)))}`,
					n8n()
						.log()
						.split('\n')
						.filter((line) => line.includes('"Start call"'))
						.slice(-8)
						.join('\n'),
				);
			expect(received.map((request) => request.status)).toEqual(people.map(() => 200));
			expect(mostAcceptedInWindow(received)).toBeLessThanOrEqual(PER_SECOND);
			// ...and the limit is what holds them: 6 at 2 a second take 2.5 s, not twice that.
			const arrivals = received.map((request) => request.arrivedAt);
			expect(Math.max(...arrivals) - Math.min(...arrivals)).toBeLessThan(4_000);
			const emails = received.map((request) => JSON.parse(request.rawBody).email).sort();
			expect(emails).toEqual(people.map((args) => args.email).sort());
			for (const request of received) {
				const body = JSON.parse(request.rawBody);
				expect(body).toStrictEqual(callOf(people.find((args) => args.email === body.email)!));
			}
			expect((await sim().ledger()).applied).toHaveLength(people.length);
		} finally {
			await sim().setOptions({ strictRate: null });
		}
	});

	test('a 429 with Retry-After: 1 during a call: waited out, the call placed once', async () => {
		await sim().failNext({
			status: 429,
			headers: { 'retry-after': '1' },
			method: 'POST',
			path: CALL_PATH,
			body: { message: 'Too many requests' },
		});
		const args = person(4);
		const result = await callTool(await connect('http'), 'Start_call', { ...args });
		expect(result.isError).not.toBe(true);
		expect(JSON.parse(textOf(result))).toEqual([callOf(args)]);

		const received = await requests();
		expect(received.map((request) => [request.method, request.path, request.status])).toEqual([
			['POST', CALL_PATH, 429],
			['POST', CALL_PATH, 200],
		]);
		for (const request of received) expect(JSON.parse(request.rawBody)).toStrictEqual(callOf(args));
		expect(received[1].arrivedAt - received[0].arrivedAt).toBeGreaterThanOrEqual(
			1000 - ARRIVAL_SLACK_MS,
		);
		expect((await sim().ledger()).applied).toHaveLength(1);
	});

	test("the API key is in no tools/list, no result and no error, also when the service's answer holds it", async () => {
		const client = await connect('sse');
		await listTools(client);
		await sim().failNext({
			status: 500,
			method: 'POST',
			path: CALL_PATH,
			body: { error: `internal error near ${API_KEY}` },
		});
		await sim().failNext({
			status: 401,
			method: 'POST',
			path: CALL_PATH,
			body: { message: `invalid key ${API_KEY}` },
		});
		const failed = await callTool(client, 'Start_call', { ...person(20) });
		const refused = await callTool(await connect('http'), 'Start_call', { ...person(21) });
		report('a 500 holding the key', failed);
		report('a 401 holding the key', refused);
		expect(textOf(failed)).toMatch(/HTTP 500/);
		expect(textOf(refused)).toMatch(/HTTP 401/);
		for (const result of [failed, refused]) expect(JSON.stringify(result)).not.toContain(API_KEY);
		// Each was sent once: a call that may have reached the service is never repeated.
		expect((await requests()).map((request) => request.status)).toEqual([500, 401]);
		// Every text a client read in this file, and n8n's log.
		expect(read.length).toBeGreaterThanOrEqual(3);
		expect(read.join('\n')).not.toContain(API_KEY);
		expect(n8n().log()).not.toContain(API_KEY);
	});

	test('the example workflow, as its recipe connects: its tools listed, Preview call shows the request and sends nothing', async () => {
		const client = await connect('http', EXAMPLE_PATH);
		const tools = await listTools(client);
		const toolNodes = EXAMPLE.nodes.filter((node) => node.type === TOOL_NODE_TYPE);
		expect(tools.map((each) => each.name).sort()).toEqual(
			toolNodes.map((node) => node.name.replace(/[^a-zA-Z0-9_-]+/g, '_')).sort(),
		);
		for (const node of toolNodes)
			expect(node.credentials).toEqual({ [CREDENTIAL_TYPE]: CREDENTIAL });

		const args = person(30);
		const preview = await callTool(client, 'Preview_call', { ...args });
		expect(preview.isError).not.toBe(true);
		expect(JSON.parse(textOf(preview))).toEqual([
			{
				dryRun: true,
				valid: true,
				request: expect.objectContaining({
					method: 'POST',
					url: `${sim().url}${CALL_PATH}`,
					body: callOf(args),
				}),
			},
		]);
		const listed = await callTool(client, 'List_assistants', {});
		expect(listed.isError).not.toBe(true);
		const { assistants } = await sim().data();
		expect(
			(JSON.parse(textOf(listed)) as Array<{ id: string }>).map((assistant) => assistant.id),
		).toEqual(assistants.map((assistant) => assistant._id));
		expect((await requests()).map((request) => `${request.method} ${request.path}`)).toEqual([
			'GET /api/v1/user/listAssistant',
		]);
	});
});
