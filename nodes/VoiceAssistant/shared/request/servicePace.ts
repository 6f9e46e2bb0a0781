import { createHash } from 'crypto';
import { PaceGate } from './paceGate';
import { RatePacer } from './ratePacer';
import type { ApiTarget } from './target';

/**
 * A pace nobody used for this long is not joined: a run that never ended (an item n8n failed
 * before it reached the node's send step) must not pace runs long after it.
 */
export const STALE_PACE_MS = 60_000;

/** The pace of one service account, and the runs of this n8n process sending to it now. */
export interface ServicePace {
	/** Its key in the map. */
	readonly account: string;
	readonly pacer: RatePacer;
	readonly gate: PaceGate;
	runs: number;
}

/** By a hash of the Base URL and the API key: the map never holds the key. */
const paces = new Map<string, ServicePace>();

function accountOf({ root, apiKey }: Pick<ApiTarget, 'root' | 'apiKey'>): string {
	return createHash('sha256').update(`${root}\n${apiKey ?? ''}`).digest('hex');
}

/**
 * Joins the pace of the service account a run sends to. A rate limit belongs to the account, not
 * to a run: runs of this process that send to it at the same time (two executions, an agent's
 * tool calls during a bulk run, a queue-mode worker's executions) take turns at one pace, in
 * arrival order. Each with its own pace, a run that started while another held the limit would
 * be paced at the little it got, and, both growing by a share of their own pace, stay there.
 * Runs that do not overlap do not share: each finds the limit anew, as a single run does.
 */
export function joinServicePace(target: Pick<ApiTarget, 'root' | 'apiKey'>, now: () => number = Date.now): ServicePace {
	const account = accountOf(target);
	let pace = paces.get(account);
	if (!pace || now() - pace.pacer.lastActiveAt > STALE_PACE_MS) {
		const pacer = new RatePacer(now);
		pace = { account, pacer, gate: new PaceGate(pacer), runs: 0 };
		paces.set(account, pace);
	}
	pace.runs++;
	return pace;
}

/** A run that joined the pace has ended: the last one to leave ends it. */
export function leaveServicePace(pace: ServicePace): void {
	// A stale pace may have been replaced by a fresh one under the same key: that one stays.
	if (--pace.runs === 0 && paces.get(pace.account) === pace) paces.delete(pace.account);
}
