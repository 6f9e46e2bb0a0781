import type { IDataObject, IHttpRequestMethods, ILoadOptionsFunctions } from 'n8n-workflow';
import { CREDENTIAL_NAME } from './credential';
import { readHttpFailure, toUserError } from './errors';

/** Same rule as API_BASE_URL_EXPRESSION, for code that runs outside the declarative engine. */
export function apiRoot(baseUrl: unknown): string {
	return String(baseUrl ?? '')
		.trim()
		.replace(/\/+$/, '')
		.replace(/\/api\/v1$/i, '');
}

/** A request from the editor (pickers): the declarative engine does not run there. */
export async function apiRequest(
	this: ILoadOptionsFunctions,
	method: IHttpRequestMethods,
	path: string,
): Promise<unknown> {
	const credentials = (await this.getCredentials(CREDENTIAL_NAME)) as IDataObject;
	const root = apiRoot(credentials.baseUrl);
	try {
		return await this.helpers.httpRequestWithAuthentication.call(this, CREDENTIAL_NAME, {
			method,
			url: `${root}${path}`,
			json: true,
		});
	} catch (error) {
		const context = { method, path, origin: root, attempts: 1 };
		const secret = typeof credentials.apiKey === 'string' ? credentials.apiKey : undefined;
		throw toUserError(this.getNode(), readHttpFailure(error), context, 0, secret);
	}
}
