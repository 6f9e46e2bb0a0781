/** An operation's request contract: how the body is built from what n8n's routing assembled, and checked. */
import type { IDataObject, IExecuteSingleFunctions, IHttpRequestOptions } from 'n8n-workflow';
import type { z } from 'zod/v4';
import { asText, inexactNumberRule } from './coerce';
import { check, problem, problemFromText, type FieldLabels, type Problem } from './validation';

/**
 * An item's body as the spec describes it (and, for updates mapped from the input item, the record
 * id), with the problems found on the way (a field that cannot be read at all, such as JSON that
 * does not parse): the schema does not check such a field again.
 */
export type BodyOfItem = { body: Record<string, unknown>; id?: unknown; problems?: Problem[] };

export interface RequestContract {
	/** Spec schema of the JSON body; absent for requests without one. */
	body?: z.ZodType;
	/**
	 * Makes the body: from what n8n's routing assembled (parsed and coerced), or, for an operation
	 * that reads its fields in preSend, from its field table (shared/spec/fields.ts). Without it, the
	 * assembled body is sent as it is.
	 */
	makeBody?: (body: IDataObject, context: IExecuteSingleFunctions) => BodyOfItem;
	/** Field labels of the node UI, keyed by body field, so errors name what the user sees. */
	labels?: FieldLabels;
	/** Update operations carry the record's id in the `id` query parameter. */
	idLabel?: string;
	/** Checks of parameters that are not sent but shape the output (Get Many's limit, filters). */
	checkParameters?: (context: IExecuteSingleFunctions) => string[];
}

function idProblem(id: unknown, label: string): Problem | undefined {
	if (id === undefined || id === null || id === '') return problem(label, 'is required', '', id);
	if (typeof id !== 'string')
		return problem(label, inexactNumberRule(id) ?? 'must be text', '', id);
	if (id.trim() === '') return problem(label, 'must not be empty', '', id);
	// Half of a surrogate pair (an id cut mid-emoji) has no UTF-8 form: the URL would carry another id.
	if (/[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/.test(id))
		return problem(label, 'must not hold half of a character pair (an emoji cut in two)', '', id);
	return undefined;
}

/** The field a problem is about, as the body names it (`data[2].answer` → `data`). */
const rootField = (found: Problem) => found.field.split(/[.[]/)[0];

type Built = { body: IDataObject; qs: IDataObject } | { problems: Problem[] };

/**
 * The request the spec describes, built from what n8n's routing assembled (`options.body`,
 * `options.qs`): the body made, the id read, the body checked. Or every problem found in it.
 */
export function buildRequest(
	contract: RequestContract,
	options: IHttpRequestOptions,
	context: IExecuteSingleFunctions,
): Built {
	const assembled = (options.body ?? {}) as IDataObject;
	const made: BodyOfItem = contract.makeBody
		? contract.makeBody(assembled, context)
		: { body: assembled };
	const problems: Problem[] = [...(made.problems ?? [])];
	const qs: IDataObject = { ...options.qs };
	if (made.id !== undefined) qs.id = made.id as string;
	if (contract.idLabel) {
		// The record id as sent (read in preSend, or by n8n's routing in `qs`): a number means its digits.
		qs.id = asText(qs.id) as string;
		const found = idProblem(qs.id, contract.idLabel);
		if (found) problems.push(found);
	}
	let body = made.body as IDataObject;
	if (contract.body) {
		const checked = check(contract.body, made.body, contract.labels ?? {});
		const unread = new Set((made.problems ?? []).map(rootField));
		if (checked.ok) body = checked.value as IDataObject;
		else problems.push(...checked.problems.filter((found) => !unread.has(rootField(found))));
	}
	if (contract.checkParameters)
		problems.push(...contract.checkParameters(context).map(problemFromText));
	return problems.length ? { problems } : { body, qs };
}
