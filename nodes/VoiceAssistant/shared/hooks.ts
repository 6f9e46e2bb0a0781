import type { IDataObject, IExecuteSingleFunctions, IHttpRequestOptions, PreSendAction } from 'n8n-workflow';
import type { z } from 'zod/v4';
import { failureBecomesItem } from './failures';
import { joinRun } from './runState';
import { check, invalidInputError, type FieldLabels } from './validation';

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

function idProblem(qs: IDataObject, label: string): string | undefined {
	if (typeof qs.id === 'number') qs.id = String(qs.id);
	if (qs.id === undefined || qs.id === null || qs.id === '') return `"${label}" is required`;
	if (typeof qs.id !== 'string') return `"${label}" must be text`;
	if (qs.id.trim() === '') return `"${label}" must not be empty`;
	return undefined;
}

function problemsOf(
	contract: RequestContract,
	options: IHttpRequestOptions,
	context: IExecuteSingleFunctions,
): string[] {
	const qs = (options.qs ??= {});
	const assembled = (options.body ?? {}) as IDataObject;
	const normalized = contract.normalize ? contract.normalize(assembled, context) : { body: assembled };
	if ('problem' in normalized) return [normalized.problem];
	if (normalized.id !== undefined) qs.id = normalized.id as string;
	const problems: string[] = [];
	if (contract.idLabel) {
		const problem = idProblem(qs, contract.idLabel);
		if (problem) problems.push(problem);
	}
	if (contract.body) {
		const checked = check(contract.body, normalized.body, contract.labels ?? {});
		if (checked.ok) options.body = checked.value as IDataObject;
		else problems.push(...checked.problems);
	}
	if (contract.checkParameters) problems.push(...contract.checkParameters(context));
	return problems;
}

/**
 * The preSend hook of an operation: checks the record id and the body against the spec before
 * anything is sent. An invalid item fails on its own; the others still run when the node
 * continues on fail. It never awaits: n8n runs every item's preSend before the first request goes
 * out, so when the node does not continue on fail, one invalid item means nothing is sent.
 */
export function prepareRequest(contract: RequestContract): PreSendAction {
	return async function (this: IExecuteSingleFunctions, options: IHttpRequestOptions) {
		const state = joinRun(this, options);
		const problems = problemsOf(contract, options, this);
		if (problems.length === 0) return options;
		const itemIndex = this.getItemIndex();
		const error = invalidInputError(this.getNode(), problems, itemIndex);
		if (failureBecomesItem(this)) {
			state.invalidItems.set(itemIndex, error);
			return options;
		}
		state.stop(error, itemIndex);
		throw error;
	};
}
