import type { ProcessResult, StartedProcess } from '../processes';

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

export interface RunningN8n {
	url: string;
	proc: StartedProcess;
	stop(): Promise<void>;
}

export const ENCRYPTION_KEY: string;
export function n8nCli(
	bin: string,
	args: string[],
	userFolder: string,
	options?: { timeoutMs?: number; allowFailure?: boolean; extra?: Record<string, string> },
): Promise<ProcessResult>;
/** The environment of an n8n process of this binary's version: fresh ports, the user folder, `extra` on top. */
export function freshEnv(bin: string, userFolder: string, extra?: Record<string, string>): Promise<NodeJS.ProcessEnv>;
export function importIntoN8n(
	bin: string,
	userFolder: string,
	imports: { credentials?: object[]; workflows?: Array<{ id: string }> },
): Promise<void>;
export function parseExecuteOutput(stdout: string): N8nRun | undefined;
export function executeWorkflow(
	bin: string,
	id: string,
	userFolder: string,
	options?: { timeoutMs?: number; extra?: Record<string, string> },
): Promise<{ code: number | null; run: N8nRun; stdout: string; stderr: string }>;
export function executeWorkflowProcess(
	bin: string,
	id: string,
	userFolder: string,
	options?: { timeoutMs?: number; onStart?: (pid: number | undefined) => void },
): Promise<ProcessResult>;
export function startN8n(
	bin: string,
	userFolder: string,
	options?: { port?: number; logDir?: string; extra?: Record<string, string> },
): Promise<RunningN8n>;
