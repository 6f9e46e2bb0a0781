// A run's turns: when each of its requests may start. n8n's Batching releases a batch per interval
// once the run is ready; then the run's own Max Requests per Second (an admission of the run's own,
// not in the registry), then its account's admission (joined at the first turn, left when the run
// ends). What held the run's requests back is counted in `held`.
import { clock, wait } from '../clock';
import type { SetLimit } from '../rate';
import type { HeldBack } from '../runWords';
import { AccountAdmission, joinAdmission, type Member, type Turn } from './admission';
import type { ItemLoop } from './itemLoop';
import type { Ticket } from './rateTickets';

export class RunTurns {
	/** How long its account's rate, its own rate and Retry-After pauses held it back; n8n's Batching held a request. */
	readonly held: HeldBack = { rateMs: 0, ownMs: 0, pauseMs: 0, batching: false };
	/** Its account's admission and the run as a member of it, once the credential is read. */
	admission: AccountAdmission | undefined;
	private member: (Member & { account: string }) | undefined;
	private own: { admission: AccountAdmission; member: Member } | undefined;
	private ownSeen = 0;
	private taken = 0;
	/** Requests waiting for their turn now; when n8n's loop was over (Batching counts from then). */
	waiting = 0;
	readyAt: number | undefined;

	constructor(
		private readonly loop: ItemLoop,
		private readonly signal: AbortSignal,
	) {}

	/** The account the run sends to, and the Rate Limit its credential has now. */
	setAccount(account: string, limit: SetLimit | undefined): void {
		this.member = { account, limit, held: this.held };
		this.held.limitSet = limit !== undefined;
	}

	/** An item's Max Requests per Second: the run keeps the lowest (read before anything is sent). */
	lowerOwnRate(perSecond: number | undefined): void {
		if (perSecond !== undefined)
			this.held.ownRate = Math.min(this.held.ownRate ?? Infinity, perSecond);
	}

	/**
	 * The next request's turn: its tickets, the pause's end when that is more than `patienceMs`
	 * away, or undefined on a stop, a cancel or the run's end (the caller checks the signal right
	 * before it sends, so no request starts after one).
	 */
	async next(patienceMs: number): Promise<Turn> {
		const due =
			this.readyAt === undefined ? undefined : this.loop.batchDue(this.taken++, this.readyAt);
		if (due !== undefined && due > clock.now()) {
			this.held.batching = true;
			await wait(due - clock.now(), this.signal);
		}
		if (this.signal.aborted || !this.member) return undefined;
		this.admission ??= joinAdmission(this.member.account, this.member);
		this.waiting++;
		const own = await this.ownTurn();
		const turn = own && (await this.admission.turn(this.member, this.signal, patienceMs));
		this.waiting--;
		if (!own || !turn || 'pausedUntil' in turn) {
			own?.giveBack(false);
			return turn;
		}
		return { giveBack: (...end) => [turn, own].forEach((ticket) => ticket.giveBack(...end)) };
	}

	/** The run's own rate's turn (at once without one): an admission of its own holds it. */
	private async ownTurn(): Promise<Ticket | undefined> {
		const perSecond = this.held.ownRate;
		if (perSecond === undefined) return { giveBack: () => undefined };
		if (!this.own) {
			const member = { limit: { perSecond, words: '' }, held: { rateMs: 0, pauseMs: 0 } };
			this.own = { admission: new AccountAdmission('a run of its own'), member };
			this.own.admission.join(member);
		}
		const turn = await this.own.admission.turn(this.own.member, this.signal, Infinity);
		// Its own wait, where its own rate is stricter than the account's (else the account's held its tickets).
		const waited = this.own.member.held.rateMs - this.ownSeen;
		this.ownSeen += waited;
		if (perSecond < (this.admission?.rateInForce.now ?? Infinity)) this.held.ownMs += waited;
		return turn && 'giveBack' in turn ? turn : undefined;
	}

	/** The run ended: it leaves every admission it joined. */
	leave(): void {
		if (this.admission) this.admission.leave(this.member as Member);
		this.own?.admission.leave(this.own.member);
	}
}
