import type {
	ICredentialsDecrypted,
	IDataObject,
	IExecuteSingleFunctions,
	IHttpRequestMethods,
	ILoadOptionsFunctions,
} from 'n8n-workflow';
import { NodeOperationError } from 'n8n-workflow';
import { domainRefusal } from './allowedDomains';
import { CREDENTIAL_NAME } from './credential';
import { readHttpFailure, toUserError } from './errors';

/** Same rule as API_BASE_URL_EXPRESSION (used by the credential test, which runs no node code). */
export function apiRoot(baseUrl: unknown): string {
	return String(baseUrl ?? '')
		.trim()
		.replace(/\/+$/, '')
		.replace(/\/api\/v1$/i, '');
}

/** Why the credential's Base URL cannot be used, if it cannot. */
export function baseUrlProblem(root: string): string | undefined {
	let url: URL;
	try {
		url = new URL(root);
	} catch {
		return '"Base URL" in the credential must be a full URL such as https://api.example.com';
	}
	if (url.protocol !== 'http:' && url.protocol !== 'https:') {
		return '"Base URL" in the credential must start with http:// or https://';
	}
	if (url.username || url.password) {
		return '"Base URL" in the credential must not contain a user name or password: put the API key in the API Key field';
	}
	return undefined;
}

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
	return { root, apiKey, problem: baseUrlProblem(root), notAllowed: domainRefusal(root, data), credential };
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
