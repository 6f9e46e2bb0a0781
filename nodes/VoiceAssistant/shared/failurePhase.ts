// Where an attempt without an answer failed: before its request was written (the name, connect,
// the TLS handshake), so the service cannot have received it, or not known to be (counted as
// written). n8n's httpRequestWithAuthentication throws NodeApiError(node, axiosError), which keeps
// Node's message in `messages` on every version: `<syscall> <code>` ('getaddrinfo' or 'query…',
// 'connect', then 'read'/'write'), or OpenSSL's and the TLS socket's handshake words. n8n 2.41
// also keeps the axios error as `cause` (1.123 and 2.8 lose it to a class field), whose `request`
// (AxiosError.from) has the socket: `_secureEstablished` (TLS handshake done), `_bytesDispatched`.
/** The step that failed, when it came before the request was written. */
export type Phase = 'name' | 'connect' | 'tls';

type Socket = { encrypted?: boolean; _secureEstablished?: boolean; _bytesDispatched?: number };
type Link = Record<string, unknown> & { request?: { socket?: Socket | null } };

const SYSTEM_MESSAGE = /^(getaddrinfo|query\w*|connect|read|write) E[A-Z]+\b/;
/** OpenSSL's words when a plain HTTP port answered the ClientHello. */
export const PLAIN_HTTP_ANSWER = /wrong version number|packet length too long/i;
const TLS_HANDSHAKE =
	/before secure TLS connection was established|unknown protocol|unsupported protocol|handshake failure/i;
/** Codes that only one step gives, for an error that says nothing else. */
const PHASE_OF_CODE: Record<string, Phase> = {
	ENOTFOUND: 'name',
	EAI_AGAIN: 'name',
	ECONNREFUSED: 'connect',
};

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

/** The first errno-like code of the chain (n8n puts it in httpCode). */
export function errnoOf(error: unknown): string | undefined {
	const codes = chainOf(error).flatMap(({ httpCode, code }) => [httpCode, code]);
	return codes.find((value): value is string => isText(value) && /^[A-Z][A-Z0-9_]+$/.test(value));
}

export function phaseOf(error: unknown): Phase | undefined {
	const chain = chainOf(error);
	const texts = chain.flatMap(({ message, messages }) => [message, messages].flat()).filter(isText);
	const syscall =
		chain.map((link) => link.syscall).find(isText) ??
		texts.map((text) => SYSTEM_MESSAGE.exec(text)?.[1]).find(isText);
	if (syscall === 'getaddrinfo' || /^query/.test(String(syscall))) return 'name';
	if (syscall === 'connect') return 'connect';
	if (texts.some((text) => TLS_HANDSHAKE.test(text) || PLAIN_HTTP_ANSWER.test(text))) return 'tls';
	const socket = chain.map((link) => link.request?.socket).find(Boolean);
	if (socket?.encrypted) return socket._secureEstablished === false ? 'tls' : undefined;
	if (socket) return socket._bytesDispatched === 0 ? 'connect' : undefined;
	return syscall ? undefined : PHASE_OF_CODE[errnoOf(error) ?? ''];
}
