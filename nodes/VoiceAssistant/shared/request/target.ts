import type { ICredentialsDecrypted, IDataObject, IExecuteSingleFunctions, ILoadOptionsFunctions } from 'n8n-workflow';
import { CREDENTIAL_NAME, apiRoot, baseUrlProblem } from '../credential';
import { domainRefusal } from './allowedDomains';

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

/** The scheme, host and port of a URL (never its path, query or credentials). */
export function originOf(url: unknown): string {
	try {
		return new URL(String(url)).origin;
	} catch {
		return 'another address';
	}
}
