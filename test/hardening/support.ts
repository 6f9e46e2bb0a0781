/**
 * Shared by the hardening tests: one simulator per test file, and the node's parameters for
 * every operation with each field read from the input item (`={{ $json.<api field> }}`), so
 * a test controls every value through the items, as an upstream node or an AI agent would.
 */
import type {
	INodeExecutionData,
	INodeParameters,
	INodeProperties,
	INodePropertyCollection,
	INodePropertyOptions,
} from 'n8n-workflow';
import { VoiceAssistant } from '../../nodes/VoiceAssistant/VoiceAssistant.node';
import { PLAYGROUND_CALL_FIELDS } from '../../nodes/VoiceAssistant/resources/playgroundCall/start';
import { CONTACT_FIELDS } from '../../nodes/VoiceAssistant/resources/segmentContact/update';
import {
	ADDITIONAL_FIELDS,
	type FieldTable,
} from '../../nodes/VoiceAssistant/shared/spec/fieldTable';
import { createSimulator, type SimulatorOptions, type Simulator } from '../simulator';
import { runNode, type RunOptions, type RunResult } from '../helpers/runNode';

export function useSimulator(options: SimulatorOptions): () => Simulator {
	let sim: Simulator | undefined;
	beforeAll(async () => {
		sim = await createSimulator(options);
	});
	afterAll(async () => sim?.close());
	beforeEach(() => {
		sim?.reset();
		sim?.setOptions({ latencyMs: 0, chaos: null, rateLimit: null });
	});
	return () => {
		if (!sim) throw new Error('the simulator is not running');
		return sim;
	};
}

export type Run = Omit<RunOptions, 'credentials'> & { apiKey?: string; baseUrl?: string };

/** Runs the node against `sim` with the key the simulator expects (unless the test gives others). */
export async function run(sim: Simulator, apiKey: string, options: Run): Promise<RunResult> {
	const { apiKey: key = apiKey, baseUrl = sim.url, ...rest } = options;
	return await runNode({ ...rest, credentials: { apiKey: key, baseUrl } });
}

const json = (field: string) => `={{ $json.${field} }}`;

/** Fields the operations read in their preSend (their field tables), by node parameter (dotted in a collection). */
const READ_IN_PRESEND = new Map(
	[PLAYGROUND_CALL_FIELDS, CONTACT_FIELDS].flatMap((table: FieldTable) =>
		Object.entries(table).map(([field, { parameter, required }]) => [
			required ? parameter : `${ADDITIONAL_FIELDS}.${parameter}`,
			field,
		]),
	),
);

/** The API field a node property is sent as (body or query), when it is a fixed name: its field table's, else its routing's. */
function sentAs(
	property: INodeProperties | INodePropertyOptions | INodePropertyCollection,
	parent?: string,
): string | undefined {
	const read = READ_IN_PRESEND.get(parent ? `${parent}.${property.name}` : property.name);
	if (read) return read;
	const name = 'routing' in property ? property.routing?.send?.property : undefined;
	return typeof name === 'string' && !name.startsWith('=') ? name : undefined;
}

const shownFor = (property: INodeProperties, resource: string, operation: string) => {
	const show = property.displayOptions?.show;
	return Boolean(show?.resource?.includes(resource) && show?.operation?.includes(operation));
};

/**
 * Parameters of an operation with every field that is sent read from the item under its API
 * name, found through the node's own routing (so a renamed node parameter needs no test change).
 */
export function fromItem(resource: string, operation: string): INodeParameters {
	const parameters: INodeParameters = { resource, operation };
	for (const property of new VoiceAssistant().description.properties) {
		if (!shownFor(property, resource, operation)) continue;
		const field = sentAs(property);
		if (field) {
			parameters[property.name] =
				property.type === 'resourceLocator'
					? { __rl: true, mode: 'id', value: json(field) }
					: json(field);
		} else if (property.type === 'collection') {
			const options = (property.options ?? []) as INodeProperties[];
			parameters[property.name] = Object.fromEntries(
				options
					.filter((option) => sentAs(option, property.name))
					.map((option) => [option.name, json(sentAs(option, property.name) as string)]),
			);
		}
	}
	return parameters;
}

export const getManyParameters: INodeParameters = { resource: 'assistant', operation: 'getAll' };

export const playgroundCallFromItem = fromItem('playgroundCall', 'start');

export const segmentContactFromItem = fromItem('segmentContact', 'update');

/** Knowledge base Create or Update with the pairs given as JSON (an Aggregate node's output, or JSON text). */
export const knowledgeBaseJsonFromItem = (operation: 'create' | 'update'): INodeParameters => ({
	...fromItem('knowledgeBase', operation),
	qaInputMode: 'json',
});

/** The node's list of pairs: its fixedCollection, the group name and the question/answer field names. */
function pairsCollection() {
	const property = new VoiceAssistant().description.properties.find(
		(candidate) =>
			candidate.type === 'fixedCollection' && shownFor(candidate, 'knowledgeBase', 'create'),
	) as INodeProperties;
	const group = (property.options as INodePropertyCollection[])[0];
	const half = (suffix: string) =>
		group.values.find((value) => String(value.routing?.send?.property).endsWith(suffix))
			?.name as string;
	return {
		name: property.name,
		group: group.name,
		question: half('.question'),
		answer: half('.answer'),
	};
}

/** Knowledge base Create or Update with `pairs` rows typed in the node, each half read from the item. */
export function knowledgeBaseListFromItem(
	operation: 'create' | 'update',
	pairs: number,
): INodeParameters {
	const parameters = fromItem('knowledgeBase', operation);
	for (const [name, value] of Object.entries(parameters))
		if (value === json('data')) delete parameters[name];
	const list = pairsCollection();
	const rows = Array.from({ length: pairs }, (_, i) => ({
		[list.question]: json(`data[${i}].question`),
		[list.answer]: json(`data[${i}].answer`),
	}));
	return {
		...parameters,
		qaInputMode: 'list',
		[list.name]: pairs === 0 ? {} : { [list.group]: rows },
	};
}

export const items = (...values: object[]): INodeExecutionData[] =>
	values.map((value) => ({ json: value as never }));

/** What each item's request must look like at the simulator. */
export interface Sent {
	body: unknown;
	id?: string;
}

/** The requests the simulator recorded, in a stable order (the node sends items concurrently). */
export function recorded(sim: Simulator): Sent[] {
	return sortSent(sim.requests.map((request) => ({ body: request.body, id: request.query.id })));
}

export function sortSent(sent: Sent[]): Sent[] {
	const key = (entry: Sent) => JSON.stringify([entry.id ?? null, entry.body]);
	return [...sent]
		.map((entry) => ({ body: entry.body, id: entry.id }))
		.sort((a, b) => (key(a) < key(b) ? -1 : key(a) > key(b) ? 1 : 0));
}
