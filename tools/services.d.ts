import type { StartedProcess } from './processes';

export interface Redis {
	host: string;
	port: number;
	dataDir: string;
	proc: StartedProcess;
	/** Everything Redis holds, as the text of an uncompressed snapshot. */
	snapshot(): Promise<string>;
	stop(): Promise<void>;
}

export interface Postgres {
	host: string;
	port: number;
	user: string;
	password: string;
	dataDir: string;
	proc: StartedProcess;
	createDatabase(name: string): Promise<string>;
	/** Rows of a query as arrays of text fields. */
	query(database: string, sql: string): Promise<string[][]>;
	dump(database: string): Promise<string>;
	stop(): Promise<void>;
}

/** Why PostgreSQL cannot be started on this machine (its binaries are missing), or undefined. */
export function postgresMissing(): string | undefined;
export function startRedis(options: { logDir: string }): Promise<Redis>;
export function startPostgres(options: { logDir: string }): Promise<Postgres>;
