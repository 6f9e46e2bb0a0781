import type { IDataObject, IExecuteSingleFunctions, IHttpRequestOptions, PreSendAction } from 'n8n-workflow';
import { NodeOperationError } from 'n8n-workflow';
import type { z } from 'zod/v4';
import { failureBecomesItem } from './output';
import { check, invalidInputError, type FieldLabels } from '../spec/validation';
import { joinRun } from './run';

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
function buildRequest(contract: RequestContract, options: IHttpRequestOptions, context: IExecuteSingleFunctions): Built {
	const assembled = (options.body ?? {}) as IDataObject;
	const normalized = contract.normalize ? contract.normalize(assembled, context) : { body: assembled };
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

/**
 * The preSend hook of an operation: builds the request and checks it against the spec. It never
 * awaits: n8n calls every item's preSend inside its item loop, and the run sends nothing until
 * the loop prepared every item, so one invalid item (without Continue On Fail) means nothing is
 * sent. With Continue On Fail the invalid item alone fails, without a request.
 */
export function prepareRequest(contract: RequestContract): PreSendAction {
	return async function (this: IExecuteSingleFunctions, options: IHttpRequestOptions) {
		const run = joinRun(this, options);
		run.itemPrepared();
		const itemIndex = this.getItemIndex();
		if (run.abandoned) {
			throw new NodeOperationError(this.getNode(), `Item ${itemIndex} was prepared after the run had given up waiting for it`, {
				itemIndex,
				description: 'Nothing was sent for this run. Run the node again.',
			});
		}
		const built = buildRequest(contract, options, this);
		if (!('problems' in built)) {
			if (contract.body) options.body = built.body;
			options.qs = built.qs;
			return options;
		}
		const error = invalidInputError(this.getNode(), built.problems, itemIndex);
		if (failureBecomesItem(this)) {
			run.invalidItems.set(itemIndex, error);
			return options;
		}
		run.stop(error, itemIndex);
		run.finishItem(false);
		throw error;
	};
}
