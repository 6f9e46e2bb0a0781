import type { IDataObject, IExecuteSingleFunctions, IHttpRequestOptions, PreSendAction } from 'n8n-workflow';
import { NodeOperationError } from 'n8n-workflow';
import type { z } from 'zod/v4';
import { getRunState, stopRunUnlessContinuing } from './runState';
import { assertValid, failValidation, type FieldLabels } from './validation';

export interface RequestContract {
	/** Spec schema of the JSON body; absent for requests without one. */
	body?: z.ZodType;
	/** Turns what n8n's routing assembled into the body the spec describes (parsing, coercion). */
	normalize?: (body: IDataObject, itemIndex: number, context: IExecuteSingleFunctions) => Record<string, unknown>;
	/** Field labels of the node UI, keyed by body field, so errors name what the user sees. */
	labels?: FieldLabels;
	/** Update operations carry the record's id in the `id` query parameter. */
	idLabel?: string;
}

function checkBaseUrl(context: IExecuteSingleFunctions, baseURL: unknown, itemIndex: number): void {
	let url: URL;
	try {
		url = new URL(String(baseURL ?? ''));
	} catch {
		failValidation(context.getNode(), ['"Base URL" in the credential must be a full URL such as https://api.example.com'], itemIndex);
	}
	if (url.protocol !== 'http:' && url.protocol !== 'https:') {
		failValidation(context.getNode(), ['"Base URL" in the credential must start with http:// or https://'], itemIndex);
	}
	if (url.username || url.password) {
		failValidation(
			context.getNode(),
			['"Base URL" in the credential must not contain a user name or password: put the API key in the API Key field'],
			itemIndex,
		);
	}
}

function checkId(context: IExecuteSingleFunctions, qs: IDataObject, label: string, itemIndex: number): void {
	const id = typeof qs.id === 'number' ? String(qs.id) : qs.id;
	if (typeof id !== 'string' || id.trim() === '') {
		failValidation(context.getNode(), [`"${label}" ${id === undefined || id === '' ? 'is required' : 'must be text'}`], itemIndex);
	}
	qs.id = id;
}

/**
 * The preSend hook of an operation: checks the credential's base URL, the record id and the
 * body against the spec before anything is sent. An invalid item fails on its own; the others
 * still run when the node continues on fail, and nothing at all is sent when it does not.
 */
export function prepareRequest(contract: RequestContract): PreSendAction {
	return async function (this: IExecuteSingleFunctions, options: IHttpRequestOptions) {
		const itemIndex = this.getItemIndex();
		try {
			checkBaseUrl(this, options.baseURL, itemIndex);
			if (contract.idLabel) checkId(this, (options.qs ??= {}), contract.idLabel, itemIndex);
			if (contract.body) {
				const assembled = (options.body ?? {}) as IDataObject;
				const body = contract.normalize ? contract.normalize(assembled, itemIndex, this) : assembled;
				options.body = assertValid(this.getNode(), contract.body, body, itemIndex, contract.labels ?? {}) as IDataObject;
			}
		} catch (error) {
			if (!(error instanceof NodeOperationError) || !this.continueOnFail()) {
				stopRunUnlessContinuing(this, error);
				throw error;
			}
			getRunState(this).invalidItems.set(itemIndex, error);
		}
		return options;
	};
}
