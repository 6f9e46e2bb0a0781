import type { IDataObject, IExecuteSingleFunctions, IN8nHttpFullResponse, INodeExecutionData } from 'n8n-workflow';
import { NodeOperationError } from 'n8n-workflow';
import { ServiceAnswerError } from './httpFailure';
import { originOf } from './target';

/** An HTML page (a proxy, a login page, a web site at the Base URL) rather than the API's JSON. */
export function isHtml(body: unknown, headers: IDataObject = {}): boolean {
	if (typeof body !== 'string' || body.trim() === '') return false;
	return String(headers['content-type'] ?? '').includes('text/html') || /^\s*<(!doctype|html)/i.test(body);
}

/**
 * postReceive of every operation. Requests are sent with ignoreHttpStatusErrors, so an error
 * status arrives here with its headers (n8n's own request error drops them, and with them
 * Retry-After); it is turned into an error the send step reads to decide on a retry. A redirect or
 * an HTML page is never the service's answer: a wrong Base URL, a proxy or a login page.
 */
export async function failOnHttpError(
	this: IExecuteSingleFunctions,
	items: INodeExecutionData[],
	response: IN8nHttpFullResponse,
): Promise<INodeExecutionData[]> {
	if (response.statusCode >= 300 && response.statusCode < 400) {
		const location = String(response.headers.location ?? '');
		throw new NodeOperationError(
			this.getNode(),
			`The service redirected the request (HTTP ${response.statusCode})${location ? ` to ${originOf(location)}` : ''}: check the Base URL in the credential`,
			{
				itemIndex: this.getItemIndex(),
				description: 'Redirects are not followed, so the API key is never sent to another address.',
			},
		);
	}
	if (response.statusCode < 400 && isHtml(response.body, response.headers)) {
		throw new NodeOperationError(
			this.getNode(),
			`The service answered with an HTML page instead of JSON (HTTP ${response.statusCode}): check the Base URL in the credential`,
			{ itemIndex: this.getItemIndex(), description: 'Nothing was done: the answer came from a web page, not the API.' },
		);
	}
	if (response.statusCode < 400) return items;
	throw new ServiceAnswerError(this.getNode(), response.statusCode, response.headers, response.body);
}
