// The postReceive of every operation: any answer that is not a 2xx JSON one is thrown, with its
// headers, for the failure model to classify.
import type {
	IExecuteSingleFunctions,
	IN8nHttpFullResponse,
	INodeExecutionData,
} from 'n8n-workflow';
import { endOfAnswer, ServiceAnswerError } from '../failureModel';

/**
 * postReceive of every operation. Requests are sent with ignoreHttpStatusErrors, so every answer
 * arrives here with its headers (n8n's own request error drops them, and with them Retry-After).
 * Anything but a 2xx JSON answer (an error status, a redirect, a page that is not JSON) is thrown
 * for the failure model to classify.
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
