/** Problems of an item's input: each names the field, the rule and the value, and the error they make. */
import type { INode } from 'n8n-workflow';
import type { z } from 'zod/v4';
import { nodeError, type NodeError } from '../nodeError';
import { inexactNumberRule } from './coerce';

export type FieldLabels = Readonly<Record<string, string>>;

/** One problem of an item: the field (the API's name or the node's), the rule it breaks, the value it had. */
export interface Problem {
	/** The text the user reads in the error, e.g. `"phone" (Phone) is required`. */
	message: string;
	field: string;
	label?: string;
	rule: string;
	/** The value found, when there is one (missing fields have none). */
	value?: unknown;
}

/** `"field" (label) rule`: the way every problem reads. */
export function problem(field: string, rule: string, label?: string, value?: unknown): Problem {
	const found: Problem = {
		message: `"${field}"${label ? ` (${label})` : ''} ${rule}`,
		field,
		rule,
	};
	if (label) found.label = label;
	if (value !== undefined) found.value = value;
	return found;
}

/** A problem known only as its text (`"Limit" must be …`, `"Base URL" in the credential …`). */
export function problemFromText(message: string): Problem {
	const named = /^"([^"]+)" (.*)$/s.exec(message);
	return named
		? { message, field: named[1], rule: named[2] }
		: { message, field: '', rule: message };
}

/** `data.2.answer` → `data[2].answer`: the way a user writes a path in an n8n expression. */
function formatPath(path: ReadonlyArray<PropertyKey>): string {
	return path
		.map((key, i) => (typeof key === 'number' ? `[${key}]` : `${i === 0 ? '' : '.'}${String(key)}`))
		.join('');
}

function valueAt(body: unknown, path: ReadonlyArray<PropertyKey>): unknown {
	let value = body;
	for (const key of path) {
		if (value === null || typeof value !== 'object') return undefined;
		value = (value as Record<PropertyKey, unknown>)[key];
	}
	return value;
}

function describeIssue(issue: z.core.$ZodIssue, labels: FieldLabels, body: unknown): Problem {
	if (issue.code === 'unrecognized_keys') {
		const where = issue.path.length ? ` in "${formatPath(issue.path)}"` : '';
		const rule = `unknown field${issue.keys.length > 1 ? 's' : ''}${where}: ${issue.keys.join(', ')}`;
		return { message: rule, field: issue.path.length ? formatPath(issue.path) : 'body', rule };
	}
	const field = issue.path.length ? formatPath(issue.path) : 'body';
	const value = valueAt(body, issue.path);
	// A number where text is expected that a number cannot hold exactly: its own rule, and the fix.
	const inexact = issue.code === 'invalid_type' && issue.expected === 'string';
	const rule = (inexact && inexactNumberRule(value)) || issue.message;
	return problem(field, rule, labels[String(issue.path[0])], value);
}

type Checked<T> = { ok: true; value: T } | { ok: false; problems: Problem[] };

/** Checks a request body against its spec schema; problems name the field and the rule. */
export function check<T>(schema: z.ZodType<T>, body: unknown, labels: FieldLabels): Checked<T> {
	const result = schema.safeParse(body);
	if (result.success) return { ok: true, value: result.data };
	return {
		ok: false,
		problems: result.error.issues.map((issue) => describeIssue(issue, labels, body)),
	};
}

/**
 * The error of an invalid item: names the field, the rule and the item, and says nothing was sent.
 * A tool call (an AI Agent's or an MCP client's; `asTool`, as request/n8nAdapter.ts reads it) is
 * not named by its item: its caller knows no items.
 */
export function invalidInputError(
	{ node, itemIndex, asTool }: { node: INode; itemIndex: number; asTool: boolean },
	problems: ReadonlyArray<string | Problem>,
): NodeError {
	const texts = problems.map((each) => (typeof each === 'string' ? each : each.message));
	const more = texts.length > 1 ? ` (and ${texts.length - 1} more)` : '';
	const where = asTool ? '' : ` [item ${itemIndex}]`;
	return nodeError(node, `Invalid input: ${texts[0]}${more}${where}`, {
		itemIndex,
		description: `Nothing was sent for this item. Problems found:\n- ${texts.join('\n- ')}`,
	});
}
