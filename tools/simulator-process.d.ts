import type { FailureSpec, ModeOptions, RecordedRequest } from '../test/simulator';
import type { StartedProcess } from './processes';

/** What GET /__sim/summary answers (test/simulator/control.js). */
export interface SimulatorSummary {
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
}

/** The /__sim control endpoints of a running simulator, over HTTP. */
export interface SimulatorControl {
	requests(): Promise<RecordedRequest[]>;
	ledger(): Promise<{ applied: Array<{ op: string; id?: string; body: any }>; countsByKey: Record<string, number> }>;
	data(): Promise<{
		assistants: Array<Record<string, any>>;
		knowledgeBases: Record<string, { title: string; language: string; data: Array<{ question: string; answer: string }> }>;
		contacts: Record<string, Record<string, any>>;
		calls: Array<Record<string, any>>;
	}>;
	summary(): Promise<SimulatorSummary>;
	reset(): Promise<unknown>;
	failNext(spec: FailureSpec): Promise<unknown>;
	/** Only the keys given change; null switches a mode off. */
	setOptions(modes: ModeOptions): Promise<unknown>;
}

export interface SimulatorProcess extends SimulatorControl {
	url: string;
	proc: StartedProcess;
	/** SIGTERM: the simulator saves its data file and exits. */
	stop(): Promise<void>;
}

export function simulatorControl(url: string): SimulatorControl;
export function startSimulatorProcess(options: {
	apiKey: string;
	port?: number;
	dataFile?: string;
	logDir?: string;
}): Promise<SimulatorProcess>;
