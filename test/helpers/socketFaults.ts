/**
 * Faults on the real sockets of the node's requests, at the point of the exchange where a network
 * fails: each client socket this process opens is seen as it connects (Node's `net.client.socket`
 * diagnostics channel, then the socket's `connectionAttempt`), and a test destroys it with the
 * error the kernel would give; or the node is pointed at a server that breaks the TLS handshake,
 * presents a certificate Node refuses, or a proxy that closes before answering the CONNECT; or a
 * name resolves as the machine's resolver would have it (several addresses, or Node's DNS error).
 */
import dns from 'node:dns';
import { subscribe, unsubscribe } from 'node:diagnostics_channel';
import { createServer, type Server, type Socket } from 'node:net';
import { createServer as createTlsServer, type TlsOptions } from 'node:tls';

/** An error as Node makes it of a failed system call (`read EHOSTUNREACH`). */
export function kernelError(syscall: string, code: string, errno: number): Error {
	return Object.assign(new Error(`${syscall} ${code}`), { code, errno, syscall });
}

/**
 * Calls `fault` for each client socket of this process as it starts connecting to `port` (before
 * the connection is made), until the returned function is called.
 */
export function faultSockets(port: number, fault: (socket: Socket) => void): () => void {
	const listener = (message: unknown) => {
		const { socket } = message as { socket: Socket };
		socket.once('connectionAttempt', (_ip: string, attemptPort: number) => {
			if (attemptPort === port) fault(socket);
		});
	};
	subscribe('net.client.socket', listener);
	return () => unsubscribe('net.client.socket', listener);
}

/** The connection never opens: the socket fails as the kernel fails a connect that timed out. */
export const connectTimedOut = (socket: Socket) =>
	process.nextTick(() => socket.destroy(kernelError('connect', 'ETIMEDOUT', -110)));

/**
 * The connection opens and the request is written; once `received()` says the service has it, the
 * socket fails with `error`: by default as the kernel fails a read once the route went away
 * (`read EHOSTUNREACH`).
 */
export const failAfterSending =
	(received: () => boolean, error = kernelError('read', 'EHOSTUNREACH', -113)) =>
	(socket: Socket) => {
		const poll = setInterval(() => {
			if (!received()) return;
			clearInterval(poll);
			socket.destroy(error);
		}, 5);
		socket.once('close', () => clearInterval(poll));
	};

/**
 * A TCP server for the node's https:// requests: it counts the connections and either closes each
 * when the client's first bytes (the TLS ClientHello) arrive, or answers them as a plain HTTP
 * server would (`plain`).
 */
export async function brokenTlsServer(
	mode: 'close' | 'plain',
): Promise<{ url: string; connections: () => number; close: () => Promise<void> }> {
	let connections = 0;
	const server = createServer((socket) => {
		connections++;
		socket.once('data', () =>
			mode === 'plain'
				? socket.end('HTTP/1.1 400 Bad Request\r\nConnection: close\r\n\r\n')
				: socket.end(),
		);
	});
	await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
	const { port } = server.address() as { port: number };
	return {
		url: `https://127.0.0.1:${port}`,
		connections: () => connections,
		close: async () => await new Promise<void>((resolve) => server.close(() => resolve())),
	};
}

/** A TCP or TLS server the node is pointed at, counting the connections it got. */
export interface CountingServer {
	url: string;
	connections: () => number;
	close: () => Promise<void>;
}

async function listening(server: Server, scheme: string, counted: () => number) {
	await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
	const { port } = server.address() as { port: number };
	return {
		url: `${scheme}://127.0.0.1:${port}`,
		connections: counted,
		close: async () => await new Promise<void>((resolve) => server.close(() => resolve())),
	};
}

/**
 * A TLS server with `options` (its certificate, its TLS versions): it counts the connections and
 * the bytes of application data it received (none when the client refused it in the handshake).
 */
export async function tlsServer(
	options: TlsOptions,
): Promise<CountingServer & { received: () => number }> {
	let connections = 0;
	let received = 0;
	const server = createTlsServer(options, (socket) => {
		socket.on('data', (data: Buffer) => (received += data.length));
		socket.on('error', () => undefined);
	});
	server.on('connection', () => connections++);
	server.on('tlsClientError', () => undefined);
	return { ...(await listening(server, 'https', () => connections)), received: () => received };
}

/**
 * An HTTP proxy that reads each CONNECT and closes the connection without answering it, as a
 * proxy going away does (`reset`: resets it, as a proxy's firewall does); counts the CONNECTs.
 */
export async function closingProxy(reset = false): Promise<CountingServer> {
	let connects = 0;
	const server = createServer((socket) => {
		socket.on('error', () => undefined);
		socket.once('data', (data: Buffer) => {
			if (String(data).startsWith('CONNECT ')) connects++;
			if (reset) socket.resetAndDestroy();
			else socket.end();
		});
	});
	return await listening(server, 'http', () => connects);
}

type LookupCallback = (error: Error | null, address?: unknown, family?: number) => void;

/**
 * Until the returned function is called, `name` resolves as `answer(n)` says for its n-th lookup
 * (from 1): the addresses the machine's resolver (/etc/hosts, DNS) would give, or the error Node
 * gives when resolution fails; every other name resolves as before. Node's net module resolves a
 * host with `dns.lookup` (all addresses when autoSelectFamily, its default since Node 20, is on).
 */
export function resolveAs(
	name: string,
	answer: (n: number) => Array<{ address: string; family: 4 | 6 }> | Error,
): { lookups: () => number; restore: () => void } {
	const original = dns.lookup;
	let lookups = 0;
	const lookup = (host: string, options: unknown, callback?: LookupCallback) => {
		const done = (callback ?? options) as LookupCallback;
		const all = typeof options === 'object' && (options as { all?: boolean }).all;
		if (host !== name) return (original as (...args: unknown[]) => void)(host, options, callback);
		const result = answer(++lookups);
		if (result instanceof Error) return process.nextTick(done, result);
		if (all) return process.nextTick(done, null, result);
		process.nextTick(done, null, result[0].address, result[0].family);
	};
	(dns as { lookup: unknown }).lookup = lookup;
	return {
		lookups: () => lookups,
		restore: () => ((dns as { lookup: unknown }).lookup = original),
	};
}

/** The error Node's dns gives for a failed `syscall` (getaddrinfo, or a c-ares query such as queryA). */
export function dnsError(syscall: string, code: string, hostname: string): Error {
	return Object.assign(new Error(`${syscall} ${code} ${hostname}`), { code, syscall, hostname });
}
