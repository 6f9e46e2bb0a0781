// The paces of the service accounts this process sends to: one per account (a hash of Base URL
// and key), joined by the runs that send to it and ended when the last one leaves.
import { PaceGate, type Turns } from './paceGate';
import { RatePacer } from './ratePacer';
import { StartCap } from './startCap';

/**
 * The pace of one service account and the runs of this process sending to it. A rate limit
 * belongs to the account, not to a run: runs that overlap (two executions, an agent's tool calls
 * during a bulk run, a worker's executions) take turns at one pace: the automatic pacer's, within
 * the lowest Max Requests per Second its runs set. Runs that do not overlap share nothing: the
 * last run to leave ends the pace.
 */
export class AccountPace implements Turns {
	readonly pacer = new RatePacer();
	readonly cap = new StartCap();
	readonly gate = new PaceGate(this);

	/** Each run and its Max Requests per Second (Infinity: none). */
	readonly members = new Map<object, number>();

	constructor(readonly account: string) {}

	nextTurnIn(): number {
		return Math.max(
			this.pacer.nextTurnIn(),
			this.cap.nextTurnIn(Math.min(...this.members.values())),
		);
	}

	takeTurn(waited: boolean): void {
		this.pacer.takeTurn(waited);
		this.cap.takeTurn(Math.min(...this.members.values()));
	}
}

/** The paces of this process by a hash of the account (the map never holds the key), each ended with its last run. */
const paces = new Map<string, AccountPace>();
export const accountPaces: ReadonlyMap<string, AccountPace> = paces;

export function joinAccountPace(account: string, run: object, maxPerSecond?: number): AccountPace {
	let pace = paces.get(account);
	if (!pace) {
		pace = new AccountPace(account);
		paces.set(account, pace);
	}
	pace.members.set(run, maxPerSecond ?? Infinity);
	return pace;
}

export function leaveAccountPace(pace: AccountPace, run: object): void {
	pace.members.delete(run);
	pace.gate.forget(run);
	if (pace.members.size === 0 && paces.get(pace.account) === pace) paces.delete(pace.account);
}
