/** Types of the e2e harness (plain CommonJS so that demo/run.js can use it without a build). */
import type { RecordedRequest } from '../../simulator';

export interface ProcessResult {
	code: number | null;
	signal: string | null;
	stdout: string;
	stderr: string;
	timedOut: boolean;
}

export interface StartedProcess {
	pid: number;
	stdoutFile: string;
	stderrFile: string;
	exited: Promise<{ code: number | null; signal: string | null }>;
	readStdout(): string;
	readStderr(): string;
	/** The command's own process id (the group's leader is its guard). */
	commandPid(): Promise<number | undefined>;
	stop(graceMs?: number): Promise<void>;
}

/** The run data `n8n execute --rawOutput` prints (only the parts the suite reads). */
export interface N8nItem {
	json: Record<string, any>;
	pairedItem?: { item: number; input?: number } | Array<{ item: number }>;
	error?: Record<string, any>;
}

export interface N8nRun {
	data: {
		resultData: {
			runData: Record<
				string,
				Array<{ executionStatus?: string; error?: Record<string, any>; data?: { main: N8nItem[][] } }>
			>;
			error?: Record<string, any> & { message: string };
			lastNodeExecuted?: string;
		};
	};
	status?: string;
	finished?: boolean;
}

export interface Owner {
	email: string;
	firstName: string;
	lastName: string;
	password: string;
}

export interface RunningN8n {
	url: string;
	proc: StartedProcess;
	stop(): Promise<void>;
}

export interface SimulatorProcess {
	url: string;
	proc: StartedProcess;
	requests(): Promise<RecordedRequest[]>;
	ledger(): Promise<{ applied: Array<{ op: string; id?: string; body: any }>; countsByKey: Record<string, number> }>;
	data(): Promise<{
		assistants: Array<Record<string, any>>;
		knowledgeBases: Record<string, { title: string; language: string; data: Array<{ question: string; answer: string }> }>;
		contacts: Record<string, Record<string, any>>;
		calls: Array<Record<string, any>>;
	}>;
	reset(): Promise<unknown>;
	failNext(spec: { status: number; body?: unknown; headers?: Record<string, string>; times?: number; method?: string; path?: string; id?: string }): Promise<unknown>;
	setOptions(modes: {
		latencyMs?: number | null;
		rateLimit?: { ratePerSec: number; burst?: number } | null;
		chaos?: { rate429?: number; rate503?: number; rateReset?: number; seed?: number; retryAfterSeconds?: number } | null;
	}): Promise<unknown>;
	summary(): Promise<{
		total: number;
		maxInFlight: number;
		byStatus: Record<string, number>;
		p50Ms: number;
		p99Ms: number;
		firstAt?: number;
		lastAt?: number;
		appliedChanges: number;
		distinctChanges: number;
		duplicatedChanges: number;
	}>;
	stop(): Promise<void>;
}
