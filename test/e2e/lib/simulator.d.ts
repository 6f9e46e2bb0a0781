import type { SimulatorProcess } from './index';

export function startSimulator(options: {
	apiKey: string;
	port?: number;
	dataFile?: string;
	logDir?: string;
}): Promise<SimulatorProcess>;
