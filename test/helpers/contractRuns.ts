/**
 * The runs of a contract (contract.ts): each operation's cases, each run once in n8n's engine
 * (runNode.ts) against the simulator in process, as a workflow saved at the version runs it. A
 * case's record holds the parameters as n8n saves them (the values that differ from the
 * defaults), its input items, every request the simulator received (byte for byte) and the
 * output fields of every item. A recorded case is replayed from its record, so a workflow saved
 * at a released version is what the comparison runs.
 */
import {
	NodeHelpers,
	type ICredentialType,
	type IDataObject,
	type INode,
	type INodeParameters,
	type INodeType,
} from 'n8n-workflow';
import { apiKeyProblem, createSimulator, requestProblem, type Simulator } from '../simulator';
import type { RecordedRequest } from '../simulator';
import { assistantSchema } from './assistantSchema';
import { API_KEY } from './fixtures';
import { loadNodeType, runNode } from './runNode';
import { PACKAGE_NAME } from '../../tools/package-names';
import {
	byName,
	fieldPaths,
	identityFacts,
	operationsOf,
	sorted,
	type Json,
	type JsonObject,
} from './contract';

type OnError = 'continueRegularOutput' | 'continueErrorOutput';

/** A case as written here: what the user set in the editor, the input items, the service's answer. */
interface CaseDefinition {
	parameters: INodeParameters;
	items?: IDataObject[];
	onError?: OnError;
	/** The name of the canned answer the service gives (ANSWERS); nothing is canned for a run that sends nothing. */
	answer?: keyof typeof ANSWERS;
}

/** A case as recorded: what a workflow saved at the version holds and what its run did. */
export interface RecordedCase extends JsonObject {
	saved: JsonObject;
	items: JsonObject[];
	answer: string;
	requests: JsonObject[];
	output: Json[];
}

/** An assistant with every field of the spec's Assistant table, and one the service adds. */
const FULL_ASSISTANT: IDataObject = {
	_id: 'assistant-1',
	...Object.fromEntries(Object.keys(assistantSchema.shape).map((field) => [field, field])),
	sentiment: {
		general_prompt: 'g',
		positive_prompt: 'p',
		negative_prompt: 'n',
		neutral_prompt: 'u',
	},
	actions: [{ type: 'scheduleMeeting', meetingType: 'openBooking' }],
	type: 'outbound',
	language: 'en',
	field_the_spec_does_not_name: 'x',
};
const WITHOUT_ID = Object.fromEntries(
	Object.entries(FULL_ASSISTANT).filter(([field]) => field !== '_id'),
);

/**
 * The service's answers, canned: an output field that is not the answer's is the node's own. The
 * assistant list holds one of each kind Get Many tells apart: outbound English, inbound German,
 * one without an id.
 */
const ANSWERS = {
	'one field': { answerField: 'as the service answered' },
	'three assistants': [
		FULL_ASSISTANT,
		{ ...FULL_ASSISTANT, _id: 'assistant-2', type: 'inbound', language: 'de' },
		WITHOUT_ID,
	],
} as const;

/**
 * An invalid item, under On Error: Continue and with the error output: a required field an
 * expression leaves empty (n8n runs no workflow with one left empty in the editor), or Get
 * Many's Limit of 0.
 */
const invalidItem = (parameters: INodeParameters): Record<string, CaseDefinition> => ({
	'On Error: Continue': {
		parameters,
		items: [{ rowOfTheInput: 'kept' }],
		onError: 'continueRegularOutput',
	},
	'On Error: Continue (using error output)': {
		parameters,
		items: [{ rowOfTheInput: 'kept' }],
		onError: 'continueErrorOutput',
	},
});
const EMPTY = '={{ $json.notInTheItem }}';

const call = {
	resource: 'playgroundCall',
	operation: 'start',
	assistant: { __rl: true, mode: 'id', value: 'assistant-1' },
	dialerId: 'dialer-1',
	firstName: 'Ada',
	lastName: 'Lovelace',
	email: 'ada@example.com',
	phoneNumbers: '+14155550100, +14155550101',
};
const pairs = {
	questionsAndAnswers: {
		pairs: [
			{ question: 'When are you open?', answer: '9 to 5.' },
			{ question: 'Do you open on holidays?', answer: 'No.' },
		],
	},
};
const knowledgeBase = { resource: 'knowledgeBase', operation: 'create', title: 'Hours', ...pairs };
const kbUpdate = { ...knowledgeBase, operation: 'update', knowledgeBaseId: 'kb-1' };
const contact = {
	resource: 'segmentContact',
	operation: 'update',
	contactId: 'contact-1',
	contactFirstName: 'Grace',
	contactLastName: 'Hopper',
	phone: '+14155550123',
};
const contactColumns = {
	id: 'contact-2',
	first_name: 'Alan',
	last_name: 'Turing',
	phone: '+14155550199',
	email: 'alan@example.com',
	description: 'd',
	job_title: 'j',
	lifecycle_stage: 'lead',
	lead_status: 'open',
};
const list = { resource: 'assistant', operation: 'getAll' };

/** Each operation's cases: every parameter set once, the output with and without Simplify, Dry Run, and an invalid item under On Error: Continue. */
export const CASES: Record<string, Record<string, CaseDefinition>> = {
	'assistant:getAll': {
		'Simplify on': { parameters: { ...list, returnAll: true }, answer: 'three assistants' },
		'Simplify off': {
			parameters: { ...list, returnAll: true, simplify: false },
			answer: 'three assistants',
		},
		'Limit and Filters': {
			parameters: { ...list, limit: 1, filters: { type: 'outbound', language: 'en' } },
			answer: 'three assistants',
		},
		'Dry Run': { parameters: { ...list, dryRun: true } },
		...invalidItem({ ...list, limit: 0 }),
	},
	'playgroundCall:start': {
		'every field': { parameters: call, answer: 'one field' },
		'assistant from the list': {
			parameters: {
				...call,
				assistant: { __rl: true, mode: 'list', value: 'assistant-1', cachedResultName: 'Maya' },
			},
			answer: 'one field',
		},
		'Dry Run': { parameters: { ...call, dryRun: true } },
		...invalidItem({ ...call, firstName: EMPTY }),
	},
	'knowledgeBase:create': {
		'pairs as a list': { parameters: knowledgeBase, answer: 'one field' },
		'pairs as JSON': {
			parameters: {
				...knowledgeBase,
				qaInputMode: 'json',
				questionsAndAnswersJson: '[{ "question": "Parking?", "answer": "Free.", "extra": 1 }]',
			},
			answer: 'one field',
		},
		'pairs as JSON, the default': {
			parameters: { ...knowledgeBase, qaInputMode: 'json' },
			answer: 'one field',
		},
		'Dry Run': { parameters: { ...knowledgeBase, dryRun: true } },
		...invalidItem({ ...knowledgeBase, title: EMPTY }),
	},
	'knowledgeBase:update': {
		'pairs as a list': { parameters: kbUpdate, answer: 'one field' },
		'Dry Run': { parameters: { ...kbUpdate, dryRun: true } },
		...invalidItem({ ...kbUpdate, knowledgeBaseId: EMPTY }),
	},
	'segmentContact:update': {
		'mapped field by field': { parameters: contact, answer: 'one field' },
		'mapped field by field, every field': {
			parameters: {
				...contact,
				additionalFields: {
					description: 'd',
					email: 'grace@example.com',
					jobTitle: 'j',
					leadStatus: 'open',
					lifecycleStage: 'lead',
				},
			},
			answer: 'one field',
		},
		'mapped automatically': {
			parameters: { resource: 'segmentContact', operation: 'update', mappingMode: 'auto' },
			items: [contactColumns],
			answer: 'one field',
		},
		'mapped automatically, Input Columns': {
			parameters: {
				resource: 'segmentContact',
				operation: 'update',
				mappingMode: 'auto',
				inputColumns: Object.fromEntries(
					Object.keys(contactColumns).map((field) => [field, `Column ${field}`]),
				),
			},
			items: [
				Object.fromEntries(
					Object.entries(contactColumns).map(([field, value]) => [`Column ${field}`, value]),
				),
			],
			answer: 'one field',
		},
		'Dry Run': { parameters: { ...contact, dryRun: true } },
		...invalidItem({ ...contact, phone: EMPTY }),
	},
};

/** Headers the HTTP client or the connection sets, not the node. */
const TRANSPORT_HEADERS = new Set([
	'host',
	'connection',
	'user-agent',
	'content-length',
	'accept-encoding',
]);

/** A request as the service received it; the API key's value is not the contract, its presence is. */
function requestRecord(request: RecordedRequest): JsonObject {
	const headers = Object.fromEntries(
		Object.entries(request.headers)
			.filter(([name]) => !TRANSPORT_HEADERS.has(name))
			.map(([name, value]) => [name, name === 'x-api-key' ? '(the API Key)' : String(value)]),
	);
	const problems = [apiKeyProblem(request.headers, API_KEY), requestProblem(request)?.message];
	if (problems.some(Boolean))
		throw new Error(
			`${request.method} ${request.target} breaks the spec (the simulator's reading): ${problems.filter(Boolean).join('; ')}`,
		);
	return { method: request.method, target: request.target, headers, body: request.rawBody };
}

/** The parameters a workflow saved at `version` stores for what the user set: n8n keeps the values that differ from the defaults. */
function asSaved(nodeType: INodeType, parameters: INodeParameters, version: number): JsonObject {
	const node = { typeVersion: version, parameters } as unknown as INode;
	const saved = NodeHelpers.getNodeParameters(
		nodeType.description.properties,
		parameters,
		false,
		false,
		node,
		nodeType.description,
	);
	return sorted(saved ?? {}) as JsonObject;
}

/** Runs cases at a version against a simulator: a recorded case from its record, a new one from its definition. */
export class ContractRunner {
	private sim?: Simulator;
	/** The node as n8n loads it (the node given is not changed: its description is the contract's). */
	private readonly loaded: INodeType;

	constructor(makeNode: () => INodeType) {
		this.loaded = loadNodeType(makeNode());
	}

	async start(): Promise<void> {
		this.sim = await createSimulator({ apiKey: API_KEY });
	}

	async stop(): Promise<void> {
		await this.sim?.close();
	}

	/** A case's record from its definition. */
	async record(definition: CaseDefinition, version: number): Promise<RecordedCase> {
		const record = {
			saved: asSaved(this.loaded, definition.parameters, version),
			items: (definition.items ?? [{}]) as JsonObject[],
			answer: definition.answer ?? 'none',
			...(definition.onError ? { onError: definition.onError } : {}),
		};
		return await this.replay(record, version);
	}

	/** Runs a workflow saved at `version` as the record gives it; returns the record with what this run did. */
	async replay(
		record: Pick<RecordedCase, 'saved' | 'items' | 'answer'> & { onError?: Json },
		version: number,
	): Promise<RecordedCase> {
		const sim = this.sim as Simulator;
		sim.reset();
		const answer = ANSWERS[record.answer as keyof typeof ANSWERS];
		if (answer) sim.failNext({ status: 200, body: answer, times: 10 });
		// n8n refuses to start a workflow whose parameters have issues (a value no option has).
		const { outputs, error } = await runNode({
			nodeType: this.loaded,
			typeVersion: version,
			parameters: record.saved as INodeParameters,
			items: record.items.map((json) => ({ json: json as IDataObject })),
			credentials: { apiKey: API_KEY, baseUrl: sim.url },
			...(record.onError ? { onError: record.onError as OnError } : {}),
		}).catch((refused: Error) => ({ outputs: [], error: refused }));
		const [main = [], errorOutput] = outputs;
		return sorted({
			...record,
			...(error ? { 'the run failed': error.message } : {}),
			requests: sim.requests.map(requestRecord),
			output: main.map((item) => fieldPaths(item.json)),
			...(record.onError === 'continueErrorOutput'
				? { 'error output': (errorOutput ?? []).map((item) => fieldPaths(item.json)) }
				: {}),
		} as JsonObject) as RecordedCase;
	}
}

/** The method, path, body keys and query keys an operation's cases sent. */
function requestSummary(cases: RecordedCase[]): JsonObject {
	const requests = cases.flatMap((each) => each.requests);
	const unique = (values: string[]) => [...new Set(values)].sort();
	const urls = requests.map((request) => new URL(String(request.target), 'http://service'));
	const bodies = requests.map((request) => (request.body ? JSON.parse(String(request.body)) : {}));
	return {
		method: unique(requests.map((request) => String(request.method))),
		path: unique(urls.map((url) => url.pathname)),
		query: unique(urls.flatMap((url) => [...url.searchParams.keys()])),
		body: unique(bodies.flatMap((body) => Object.keys(body))),
	};
}

/**
 * The contract of `version`: the facts of the node's description (a fresh instance from
 * `makeNode`), each operation's cases (the recorded ones replayed, new ones run from CASES) and
 * what they sent.
 */
export async function contractOf(
	makeNode: () => INodeType,
	credential: ICredentialType,
	version: number,
	recorded: JsonObject | undefined,
	runner: ContractRunner,
): Promise<JsonObject> {
	const { description } = makeNode();
	const operations: JsonObject = {};
	const recordedOperations = (recorded?.operations ?? {}) as Record<string, JsonObject>;
	for (const [key, { properties }] of Object.entries(operationsOf(description, version))) {
		const cases: Record<string, RecordedCase> = {};
		const recordedCases = (recordedOperations[key]?.cases ?? {}) as Record<string, RecordedCase>;
		for (const [name, record] of Object.entries(recordedCases))
			cases[name] = await runner.replay(record, version);
		const definitions = CASES[key];
		if (!definitions)
			throw new Error(`${key} has no cases: write them in CASES (test/helpers/contractRuns.ts)`);
		for (const [name, definition] of Object.entries(definitions)) {
			if (name in cases) continue;
			const unknown = Object.keys(definition.parameters).filter(
				(parameter) => !properties.some((property) => property.name === parameter),
			);
			if (unknown.length)
				throw new Error(
					`${key}, case "${name}": version ${version} shows no ${unknown.join(', ')}`,
				);
			cases[name] = await runner.record(definition, version);
		}
		operations[key] = {
			parameters: byName(properties, version, key),
			request: requestSummary(Object.values(cases)),
			cases,
		};
	}
	return sorted({
		...identityFacts(PACKAGE_NAME, description, credential, version),
		operations,
	}) as JsonObject;
}
