import type { IncomingHttpHeaders } from 'http';

export interface RateLimitOptions {
	/** Tokens added per second. */
	ratePerSec: number;
	/** Bucket size; defaults to max(1, ratePerSec). */
	burst?: number;
}

export interface ChaosOptions {
	/** Share of requests answered 429 (Retry-After: 1) without being applied. */
	rate429?: number;
	/** Share of requests answered 503 (Retry-After: 1) without being applied. */
	rate503?: number;
	/** Share of requests whose socket is destroyed, half before and half after applying. */
	rateReset?: number;
	/** Seed of the PRNG; the same seed gives the same sequence of fates. Default 1. */
	seed?: number;
	/** Retry-After of the chaos 429 and 503 answers, whole seconds. Default 1. */
	retryAfterSeconds?: number;
}

export interface ModeOptions {
	latencyMs?: number;
	/** null or undefined switches the rate limit off. */
	rateLimit?: RateLimitOptions | null;
	/** null or undefined switches chaos off. */
	chaos?: ChaosOptions | null;
}

export interface SimulatorOptions extends ModeOptions {
	/** Requests whose x-api-key header differs get 401. */
	apiKey: string;
	/** Default 127.0.0.1. */
	host?: string;
	/** Default 0: a random free port. */
	port?: number;
	/** Seed assistants; defaults to defaultAssistants(). Wins over the data file's. */
	assistants?: Array<Record<string, unknown>>;
	/** Load state from it if it exists; save to it (throttled, and on close) when data changes. */
	dataFile?: string;
}

/**
 * applied: answered normally without error (for writes: the change was made);
 * rejected: answered with an error status, nothing changed (also canned answers);
 * throttled: 429 from the rate limit or chaos, or chaos 503;
 * reset-before / reset-after: socket destroyed without an answer, before or after applying;
 * pending: not answered yet.
 */
export type Outcome = 'pending' | 'applied' | 'rejected' | 'reset-before' | 'reset-after' | 'throttled';

export interface RecordedRequest {
	method: string;
	/** Path without the query string. */
	path: string;
	query: Record<string, string>;
	headers: IncomingHttpHeaders;
	rawBody: string;
	/** Parsed JSON, or undefined if empty or not JSON. */
	body: unknown;
	/** Status answered, 0 for a reset (or while pending). */
	status: number;
	/** Date.now() when the request arrived. */
	receivedAt: number;
	/** Date.now() when it was answered or reset; absent while pending. */
	answeredAt?: number;
	outcome: Outcome;
	/** True when answered from failNext. */
	canned?: boolean;
}

export type LedgerOp =
	| 'playground.call'
	| 'knowledgeBase.create'
	| 'knowledgeBase.update'
	| 'segment.contact.update';

export interface LedgerEntry {
	op: LedgerOp;
	/** Query id of the update operations; undefined for playground.call and knowledgeBase.create. */
	id: string | undefined;
	body: unknown;
	/** Date.now() when applied. */
	at: number;
	/** knowledgeBase.create only: the id the record was stored under (never returned by the API). */
	createdId?: string;
}

export interface Ledger {
	applied: LedgerEntry[];
	/** key = op + ':' + (id ?? JSON.stringify(body)) */
	countsByKey: Map<string, number>;
}

export interface Stats {
	/** Received and not yet answered, latency included. */
	inFlight: number;
	maxInFlight: number;
	total: number;
}

export interface FailureSpec {
	/** HTTP status to answer, or 0 to destroy the socket. */
	status: number;
	/** JSON body; defaults to {message: <status text>}. */
	body?: unknown;
	/** Raw (e.g. HTML) body instead of JSON; content-type defaults to text/html. */
	rawBody?: string;
	headers?: Record<string, string>;
	/** How many matching requests get this answer. Default 1. */
	times?: number;
	/** Only requests with this method match. */
	method?: string;
	/** Only requests with this path (without query) match. */
	path?: string;
	/** Only requests with this `id` query parameter match. */
	id?: string;
	/** Only requests whose JSON body has each of these fields with this value (compared as JSON) match. */
	bodyFields?: Record<string, unknown>;
	/**
	 * With status 0 only: the request goes through as usual (auth, rate limit, validation) and,
	 * once it is applied, its connection is cut instead of answered (outcome reset-after,
	 * canned). Requests not applied do not use it up.
	 */
	afterApplying?: boolean;
}

export interface KnowledgeBase {
	title: string;
	language: string;
	data: Array<{ question: string; answer: string }>;
}

export interface SimulatorData {
	assistants: Array<Record<string, unknown>>;
	knowledgeBases: Record<string, KnowledgeBase>;
	contacts: Record<string, Record<string, unknown>>;
	calls: Array<Record<string, unknown>>;
}

export interface Simulator {
	/** e.g. http://127.0.0.1:PORT, without trailing slash. */
	url: string;
	readonly requests: RecordedRequest[];
	readonly ledger: Ledger;
	readonly stats: Stats;
	readonly data: SimulatorData;
	/** Clears requests, ledger, queued failures and stats, and refills the rate-limit bucket; keeps data. */
	reset(): void;
	/** Queues a canned answer, given before auth and validation, never applied (or a cut after applying: afterApplying). */
	failNext(spec: FailureSpec): void;
	/** Changes only the keys present. */
	setOptions(options: ModeOptions): void;
	close(): Promise<void>;
}

export function createSimulator(options: SimulatorOptions): Promise<Simulator>;

/**
 * The simulator's reading of the spec for one request (rules.js), as it answers: an unknown
 * path (404), another method (405, with Allow), a body not declared JSON (415), then 400 for an
 * empty or malformed body, a body sent to an endpoint without one, a missing id, another query
 * parameter, or the body's first failing field. Null when the request is what the spec asks.
 */
export function requestProblem(
	request: Pick<RecordedRequest, 'method' | 'path' | 'query' | 'headers' | 'rawBody'>,
): { status: number; message: string; headers?: Record<string, string> } | null;

/** Null when x-api-key is `expected`, else what is wrong. */
export function apiKeyProblem(headers: IncomingHttpHeaders, expected: string): string | null;

export function defaultAssistants(): Array<Record<string, unknown>>;
export function defaultKnowledgeBases(): Record<string, KnowledgeBase>;
export const OPT_OUT_SCRIPT: string;
export const SEEDED_KNOWLEDGE_BASE_IDS: Readonly<{ solarFaq: string; workshopHours: string }>;
