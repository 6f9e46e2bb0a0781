// Where an attempt without an answer failed: before its request was written (resolving the name,
// connecting, the TLS handshake), so the service cannot have received it, or not known to be
// before. Read from the error n8n's request helper throws; when it does not tell, the request
// counts as written. What it reads, and where that comes from:
// - n8n-core's httpRequestWithAuthentication throws NodeApiError(node, axiosError), which keeps
//   the axios error's message in `messages` (n8n-workflow's NodeError.addToMessages) on every
//   version. Node's system errors say `<syscall> <code>` there: 'getaddrinfo' (or c-ares'
//   'query…') for the name, 'connect', then 'read'/'write' once connected. OpenSSL's handshake
//   errors and Node's "disconnected before secure TLS connection was established" say TLS.
// - The axios error itself is the NodeApiError's `cause` from n8n-workflow 2.x's BaseError on
//   (2.41 keeps it; 1.123 and 2.8 lose it to a class field). axios's AxiosError.from puts the
//   ClientRequest in `request` (n8n sets maxRedirects 0, so not follow-redirects' wrapper), whose
//   socket tells what the message cannot (a reset mid-handshake, a deadline while connecting):
//   Node's `_secureEstablished` turns true once the TLS handshake completes, and a plain socket's
//   `_bytesDispatched` counts the bytes handed to the kernel.

/** The step that failed, when it came before the request was written. */
export type Phase = 'name' | 'connect' | 'tls';

interface Link {
	message?: unknown;
	messages?: unknown;
	code?: unknown;
	httpCode?: unknown;
	syscall?: unknown;
	cause?: unknown;
	request?: { socket?: SocketState | null };
}

interface SocketState {
	encrypted?: boolean;
	_secureEstablished?: boolean;
	_bytesDispatched?: number;
}

/** Node's message of a failed system call: `connect ECONNREFUSED 127.0.0.1:9`. */
const SYSTEM_MESSAGE = /^(getaddrinfo|query\w*|connect|read|write) E[A-Z]+\b/;
/** OpenSSL and Node on a handshake that did not complete (a plain HTTP port answers `wrong version number`). */
const TLS_HANDSHAKE =
	/before secure TLS connection was established|wrong version number|packet length too long|unknown protocol|unsupported protocol|handshake failure/i;
/** Codes that only one step gives, for an error that says nothing else. */
const PHASE_OF_CODE: Readonly<Record<string, Phase>> = {
	ENOTFOUND: 'name',
	EAI_AGAIN: 'name',
	EAI_FAIL: 'name',
	ECONNREFUSED: 'connect',
};

/** The error and its causes, outermost first. */
function chainOf(error: unknown): Link[] {
	const chain: Link[] = [];
	for (let link = error; link && typeof link === 'object' && chain.length < 5; ) {
		chain.push(link as Link);
		link = (link as Link).cause;
	}
	return chain;
}

const isText = (value: unknown): value is string => typeof value === 'string';

/** The first errno-like code of the chain (n8n puts it in httpCode). */
export function errnoOf(error: unknown): string | undefined {
	const codes = chainOf(error).flatMap(({ httpCode, code }) => [httpCode, code]);
	return codes.find((value): value is string => isText(value) && /^[A-Z][A-Z0-9_]+$/.test(value));
}

export function phaseOf(error: unknown): Phase | undefined {
	const chain = chainOf(error);
	const texts = chain
		.flatMap(({ message, messages }) => [message, ...(Array.isArray(messages) ? messages : [])])
		.filter(isText);
	const syscall =
		chain.map((link) => link.syscall).find(isText) ??
		texts.map((text) => SYSTEM_MESSAGE.exec(text)?.[1]).find(isText);
	if (syscall === 'getaddrinfo' || /^query/.test(String(syscall))) return 'name';
	if (syscall === 'connect') return 'connect';
	if (texts.some((text) => TLS_HANDSHAKE.test(text))) return 'tls';
	const socket = chain.map((link) => link.request?.socket).find(Boolean);
	if (socket?.encrypted) return socket._secureEstablished === false ? 'tls' : undefined;
	if (socket) return socket._bytesDispatched === 0 ? 'connect' : undefined;
	return syscall ? undefined : PHASE_OF_CODE[errnoOf(error) ?? ''];
}
