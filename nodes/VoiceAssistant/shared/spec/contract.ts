import type { IDataObject, IExecuteSingleFunctions, IHttpRequestOptions } from 'n8n-workflow';
import type { z } from 'zod/v4';
import { check, type FieldLabels } from './validation';

/**
 * What n8n's routing assembled, turned into the body the spec describes (and, for updates mapped
 * from the input item, the record id), or the reason it cannot be.
 */
export type Normalized = { body: Record<string, unknown>; id?: unknown } | { problem: string };

export interface RequestContract {
	/** Spec schema of the JSON body; absent for requests without one. */
	body?: z.ZodType;
	/** Parsing and coercion between the node's fields and the spec's body. */
	normalize?: (body: IDataObject, context: IExecuteSingleFunctions) => Normalized;
	/** Field labels of the node UI, keyed by body field, so errors name what the user sees. */
	labels?: FieldLabels;
	/** Update operations carry the record's id in the `id` query parameter. */
	idLabel?: string;
	/** Checks of parameters that are not sent but shape the output (Get Many's limit, filters). */
	checkParameters?: (context: IExecuteSingleFunctions) => string[];
}

/** The record id as sent: a number from an expression means its digits. */
function readId(id: unknown): unknown {
	return typeof id === 'number' ? String(id) : id;
}

function idProblem(id: unknown, label: string): string | undefined {
	if (id === undefined || id === null || id === '') return `"${label}" is required`;
	if (typeof id !== 'string') return `"${label}" must be text`;
	if (id.trim() === '') return `"${label}" must not be empty`;
	return undefined;
}

type Built = { body: IDataObject; qs: IDataObject } | { problems: string[] };

/**
 * The request the spec describes, built from what n8n's routing assembled (`options.body`,
 * `options.qs`): normalized, the id read, the body checked. Or what is wrong with it.
 */
export function buildRequest(
	contract: RequestContract,
	options: IHttpRequestOptions,
	context: IExecuteSingleFunctions,
): Built {
	const assembled = (options.body ?? {}) as IDataObject;
	const normalized = contract.normalize
		? contract.normalize(assembled, context)
		: { body: assembled };
	if ('problem' in normalized) return { problems: [normalized.problem] };
	const qs: IDataObject = { ...options.qs };
	if (normalized.id !== undefined) qs.id = normalized.id as string;
	const problems: string[] = [];
	if (contract.idLabel) {
		qs.id = readId(qs.id) as string;
		const problem = idProblem(qs.id, contract.idLabel);
		if (problem) problems.push(problem);
	}
	let body = normalized.body as IDataObject;
	if (contract.body) {
		const checked = check(contract.body, normalized.body, contract.labels ?? {});
		if (checked.ok) body = checked.value as IDataObject;
		else problems.push(...checked.problems);
	}
	if (contract.checkParameters) problems.push(...contract.checkParameters(context));
	return problems.length ? { problems } : { body, qs };
}
