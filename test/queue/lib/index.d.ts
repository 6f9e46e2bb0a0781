/** Types of the queue-mode harness (plain CommonJS, like tools/). */
import type { N8nRun, RunningN8n } from '../../../tools/n8n';
import type { StartedProcess } from '../../../tools/processes';
export type { Postgres, Redis } from '../../../tools/services';

export interface Worker {
	name: string;
	index: number;
	proc: StartedProcess;
	healthPort: number;
	killed: boolean;
}

export interface Cluster {
	version: string;
	userFolder: string;
	logDir: string;
	database: string;
	settings: Record<string, string>;
	timings: Record<string, number>;
	main: RunningN8n;
	workers: Worker[];
	startWorker(options?: { ownUserFolder?: boolean }): Promise<Worker>;
	webhookUrl(path: string): string;
	executionsByWorker(): Record<string, string>;
	killWorker(worker: Worker): Promise<void>;
	allLogs(): Array<{ file: string; text: string }>;
	stop(): Promise<void>;
}

export interface ExecutionRow {
	id: string;
	status: string;
	workflowId: string;
	startedAt?: number;
	stoppedAt?: number;
}

export interface Executions {
	lastId(): Promise<number>;
	list(afterId: number, workflowId?: string): Promise<ExecutionRow[]>;
	waitForNew(afterId: number, count: number, options?: { timeoutMs?: number }): Promise<ExecutionRow[]>;
	waitForFinished(ids: string[], options?: { timeoutMs?: number }): Promise<ExecutionRow[]>;
	run(id: string): Promise<N8nRun | undefined>;
	processedKeys(workflowId: string): Promise<string[]>;
}
