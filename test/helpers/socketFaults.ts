/**
 * Faults on the real sockets of the node's requests, at the point of the exchange where a network
 * fails: each client socket this process opens is seen as it connects (Node's `net.client.socket`
 * diagnostics channel, then the socket's `connectionAttempt`), and a test destroys it with the
 * error the kernel would give; or the node is pointed at a server that breaks the TLS handshake.
 */
import { subscribe, unsubscribe } from 'node:diagnostics_channel';
import { createServer, type Socket } from 'node:net';

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
