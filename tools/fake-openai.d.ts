import type { IncomingHttpHeaders } from 'http';

/** One answer of the fake model: tool calls (name and arguments), or a final assistant message. */
export type Answer = { toolCalls: Array<{ name: string; arguments: Record<string, unknown> }> } | { content: string };

/** A reply of the script: an answer, or a function of the request it answers that returns one. */
export type Reply = Answer | ((request: ModelRequest) => Answer);

export interface ModelRequest {
	method: string;
	path: string;
	headers: IncomingHttpHeaders;
	body: any;
}

export interface FakeOpenAi {
	/** The Base URL for an OpenAI credential (ends in /v1). */
	baseUrl: string;
	/** Replaces the script and forgets earlier requests. */
	script(replies: Reply[]): void;
	remaining(): number;
	requests(): ModelRequest[];
	stop(): Promise<void>;
}

export function startFakeOpenAi(): Promise<FakeOpenAi>;
export function toolResults(request: ModelRequest): Array<{ callId: string; content: unknown }>;
