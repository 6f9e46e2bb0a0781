/**
 * The example workflows (examples/) say what the node does today: a scheduled bulk update maps
 * automatically, as the README advises, and a note that states how many requests run at once,
 * how far that grows or how often a request is retried states the node's defaults.
 */
import {
	INITIAL_CONCURRENCY,
	readRequestPolicy,
} from '../nodes/VoiceAssistant/shared/requestPolicy';
import { NODE_TYPE } from '../tools/package-names';
import { readExample, readExamples } from '../tools/repo';
import type { Workflow } from '../tools/workflows';
import { TABLES, tableNameOf, unpickedNodes } from '../demo/dataTable';

/** Every note of a workflow: sticky notes and the notes on nodes. */
const notesOf = (workflow: Workflow): string[] =>
	workflow.nodes.flatMap((node) => [
		...(typeof node.parameters.content === 'string' ? [node.parameters.content] : []),
		...(typeof node.notes === 'string' ? [node.notes] : []),
	]);

const number = (text: string) => Number(text.replace(/,/g, ''));

/** The defaults a note may state, each read from what the note says. */
const STATEMENTS: Array<{ what: string; pattern: RegExp; value: number }> = [
	{
		what: 'requests at once at first',
		pattern: /([\d,]+) requests run at once/g,
		value: INITIAL_CONCURRENCY,
	},
	{
		what: 'the most requests at once',
		pattern: /Max Concurrent Requests\*?, ([\d,]+)/g,
		value: readRequestPolicy({}).maxConcurrency,
	},
	{
		what: 'retries',
		pattern: /retried, up to ([\d,]+) times/g,
		value: readRequestPolicy({}).maxRetries,
	},
];

describe('the example workflows', () => {
	const examples = readExamples();

	it('a scheduled bulk update maps automatically (Map Automatically, Input Columns where needed)', () => {
		const scheduledUpdates = examples.flatMap((workflow) =>
			workflow.nodes.some((node) => node.type === 'n8n-nodes-base.scheduleTrigger')
				? workflow.nodes
						.filter(
							(node) =>
								node.type === NODE_TYPE &&
								node.parameters.resource === 'segmentContact' &&
								node.parameters.operation === 'update',
						)
						.map((node) => [workflow.name, node.name, node.parameters.mappingMode])
				: [],
		);
		expect(scheduledUpdates).toContainEqual([
			'Voice Assistant: scheduled bulk contact update',
			'Update segment contact',
			'auto',
		]);
		expect(scheduledUpdates.filter(([, , mode]) => mode !== 'auto')).toEqual([]);
	});

	it.each(STATEMENTS)('a note that states $what states the default', ({ pattern, value }) => {
		const stated = examples.flatMap((workflow) =>
			notesOf(workflow).flatMap((note) =>
				[...note.matchAll(pattern)].map((match) => [workflow.name, number(match[1])]),
			),
		);
		expect(stated.filter(([, said]) => said !== value)).toEqual([]);
		// The scheduled bulk update, the example users copy first, states it.
		expect(stated).toContainEqual(['Voice Assistant: scheduled bulk contact update', value]);
	});

	it('the scheduled bulk update maps no field by expression', () => {
		const update = readExample('scheduled-contact-update.json').nodes.find(
			(node) => node.type === NODE_TYPE,
		);
		expect(update?.parameters).toEqual({
			resource: 'segmentContact',
			operation: 'update',
			mappingMode: 'auto',
			options: {},
		});
	});
});

describe('the Data Tables of the examples', () => {
	// The demo and `npm run example` make these tables and pick them (demo/dataTable.js): an
	// example whose table they do not know stops at n8n's "The workflow has issues".
	const uses = readExamples().flatMap((workflow) =>
		unpickedNodes(workflow).map((node) => ({ workflow, node, table: tableNameOf(node) })),
	);

	it('the Data Table and Dry Run recipes ship with no table picked, naming theirs', () => {
		expect([...new Set(uses.map(({ workflow, table }) => `${workflow.id} ${table}`))]).toEqual([
			'vaExDryRunCheck1 crm_check_problems',
			'vaExDataTblSync1 contacts',
		]);
	});

	it.each(uses.map((use) => [use.workflow.name, use.node.name, use]))(
		'%s, "%s": the demo makes its table with every column the node reads or writes',
		(_workflow, _node, { node, table }) => {
			const columns = (TABLES[table]?.columns ?? []).map((column) => column.name);
			const used = [
				...Object.keys(node.parameters.columns?.value ?? {}),
				...(node.parameters.filters?.conditions ?? []).map(
					(condition: { keyName: string }) => condition.keyName,
				),
			].filter((name) => !['id', 'createdAt', 'updatedAt'].includes(name));
			expect(columns.length).toBeGreaterThan(0);
			expect(used.filter((name) => !columns.includes(name))).toEqual([]);
		},
	);
});
