// The picker's request: n8n's declarative engine does not run in the editor, so the request is
// made here with the credential, and its failure worded as the node's.
import type { IHttpRequestMethods, ILoadOptionsFunctions } from 'n8n-workflow';
import { NodeOperationError } from 'n8n-workflow';
import { CREDENTIAL_NAME } from './credential';
import { classifyFailure } from './failureModel';
import { readApiTarget } from './target';
import { toUserError } from './failureWords';

/** A request from the editor (pickers): the declarative engine does not run there. */
export async function apiRequest(
	this: ILoadOptionsFunctions,
	method: IHttpRequestMethods,
	path: string,
): Promise<unknown> {
	const { root, apiKey, problem, notAllowed } = await readApiTarget(this);
	if (problem ?? notAllowed)
		throw new NodeOperationError(this.getNode(), (problem ?? notAllowed) as string);
	try {
		return await this.helpers.httpRequestWithAuthentication.call(this, CREDENTIAL_NAME, {
			method,
			url: `${root}${path}`,
			json: true,
			disableFollowRedirect: true,
		});
	} catch (error) {
		const context = { method, path, origin: root, attempts: 1 };
		throw toUserError(this.getNode(), classifyFailure(error), context, 0, apiKey);
	}
}
