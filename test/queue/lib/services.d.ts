import type { Postgres, Redis } from './index';

export function startRedis(options: { logDir: string }): Promise<Redis>;
export function startPostgres(options: { logDir: string }): Promise<Postgres>;
