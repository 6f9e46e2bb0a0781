import type {
	DeclarativeRestApiSettings,
	IDataObject,
	IExecutePaginationFunctions,
	IHttpRequestOptions,
	IN8nHttpFullResponse,
	INodeExecutionData,
} from 'n8n-workflow';
import { NodeOperationError } from 'n8n-workflow';
import { CREDENTIAL_NAME } from '../credential';
import type { ApiTarget } from './target';

/**
 * One attempt of an item's request: what n8n's makeRoutingRequest does (the authenticated request,
 * then the operation's postReceive hooks), but with the credential the run already read. n8n
 * would otherwise fetch and decrypt it from its database for every item, the largest per-item
 * cost of a bulk run.
 */
export async function attemptRequest(
	context: IExecutePaginationFunctions,
	{ credential }: ApiTarget,
	requestData: DeclarativeRestApiSettings.ResultOptions,
): Promise<INodeExecutionData[]> {
	// A fresh copy per attempt: n8n's authentication adds the key header to the options it gets.
	const options = {
		...requestData.options,
		headers: { ...requestData.options.headers },
		returnFullResponse: true,
	} as IHttpRequestOptions;
	const response = (await context.helpers.httpRequestWithAuthentication.call(context, CREDENTIAL_NAME, options, {
		credentialsDecrypted: credential,
	})) as IN8nHttpFullResponse;
	let items: INodeExecutionData[] = [{ json: response.body as IDataObject }];
	for (const { actions } of requestData.postReceive) {
		for (const action of actions) {
			// operationRouting only takes functions; a declarative action would need n8n's own runner.
			if (typeof action !== 'function') {
				throw new NodeOperationError(context.getNode(), `postReceive action "${action.type}" is not supported here`);
			}
			items = await action.call(context, items, response);
		}
	}
	return items;
}
