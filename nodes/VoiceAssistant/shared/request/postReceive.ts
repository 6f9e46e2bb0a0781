// The postReceive of every operation: an answer the failure model does not call answered (an
// error status, a redirect, a 2xx web page) is thrown, with its headers, for it to classify.
import type {
	IExecuteSingleFunctions,
	IN8nHttpFullResponse,
	INodeExecutionData,
} from 'n8n-workflow';
import { endOfAnswer, ServiceAnswerError } from '../failureModel';

/**
 * postReceive of every operation. Requests are sent with ignoreHttpStatusErrors, so every answer
 * arrives here with its headers (n8n's own request error drops them, and with them Retry-After).
 * A 2xx with JSON, plain text or no body passes; anything else (an error status, a redirect, a
 * 2xx web page) is thrown for the failure model to classify.
 */
export async function failOnHttpError(
	this: IExecuteSingleFunctions,
	items: INodeExecutionData[],
	response: IN8nHttpFullResponse,
): Promise<INodeExecutionData[]> {
	if (endOfAnswer(response.statusCode, response.headers, response.body) === 'answered')
		return items;
	throw new ServiceAnswerError(
		this.getNode(),
		response.statusCode,
		response.headers,
		response.body,
	);
}
