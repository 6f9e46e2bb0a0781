/**
 * The MCP client of the e2e suite: the MCP TypeScript SDK's Client and its Streamable HTTP and
 * SSE transports, loaded from the n8n install under test (n8n depends on the SDK itself: 1.25.2
 * in 2.8.4, 1.32.2 in 1.123.50, 1.26.0 in 2.41.1). The repository keeps no copy in its own
 * node_modules: `npm run dev` links this folder into n8n's custom folder, n8n loads every
 * `*.node.js` file below that folder as a node, and the SDK's dependency pkce-challenge ships
 * `dist/index.node.js`, which stopped n8n from starting ("require(...).index is not a
 * constructor").
 */
import { createRequire } from 'node:module';
import path from 'node:path';
import { installDir } from '../../tools/n8n';

/** A tool as `tools/list` describes it. */
export interface McpTool {
	name: string;
	description?: string;
	inputSchema: unknown;
}

/** The part of the SDK's Client the suite uses. */
export interface McpClient {
	connect(transport: unknown): Promise<void>;
	listTools(): Promise<{ tools: McpTool[] }>;
	/** `options.timeout`: how long the client waits for the answer (the SDK's default: 60 s). */
	callTool(
		params: { name: string; arguments: Record<string, unknown> },
		resultSchema?: unknown,
		options?: { timeout?: number },
	): Promise<unknown>;
	close(): Promise<void>;
}

type TransportClass = new (url: URL, options: { requestInit: RequestInit }) => unknown;

/** A client of n8n `version`'s SDK connected to `url` over either transport. */
export async function connectMcpClient(
	version: string,
	url: URL,
	transport: 'http' | 'sse',
	requestInit: RequestInit,
): Promise<McpClient> {
	const fromN8n = createRequire(path.join(installDir(version), 'package.json'));
	const sdk = (file: string) => fromN8n(`@modelcontextprotocol/sdk/client/${file}`);
	const Client = sdk('index.js').Client as new (info: {
		name: string;
		version: string;
	}) => McpClient;
	const Transport = (
		transport === 'http'
			? sdk('streamableHttp.js').StreamableHTTPClientTransport
			: sdk('sse.js').SSEClientTransport
	) as TransportClass;
	const client = new Client({ name: 'va-e2e-mcp-client', version: '1.0.0' });
	await client.connect(new Transport(url, { requestInit }));
	return client;
}
