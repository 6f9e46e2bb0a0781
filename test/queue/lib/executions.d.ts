import type { Executions, Postgres } from './index';

export const FINISHED: string[];
export function executionsOf(postgres: Postgres, database: string): Executions;
export function processedKeyHash(value: string): string;
export function unflatten(text: string): any;
