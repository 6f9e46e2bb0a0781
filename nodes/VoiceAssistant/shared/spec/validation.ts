import type { INode } from 'n8n-workflow';
import type { z } from 'zod/v4';
import { nodeError, type NodeError } from '../userErrors';

export type FieldLabels = Readonly<Record<string, string>>;

/** `data.2.answer` → `data[2].answer`: the way a user writes a path in an n8n expression. */
function formatPath(path: ReadonlyArray<PropertyKey>): string {
	return path
		.map((key, i) => (typeof key === 'number' ? `[${key}]` : `${i === 0 ? '' : '.'}${String(key)}`))
		.join('');
}

function describeIssue(issue: z.core.$ZodIssue, labels: FieldLabels): string {
	if (issue.code === 'unrecognized_keys') {
		const where = issue.path.length ? ` in "${formatPath(issue.path)}"` : '';
		return `unknown field${issue.keys.length > 1 ? 's' : ''}${where}: ${issue.keys.join(', ')}`;
	}
	const field = issue.path.length ? formatPath(issue.path) : 'body';
	const label = labels[String(issue.path[0])];
	return `"${field}"${label ? ` (${label})` : ''} ${issue.message}`;
}

type Checked<T> = { ok: true; value: T } | { ok: false; problems: string[] };

/** Checks a request body against its spec schema; problems name the field and the rule. */
export function check<T>(schema: z.ZodType<T>, body: unknown, labels: FieldLabels): Checked<T> {
	const result = schema.safeParse(body);
	if (result.success) return { ok: true, value: result.data };
	return { ok: false, problems: result.error.issues.map((issue) => describeIssue(issue, labels)) };
}

/** The error of an invalid item: names the field, the rule and the item, and says nothing was sent. */
export function invalidInputError(node: INode, problems: string[], itemIndex: number): NodeError {
	const more = problems.length > 1 ? ` (and ${problems.length - 1} more)` : '';
	return nodeError(node, `Invalid input: ${problems[0]}${more} [item ${itemIndex}]`, {
		itemIndex,
		description: `Nothing was sent for this item. Problems found:\n- ${problems.join('\n- ')}`,
	});
}
