import type {
	ICredentialsDecrypted,
	IDataObject,
	IExecuteSingleFunctions,
	IHttpRequestMethods,
	ILoadOptionsFunctions,
} from 'n8n-workflow';
import { NodeOperationError } from 'n8n-workflow';
import { domainRefusal } from './allowedDomains';
import { CREDENTIAL_NAME, apiRoot, baseUrlProblem } from './credential';
import { readHttpFailure, toUserError } from './errors';

export interface ApiTarget {
	root: string;
	apiKey: string | undefined;
	/** Set when the Base URL cannot be used; nothing may be sent then. */
	problem?: string;
	/** Set when the credential's Allowed HTTP Request Domains exclude the Base URL; nothing may be sent then. */
	notAllowed?: string;
	/** The credential as n8n's authentication helper takes it, so it is not read again per request. */
	credential: ICredentialsDecrypted;
}

/** Where requests go and the key they carry, read from the credential. */
export async function readApiTarget(
	context: IExecuteSingleFunctions | ILoadOptionsFunctions,
): Promise<ApiTarget> {
	const data = (await context.getCredentials(CREDENTIAL_NAME)) as IDataObject;
	const root = apiRoot(data.baseUrl);
	const apiKey = typeof data.apiKey === 'string' ? data.apiKey : undefined;
	const { id = '', name = '' } = context.getNode().credentials?.[CREDENTIAL_NAME] ?? {};
	const credential = { id: id ?? '', name, type: CREDENTIAL_NAME, data } as ICredentialsDecrypted;
	const problem = baseUrlProblem(root, data.allowUnencryptedHttp === true);
	return { root, apiKey, problem, notAllowed: domainRefusal(root, data), credential };
}

/** A request from the editor (pickers): the declarative engine does not run there. */
export async function apiRequest(
	this: ILoadOptionsFunctions,
	method: IHttpRequestMethods,
	path: string,
): Promise<unknown> {
	const { root, apiKey, problem, notAllowed } = await readApiTarget(this);
	if (problem ?? notAllowed) throw new NodeOperationError(this.getNode(), (problem ?? notAllowed) as string);
	try {
		return await this.helpers.httpRequestWithAuthentication.call(this, CREDENTIAL_NAME, {
			method,
			url: `${root}${path}`,
			json: true,
			disableFollowRedirect: true,
		});
	} catch (error) {
		const context = { method, path, origin: root, attempts: 1 };
		throw toUserError(this.getNode(), readHttpFailure(error), context, 0, apiKey);
	}
}
