/** Where requests go: the credential's Base URL and key, the domains it allows, the account's rate limit, an item's request sent there. */
import type {
	DeclarativeRestApiSettings,
	ICredentialsDecrypted,
	IDataObject,
	IExecuteSingleFunctions,
	IHttpRequestOptions,
	ILoadOptionsFunctions,
} from 'n8n-workflow';
import { createHash } from 'crypto';
import { CREDENTIAL_NAME, apiRoot, baseUrlProblem } from './credential';
import { readRate, type SetLimit } from './rate';
import { parseUrl } from './url';

export interface ApiTarget {
	root: string;
	apiKey: string | undefined;
	/** The account's rate limit, set on the credential; undefined: none. */
	rate?: SetLimit;
	/** Set when the Base URL or the Rate Limit cannot be used; nothing may be sent then. */
	problem?: string;
	/** Set when the credential's Allowed HTTP Request Domains exclude the Base URL; nothing may be sent then. */
	notAllowed?: string;
	/** The credential as n8n's authentication helper takes it, so it is not read again per request. */
	credential: ICredentialsDecrypted;
}

/** `*.example.com` matches subdomains only; anything else matches the host exactly (as n8n does). */
function hostMatches(hostname: string, pattern: string): boolean {
	if (pattern.startsWith('*.')) return pattern.length > 2 && hostname.endsWith(pattern.slice(1));
	return hostname === pattern;
}

/**
 * The credential's "Allowed HTTP Request Domains" (n8n adds it to credentials): why the Base URL
 * may not be used, in n8n's own words, or undefined. Only a list of domains applies here; "None"
 * blocks the HTTP Request node, not the credential's own node (n8n's rule for a node that owns
 * its credential).
 */
function domainRefusal(root: string, credential: IDataObject): string | undefined {
	if (credential.allowedHttpRequestDomains !== 'domains') return undefined;
	const allowed =
		typeof credential.allowedDomains === 'string' ? credential.allowedDomains.trim() : '';
	if (!allowed)
		return 'No allowed domains specified. Configure allowed domains or change restriction setting.';
	const url = parseUrl(root);
	if (!url) return undefined; // the Base URL check reports it
	const hostname = url.hostname.toLowerCase().replace(/\.$/, '');
	const patterns = allowed
		.split(',')
		.map((domain) => domain.trim().toLowerCase().replace(/\.$/, ''))
		.filter(Boolean);
	if (patterns.some((pattern) => hostMatches(hostname, pattern))) return undefined;
	return `Domain not allowed: This credential is restricted from accessing ${url.host}. Only the following domains are allowed: ${allowed}`;
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
	// A number field holds a number: text comes from an expression.
	const { rateLimit, rateLimitUnit } = data;
	const field = '"Rate Limit" in the credential';
	const rate = readRate(rateLimit, field, typeof rateLimit === 'string', rateLimitUnit ?? 'second');
	const problem = baseUrlProblem(root, data.allowUnencryptedHttp === true) ?? rate.problem;
	const notAllowed = domainRefusal(root, data);
	const set = rate.perSecond && {
		perSecond: rate.perSecond,
		words: `${rate.words}, set on credential "${name}"`,
	};
	return { root, apiKey, rate: set || undefined, problem, notAllowed, credential };
}

/**
 * The options n8n's request helper gets for an item's request (its authentication then adds the
 * key): sent to the credential's Base URL, with the full response. A fresh copy per attempt, as
 * the authentication adds the key header to the options it gets. A Dry Run shows these options.
 */
export function requestToTarget(
	options: DeclarativeRestApiSettings.HttpRequestOptions,
	target: Pick<ApiTarget, 'root'>,
): IHttpRequestOptions {
	return {
		...options,
		baseURL: target.root,
		headers: { ...options.headers },
		returnFullResponse: true,
	} as IHttpRequestOptions;
}

/** The scheme, host and port of a URL (never its path, query or credentials). */
export function originOf(url: unknown): string {
	return parseUrl(url)?.origin ?? 'another address';
}

/** One key per account however it is written: the host's case, a trailing slash or spaces around the key. */
export function accountOf(root: string, apiKey: string | undefined): string {
	const where = root.trim();
	const url = parseUrl(where);
	// A Base URL that is not a URL is left as written: it sends nothing anyway.
	const account = url ? `${url.origin}${url.pathname.replace(/\/+$/, '')}` : where;
	return createHash('sha256')
		.update(`${account}\n${(apiKey ?? '').trim()}`)
		.digest('hex');
}
