/**
 * A field is one line: a copy of Segment Contact → Update's field table with one more optional
 * text field (one entry, as a service adding a field would need; `example_note` is no real
 * field, so a field added to the table for real never collides with it) makes a node in which the
 * field is everywhere it belongs: the body's schema accepts it, errors name it by its label,
 * Additional Fields shows it, Map Automatically lists and reads it, Input Columns names its column,
 * and the request carries it, mapped either way. Nothing else of the node changes.
 */
import type { INodeProperties } from 'n8n-workflow';
import { VoiceAssistant } from '../nodes/VoiceAssistant/VoiceAssistant.node';
import {
	CONTACT_FIELDS,
	contactUpdate,
} from '../nodes/VoiceAssistant/resources/segmentContact/update';
import { operationSelector } from '../nodes/VoiceAssistant/shared/operationSelector';
import { tableContract, type FieldTable } from '../nodes/VoiceAssistant/shared/spec/fieldTable';
import { useSimulator } from './helpers/simulator';
import { runNode } from './helpers/runNode';
import { API_KEY, CONTACT_UPDATE_PATH, segmentContactParameters } from './helpers/fixtures';
import {
	shownProperties,
	valuesMissedByAutoMapping,
	valuesMissedByManualMapping,
} from './helpers/shownFields';

/** The one line. */
const WITH_NOTE: FieldTable = {
	...CONTACT_FIELDS,
	example_note: { parameter: 'exampleNote', label: 'Example Note' },
};

/** The Segment Contact resource's properties from a table, as its index.ts builds them from CONTACT_FIELDS. */
function segmentContact(table: FieldTable): INodeProperties[] {
	const update = contactUpdate(table);
	return [operationSelector('segmentContact', [update.operation]), ...update.fields];
}

const isContact = (property: INodeProperties) =>
	Boolean(
		(property.displayOptions?.show?.resource as string[] | undefined)?.includes('segmentContact'),
	);

/** The node as it would be with that table: its Segment Contact properties derived from it, in their place. */
class NodeWithNote extends VoiceAssistant {
	constructor() {
		super();
		const properties = [...this.description.properties];
		const first = properties.findIndex(isContact);
		properties.splice(first, properties.filter(isContact).length, ...segmentContact(WITH_NOTE));
		this.description = { ...this.description, properties };
	}
}

const schemaOf = (table: FieldTable) => tableContract(table).body!;

const sim = useSimulator();
const run = { node: () => new NodeWithNote(), sim };
const shown = (mode: string) =>
	shownProperties(new NodeWithNote(), 'segmentContact', 'update', mode);
const property = (mode: string, name: string) =>
	shown(mode).find((candidate) => candidate.name === name) as INodeProperties;

describe('one more entry in the contact table', () => {
	test("the body's schema accepts the field, as text; the node's own schema refuses it", () => {
		const contact = { first_name: 'Ada', last_name: 'Lovelace', phone: '+1' };
		expect(
			schemaOf(WITH_NOTE).safeParse({ ...contact, example_note: 'Met at the fair' }).success,
		).toBe(true);
		expect(schemaOf(WITH_NOTE).safeParse({ ...contact, example_note: 3 }).success).toBe(false);
		expect(
			schemaOf(CONTACT_FIELDS).safeParse({ ...contact, example_note: 'Met at the fair' }).success,
		).toBe(false);
	});

	test('Additional Fields shows it, in its place by name; Map Automatically lists it and Input Columns names its column', () => {
		const options = property('manual', 'additionalFields').options as INodeProperties[];
		const before = shownProperties(new VoiceAssistant(), 'segmentContact', 'update', 'manual').find(
			(candidate) => candidate.name === 'additionalFields',
		)?.options as INodeProperties[];
		expect(options.map((option) => option.displayName)).toEqual(
			[...before.map((option) => option.displayName), 'Example Note'].sort(),
		);
		expect(options.find((option) => option.name === 'exampleNote')).toEqual({
			displayName: 'Example Note',
			name: 'exampleNote',
			type: 'string',
			default: '',
		});
		const modes = property('auto', 'mappingMode').options as Array<{ description: string }>;
		expect(modes[1].description).toMatch(/, and optionally [^)]*, example_note\)/);
		const columns = property('auto', 'inputColumns').options as INodeProperties[];
		expect(columns.find((option) => option.name === 'example_note')).toMatchObject({
			displayName: 'Example Note Column',
			placeholder: 'e.g. Example Note',
		});
	});

	test('every other property of the node is as it was', () => {
		// As JSON: the routing's functions are new ones in each node.
		const asJson = (node: VoiceAssistant) =>
			JSON.parse(JSON.stringify(node.description.properties)) as INodeProperties[];
		const properties = asJson(new NodeWithNote());
		for (const each of properties.filter(isContact)) {
			if (each.options)
				each.options = (each.options as INodeProperties[]).filter(
					(option) => !['exampleNote', 'example_note'].includes(option.name),
				);
			if (each.name === 'mappingMode')
				for (const mode of each.options as Array<{ description: string }>)
					mode.description = mode.description.replace(', example_note', '');
		}
		expect(properties).toEqual(asJson(new VoiceAssistant()));
	});

	test('the request carries it, mapped field by field and automatically', async () => {
		expect(await valuesMissedByManualMapping(run, 'segmentContact', 'update')).toEqual([]);
		expect(await valuesMissedByAutoMapping(run, 'segmentContact', 'update')).toEqual([]);
		sim().reset();
		sim().failNext({ status: 200, body: { message: 'Contact updated successfully.' } });
		const { error } = await runNode({
			parameters: {
				...segmentContactParameters,
				additionalFields: { exampleNote: 'Met at the fair' },
			},
			credentials: { apiKey: API_KEY, baseUrl: sim().url },
			voiceAssistant: new NodeWithNote(),
		});
		expect(error).toBeUndefined();
		expect(sim().requests.map((r) => [r.method, r.path, r.query, r.body])).toEqual([
			[
				'PUT',
				CONTACT_UPDATE_PATH,
				{ id: 'contact-42' },
				{
					first_name: 'Grace',
					last_name: 'Hopper',
					phone: '+14155550123',
					example_note: 'Met at the fair',
				},
			],
		]);
	});

	test('an error names it by its label, and nothing is sent', async () => {
		const { error } = await runNode({
			parameters: { ...segmentContactParameters, additionalFields: { exampleNote: '={{ [1] }}' } },
			credentials: { apiKey: API_KEY, baseUrl: sim().url },
			voiceAssistant: new NodeWithNote(),
		});
		expect(error?.message).toBe(
			'Invalid input: "example_note" (Example Note) must be text [item 0]',
		);
		expect(sim().requests).toEqual([]);
	});
});
