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

export function freePort(): Promise<number>;
export function cleanEnv(extra?: Record<string, string>): NodeJS.ProcessEnv;
export function killGroup(pid: number, signal: NodeJS.Signals): boolean;
export function killAll(signal?: NodeJS.Signals): void;
export function sleep(ms: number): Promise<void>;
export function startProcess(
	command: string,
	args: string[],
	options?: { cwd?: string; env?: NodeJS.ProcessEnv; logDir?: string; name?: string; inherit?: boolean },
): StartedProcess;
export function runProcess(
	command: string,
	args: string[],
	options?: {
		cwd?: string;
		env?: NodeJS.ProcessEnv;
		timeoutMs?: number;
		logDir?: string;
		name?: string;
		inherit?: boolean;
		onStart?: (proc: StartedProcess) => void;
	},
): Promise<ProcessResult>;
