import type { Cluster, Postgres, Redis } from './index';

export function queueVersions(): string[];
export function queueSettings(options: { redis: Redis; postgres: Postgres; database: string; prefix: string }): Record<string, string>;
export function startedExecutions(logText: string): string[];
export function startCluster(options: {
	bin: string;
	version: string;
	tarball: string;
	workDir: string;
	redis: Redis;
	postgres: Postgres;
	credentials: object[];
	workflows: Array<{ id: string; nodes: Array<{ type: string; parameters: Record<string, any> }> }>;
	publish: string[];
	workers?: number;
	concurrency?: number;
	log?: (line: string) => void;
}): Promise<Cluster>;
