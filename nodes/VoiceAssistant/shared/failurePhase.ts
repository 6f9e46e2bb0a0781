// Where an attempt without an answer failed: before its request was written (the name, connect,
// a proxy's tunnel, the TLS handshake, the server's certificate), so the service cannot have
// received it, or not known to be (counted as written), read from Node's documented error surface
// (docs/how-it-works.md, "The failure model"). n8n's httpRequestWithAuthentication throws
// NodeApiError(node, axiosError): Node's message in `messages`, what n8n found in it in `description`
// (an AggregateError's per-address messages, joined by " | "); n8n 2.41 also keeps the axios error as
// `cause` (1.123 and 2.8 lose it), whose `request` has the socket (`_secureEstablished`,
// `_bytesDispatched`) or none.
/** The step that failed, when it came before the request was written (ssrf: n8n refused the address). */
export type Phase = 'name' | 'connect' | 'proxy' | 'tls' | 'certificate' | 'ssrf';

type Socket = { encrypted?: boolean; _secureEstablished?: boolean; _bytesDispatched?: number };
type Link = Record<string, unknown> & { request?: { socket?: Socket | null } };

/** Node's message of a failed system call (internal/errors.js): `<syscall> <code>[ <host or address:port>]`. */
const SYSTEM_MESSAGE = /^(getaddrinfo|query\w*|connect|bind|read|write) E[A-Z0-9_]+\b/;
/** OpenSSL's words when a plain HTTP port answered the ClientHello. */
export const PLAIN_HTTP_ANSWER = /wrong[ _]version[ _]number|packet[ _]length[ _]too[ _]long/i;
/**
 * OpenSSL's reasons (in its message, or Node's ERR_SSL_ code) that only a handshake gives: not TLS,
 * no common version or cipher, a weak key, the name; Node's words for a close during the handshake.
 */
const HANDSHAKE_REASONS =
	'wrong version number|packet length too long|before secure TLS connection|' +
	'unknown protocol|unsupported protocol|no protocols available|no ciphers available|' +
	'tlsv1 alert protocol version|sslv3 alert handshake failure|tlsv1 unrecognized name|' +
	'tlsv1 alert insufficient security|dh key too small|ee key too small|ca md too weak|' +
	'ca key too small|unsafe legacy renegotiation disabled';
/** What each phase's words show of the error: the name or addresses tried (by their system call), the proxy's, OpenSSL's. */
const DETAIL: Partial<Record<Phase, RegExp>> = {
	name: /^(getaddrinfo|query\w*) .*/,
	connect: /^(connect|bind) .*/,
	// https-proxy-agent's errors (parse-proxy-response.js) before the CONNECT is answered: n8n's
	// Request Options → Proxy and HTTP(S)_PROXY use it on every version claimed, for https://.
	proxy: /.*\bCONNECT response\b.*/,
	tls: new RegExp(HANDSHAKE_REASONS.replace(/ /g, '[ _]'), 'i'),
	// n8n 2.41's SSRF protection (@n8n/backend-network SsrfBlockedIpError, SsrfBlockedHostnameError),
	// before the connection: the address (its description), or the host name.
	ssrf: /(?<=The target ).*(?= is not allowed)|(?<=The hostname ).*(?= is on)/,
};
/** Codes that only one step gives, for an error that says nothing else: phase, codes (`*`: any ending). */
const CODES: Array<[Phase, string]> = [
	// getaddrinfo's (libuv EAI_*, ENOTFOUND), the dns docs' c-ares codes no socket gives (not ENODATA, ENOMEM, EOF)
	['name', 'ENOTFOUND EAI_* EFORMERR ESERVFAIL ENOTIMP EREFUSED EBADQUERY EBADNAME EBADFAMILY'],
	['name', 'EBADRESP ETIMEOUT EFILE EDESTRUCTION EBADSTR EBADFLAGS ENONAME EBADHINTS ECANCELLED'],
	['name', 'ENOTINITIALIZED ELOADIPHLPAPI EADDRGETNETWORKPARAMS'],
	// net.js internalConnectMultiple: every address of autoSelectFamily timed out without an error.
	['connect', 'ECONNREFUSED ERR_SOCKET_CONNECTION_TIMEOUT'],
	// The tls docs' X509 codes (crypto_common.cc X509ErrorCode, UNSPECIFIED for any other), checked
	// before 'secureConnect', so before the request is written; tls.checkServerIdentity's.
	['certificate', 'UNABLE_TO_* CERT_* CRL_* ERROR_IN_* OUT_OF_MEM DEPTH_ZERO_SELF_SIGNED_CERT'],
	['certificate', 'SELF_SIGNED_CERT_IN_CHAIN INVALID_CA PATH_LENGTH_EXCEEDED INVALID_PURPOSE'],
	['certificate', 'HOSTNAME_MISMATCH UNSPECIFIED ERR_TLS_CERT_ALTNAME_*'],
];
const phaseOfCode = (code = '') =>
	CODES.find(([, codes]) =>
		new RegExp(`^(${codes.replace(/\*/g, '\\w+').replace(/ /g, '|')})$`).test(code),
	)?.[0];

const isText = (value: unknown): value is string => typeof value === 'string';

/** The error and its causes, outermost first. */
function chainOf(error: unknown): Link[] {
	const chain: Link[] = [];
	for (
		let link = error;
		link && typeof link === 'object' && chain.length < 5;
		link = chain.at(-1)?.cause
	)
		chain.push(link as Link);
	return chain;
}

/** Every message and code of the chain; an AggregateError's per-address ones (`errors`, n8n's description) each apart. */
function textsOf(error: unknown): string[] {
	const found = chainOf(error).flatMap((link) =>
		[link.message, link.messages, link.description, link.errors, link.code, link.httpCode].flat(),
	);
	return found
		.flatMap((text) => (isText(text) ? text.split(' | ') : (text as Link)?.message))
		.filter(isText);
}

/** The first errno-like code of the chain (n8n puts it in httpCode). */
export function errnoOf(error: unknown): string | undefined {
	const codes = chainOf(error).flatMap(({ httpCode, code }) => [httpCode, code]);
	return codes.find((value): value is string => isText(value) && /^[A-Z][A-Z0-9_]+$/.test(value));
}

export function phaseOf(error: unknown): Phase | undefined {
	const byCode = phaseOfCode(errnoOf(error));
	if (byCode === 'certificate') return byCode;
	const chain = chainOf(error);
	const texts = textsOf(error);
	const says = (phase: Phase) => texts.some((text) => DETAIL[phase]?.test(text));
	if (says('ssrf')) return 'ssrf';
	// n8n 2.41: the request never had a socket (a proxy that did not open the tunnel, a Timeout
	// first), so nothing of it was written. (The node never follows a redirect.)
	if (chain.some((link) => link.request?.socket === null))
		return says('proxy') ? 'proxy' : 'connect';
	const syscalls = [
		...chain.map((link) => link.syscall),
		...texts.map((text) => SYSTEM_MESSAGE.exec(text)?.[1]),
	].filter(isText);
	// The step of each system call, where it comes before anything is written.
	const steps = ['name', 'connect'] as const;
	const phases = syscalls.map((call) => steps.find((step) => DETAIL[step]?.test(`${call} `)));
	if (phases.length && phases.every(Boolean)) return phases.includes('name') ? 'name' : 'connect';
	const socket = chain.map((link) => link.request?.socket).find(Boolean);
	if (socket?.encrypted) return socket._secureEstablished === false ? 'tls' : undefined;
	if (socket) return socket._bytesDispatched === 0 ? 'connect' : undefined;
	if (says('proxy')) return 'proxy';
	if (says('tls')) return 'tls';
	return syscalls.length ? undefined : byCode;
}

/** Node's words for what failed, as the error keeps them: each address or name tried, the proxy's, OpenSSL's reason. */
export function detailOf(error: unknown, phase: Phase): string | undefined {
	const found = textsOf(error).map((text) => DETAIL[phase]?.exec(text)?.[0]);
	return [...new Set(found.filter(isText))].join('; ') || undefined;
}
