import type { IExecuteSingleFunctions, IHttpRequestOptions, PreSendAction } from 'n8n-workflow';
import { buildRequest, type RequestContract } from '../spec/contract';
import { invalidInputError } from '../spec/validation';
import { failureBecomesItem } from './output';
import { joinRun } from './run';

/**
 * The preSend hook of an operation: builds the request and checks it against the spec. It never
 * awaits: n8n calls every item's preSend inside its item loop, and the run sends nothing until
 * the loop prepared every item, so one invalid item (without Continue On Fail) means nothing is
 * sent. With Continue On Fail the invalid item alone fails, without a request.
 */
export function prepareRequest(contract: RequestContract): PreSendAction {
	return async function (this: IExecuteSingleFunctions, options: IHttpRequestOptions) {
		const run = joinRun(this, options);
		const itemIndex = this.getItemIndex();
		run.itemPrepared(itemIndex);
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
