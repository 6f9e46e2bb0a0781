/**
 * Every field an operation shows reaches the request: read from the node's description (its
 * top-level fields, Additional Fields' options, Input Columns' options), each field is given a value
 * no other field has and the node runs against the simulator, which answers with a canned 200
 * before its own checks; each value must be in the request it received (body or query). A field
 * the node shows but does not read fails it, whatever its field table says.
 */
import type { IDataObject, INodeParameters, INodeProperties } from 'n8n-workflow';
import { VoiceAssistant } from '../../nodes/VoiceAssistant/VoiceAssistant.node';
import type { Simulator } from '../simulator';
import { runNode } from './runNode';
import { API_KEY } from './fixtures';

/** The properties of `node` shown for an operation (and, for one with a Mapping Mode, that mode). */
export function shownProperties(
	node: VoiceAssistant,
	resource: string,
	operation: string,
	mappingMode?: string,
): INodeProperties[] {
	return node.description.properties.filter((property) => {
		const show = property.displayOptions?.show;
		return (
			(show?.resource as string[] | undefined)?.includes(resource) &&
			(show?.operation as string[] | undefined)?.includes(operation) &&
			(!mappingMode || !show?.mappingMode || show.mappingMode.includes(mappingMode))
		);
	});
}

/** A field's own value: says which field it came from wherever it lands. */
const valueOf = (name: string) => `v-${name}`;

/** Every value of a request: its query's and its body's, lists flattened. */
function requestValues(request: Simulator['requests'][number]): unknown[] {
	const body = (request.body ?? {}) as IDataObject;
	return [...Object.values(request.query), ...Object.values(body).flat()];
}

type Run = { node: () => VoiceAssistant; sim: () => Simulator };

/** Runs one item with `parameters` (and `json`), the simulator answering 200 at once; the request it received. */
async function requestOf({ node, sim }: Run, parameters: INodeParameters, json: IDataObject = {}) {
	sim().failNext({ status: 200, body: { message: 'ok' } });
	const { error } = await runNode({
		parameters,
		items: [{ json }],
		credentials: { apiKey: API_KEY, baseUrl: sim().url },
		voiceAssistant: node(),
	});
	expect(error).toBeUndefined();
	expect(sim().requests).toHaveLength(1);
	return sim().requests[0];
}

/** Mapped field by field: each field it shows, and each option of its collections, set to its own value. */
export async function valuesMissedByManualMapping(
	run: Run,
	resource: string,
	operation: string,
): Promise<string[]> {
	const parameters: INodeParameters = { resource, operation };
	const given: string[] = [];
	const mode = shownProperties(run.node(), resource, operation).some(
		(property) => property.name === 'mappingMode',
	);
	if (mode) parameters.mappingMode = 'manual';
	for (const property of shownProperties(run.node(), resource, operation, 'manual')) {
		if (property.name === 'mappingMode') continue;
		if (property.type === 'collection') {
			const options = (property.options ?? []) as INodeProperties[];
			parameters[property.name] = Object.fromEntries(
				options.map((option) => [option.name, valueOf(option.name)]),
			);
			given.push(...options.map((option) => valueOf(option.name)));
			continue;
		}
		const value = valueOf(property.name);
		parameters[property.name] =
			property.type === 'resourceLocator' ? { __rl: true, mode: 'id', value } : value;
		given.push(value);
	}
	expect(given.length).toBeGreaterThan(3);
	const received = requestValues(await requestOf(run, parameters));
	return given.filter((value) => !received.includes(value));
}

/**
 * Mapped automatically: each field of Input Columns read from the column it names, then from the
 * column of the API's name (its option's name) when Input Columns names none.
 */
export async function valuesMissedByAutoMapping(
	run: Run,
	resource: string,
	operation: string,
): Promise<string[]> {
	const inputColumns = shownProperties(run.node(), resource, operation, 'auto').find(
		(property) => property.name === 'inputColumns',
	);
	const names = ((inputColumns?.options ?? []) as INodeProperties[]).map((option) => option.name);
	expect(names.length).toBeGreaterThan(3);
	const parameters = { resource, operation, mappingMode: 'auto' };
	const missed: string[] = [];
	for (const named of [true, false]) {
		const column = (name: string) => (named ? `Column ${name}` : name);
		const json = Object.fromEntries(names.map((name) => [column(name), valueOf(name)]));
		const columns = named ? Object.fromEntries(names.map((name) => [name, column(name)])) : {};
		run.sim().reset();
		const received = requestValues(
			await requestOf(run, { ...parameters, inputColumns: columns }, json),
		);
		missed.push(...names.map(valueOf).filter((value) => !received.includes(value)));
	}
	return missed;
}
