// The credential's rules, shared by the credential (which n8n applies to every request made with
// it) and the node. Kept free of heavy imports: the credential file loads it.
import type { ICredentialDataDecryptedObject, IHttpRequestOptions } from 'n8n-workflow';
import { rememberLast } from './rememberLast';
import { parseUrl } from './url';

export const CREDENTIAL_NAME = 'voiceAssistantApi';

/**
 * What is cut from the end of the Base URL the user entered: a trailing slash, then the /api/v1
 * prefix every endpoint path already carries.
 */
const TRAILING_PARTS = [/\/+$/, /\/api\/v1$/i];

/** The API root: the Base URL without its trailing parts. */
export function apiRoot(baseUrl: unknown): string {
	return TRAILING_PARTS.reduce((url, part) => url.replace(part, ''), String(baseUrl ?? '').trim());
}

/** The same rule as an n8n expression, for the credential's Test request (which runs no node code). */
export const API_BASE_URL_EXPRESSION = `={{ String($credentials.baseUrl ?? "").trim()${TRAILING_PARTS.map((part) => `.replace(${String(part)}, "")`).join('')} }}`;

/** Hosts that mean this machine: plain http:// to them never crosses a network. */
const THIS_MACHINE: ReadonlySet<string> = new Set(['localhost', '127.0.0.1', '[::1]']);

const ONLY_THE_ADDRESS = 'enter only the address, e.g. https://api.example.com';

function plainHttpProblem(url: URL, allowUnencryptedHttp: boolean): string | undefined {
	if (url.protocol !== 'http:' || allowUnencryptedHttp || THIS_MACHINE.has(url.hostname))
		return undefined;
	return '"Base URL" in the credential uses plain http:// to another machine, which would send the API key unencrypted: use https://, or tick "Allow Unencrypted HTTP" in the credential';
}

/** Why the credential's API root (see apiRoot) cannot be used, if it cannot. */
export function baseUrlProblem(root: string, allowUnencryptedHttp: boolean): string | undefined {
	const url = parseUrl(root);
	if (!url)
		return '"Base URL" in the credential must be a full URL such as https://api.example.com';
	if (url.protocol !== 'http:' && url.protocol !== 'https:') {
		return '"Base URL" in the credential must start with http:// or https://';
	}
	if (url.username || url.password) {
		return '"Base URL" in the credential must not contain a user name or password: put the API key in the API Key field';
	}
	// Every endpoint path is appended to the root: a query or a fragment would swallow it.
	if (root.includes('?'))
		return `"Base URL" in the credential must not contain a query string (?…): ${ONLY_THE_ADDRESS}`;
	if (root.includes('#'))
		return `"Base URL" in the credential must not contain a fragment (#…): ${ONLY_THE_ADDRESS}`;
	return plainHttpProblem(url, allowUnencryptedHttp);
}

/**
 * The address a request goes to, as n8n's HTTP client resolves `url` against `baseURL`. Every
 * request of a run goes to the same path of the same root.
 */
const destinationOf = rememberLast(
	// Undefined when it is not a URL: n8n's client refuses such a request itself.
	(url: string | undefined, baseURL: string | undefined): URL | undefined =>
		parseUrl(url ?? '', baseURL || undefined),
);

/** The Base URL's problem: n8n authenticates every request of a run with the same one. */
const checkedBaseUrlProblem = rememberLast((baseUrl: unknown, allowUnencryptedHttp: boolean) =>
	baseUrlProblem(apiRoot(baseUrl), allowUnencryptedHttp),
);

/**
 * The credential's `authenticate`: n8n calls it for every request made with the credential (the
 * node, the Assistant picker, the credential's Test button, an HTTP Request node using it). It
 * adds the key, trimmed, or refuses the request when the key would be sent where it must not go.
 */
export async function authenticateWithApiKey(
	credentials: ICredentialDataDecryptedObject,
	requestOptions: IHttpRequestOptions,
): Promise<IHttpRequestOptions> {
	const allowUnencryptedHttp = credentials.allowUnencryptedHttp === true;
	const target = destinationOf(requestOptions.url, requestOptions.baseURL);
	const problem =
		checkedBaseUrlProblem(credentials.baseUrl, allowUnencryptedHttp) ??
		(target && plainHttpProblem(target, allowUnencryptedHttp));
	// n8n shows this message, e.g. as the result of the credential's Test.
	if (problem) throw new Error(problem);
	const apiKey = String(credentials.apiKey ?? '').trim();
	return { ...requestOptions, headers: { ...requestOptions.headers, 'x-api-key': apiKey } };
}
