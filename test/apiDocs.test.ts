/**
 * docs/api.md is the node's reading of the API: its endpoints are the node's (method and path),
 * its field lists are the node's field tables (each field, in order, with its label, required or
 * not, in the query or the body, text or not), and the assistant fields it names are the ones the
 * node reads.
 */
import fs from 'fs';
import path from 'path';
import { KNOWLEDGE_BASE_FIELDS } from '../nodes/VoiceAssistant/resources/knowledgeBase/create';
import { UPDATE_KNOWLEDGE_BASE_FIELDS } from '../nodes/VoiceAssistant/resources/knowledgeBase/update';
import { PLAYGROUND_CALL_FIELDS } from '../nodes/VoiceAssistant/resources/playgroundCall/start';
import { CONTACT_FIELDS } from '../nodes/VoiceAssistant/resources/segmentContact/update';
import { ENDPOINTS } from '../nodes/VoiceAssistant/shared/spec/endpoints';
import type { FieldTable } from '../nodes/VoiceAssistant/shared/spec/fieldTable';
import { text } from '../nodes/VoiceAssistant/shared/spec/schemas';
import {
	ASSISTANT_ID_FIELDS,
	SIMPLIFIED_ASSISTANT_FIELDS,
} from '../nodes/VoiceAssistant/shared/spec/values';
import { ROOT } from './helpers/shippedSources';

const page = fs.readFileSync(path.join(ROOT, 'docs/api.md'), 'utf8');

/** The rows of the first table after `heading`, as cells (header and rule rows left out). */
function rows(heading: string): string[][] {
	const after = page.slice(page.indexOf(`\n${heading}\n`) + heading.length + 2);
	expect(page).toContain(`\n${heading}\n`);
	const table = after.slice(after.indexOf('\n|') + 1).split('\n\n')[0];
	return table
		.split('\n')
		.slice(2)
		.map((row) =>
			row
				.split('|')
				.slice(1, -1)
				.map((cell) => cell.trim()),
		);
}

/** A table as docs/api.md lists it: each field, its label in the node, its type, required or not. */
const listed = (heading: string) =>
	rows(heading).map(([field, label, type, required]) => ({
		field: field.replace(/`/g, ''),
		label,
		inQuery: type.includes('in the query'),
		text: type.startsWith('text'),
		required: required === 'yes',
	}));

/** A table as the node has it. */
const inCode = (table: FieldTable) =>
	Object.entries(table).map(([field, entry]) => ({
		field,
		label: entry.label,
		inQuery: Boolean(entry.inQuery),
		text: (entry.type ?? text) === text,
		required: Boolean(entry.required),
	}));

test('the endpoints are the node’s, method and path', () => {
	const table = rows('## Endpoints').map(([, method, endpoint]) => [
		method,
		endpoint.replace(/`/g, ''),
	]);
	expect(table).toEqual(Object.values(ENDPOINTS).map(({ method, path }) => [method, path]));
});

test.each([
	['### Playground call', PLAYGROUND_CALL_FIELDS],
	['### Knowledge base', UPDATE_KNOWLEDGE_BASE_FIELDS],
	['### Segment contact', CONTACT_FIELDS],
])('%s: each field of the node’s table, in its order, as the table has it', (heading, table) => {
	expect(listed(heading)).toEqual(inCode(table));
});

test('Create’s knowledge base is Update’s without the ID, as the page says', () => {
	expect(inCode(UPDATE_KNOWLEDGE_BASE_FIELDS).filter((field) => !field.inQuery)).toEqual(
		inCode(KNOWLEDGE_BASE_FIELDS),
	);
	expect(rows('### Knowledge base')[0][4]).toBe('Update only');
});

test('the assistant fields it names are the ones the node reads', () => {
	const names = (line: string) =>
		[...(page.split('\n- ').find((item) => item.startsWith(line)) ?? '').matchAll(/`(\w+)`/g)].map(
			(match) => match[1],
		);
	// The ID is output as `id` by Simplify alone (getManyOutput.ts), so the page says it there.
	expect(names('its ID:')).toEqual([...ASSISTANT_ID_FIELDS, 'ASSISTANT_ID_FIELDS']);
	expect(names('with Simplify on:')).toEqual([
		...SIMPLIFIED_ASSISTANT_FIELDS,
		'SIMPLIFIED_ASSISTANT_FIELDS',
		'id',
	]);
});
