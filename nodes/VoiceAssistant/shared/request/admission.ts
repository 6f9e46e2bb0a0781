// The account's admission: when a request to a service account may start. One per account in this
// process, shared by every run sending to it: a request starts once the account's Retry-After pause
// is over and a ticket of its rate is free (rateTickets.ts). Its rate is the strictest Rate Limit of
// the runs in it (another credential of the account never lifts it), or the rate the pacer has
// (its share of the service's stated limit, or the rate learned from 429s) if lower. Turns are
// handed out when they come (a pause or a changed rate holds from the very next request), round
// robin over the runs with requests waiting (a tool call's request does not wait behind a bulk
// run's). A request that cannot wait out the pause (its Max Retry Wait) leaves at once, told when
// the service asked to come back.
import { clock, SECOND_MS } from '../clock';
import type { SetLimit } from '../rate';
import { statedWords, type HeldBack } from '../runWords';
import type { StatedCount } from '../serviceCount';
import type { Stated } from '../countShare';
import { RatePacer, type PacerKind } from './ratePacer';
import { RateTickets, type Ticket } from './rateTickets';
import { WaiterQueue } from './waiterQueue';

/** A run as the admission knows it: the Rate Limit its credential had when the run read it (undefined: none). */
export interface Member {
	readonly limit: SetLimit | undefined;
	/** How long its own requests waited for the account's rate, which rate held them, how long the account paused. */
	readonly held: Pick<
		HeldBack,
		'rateMs' | 'pauseMs' | 'heldBy' | 'lowestLearned' | 'throttledAtLimit'
	>;
}

/** The longest an account pauses for one Retry-After (an hour): a longer ask pauses it an hour, then a request asks again. */
const MAX_PAUSE_MS = 3_600_000;

/** The turn a request gets: a ticket, or the end of a pause longer than it may wait (clock time); undefined: its run's signal aborted. */
export type Turn = Ticket | { pausedUntil: number } | undefined;

/** A member, its requests waiting for their turn, and since when one has waited. */
type Seat = { member: Member; queue: WaiterQueue<Turn>; since: number };

export class AccountAdmission {
	private readonly pacer = new RatePacer();
	private readonly tickets = new RateTickets();
	/** The Rate Limit in force once the last run left. */
	private lastLimit: SetLimit | undefined;
	private pausedUntil = 0;
	private seats: Seat[] = [];
	private next = 0;
	private pumping = false;
	/** Ends the pump's sleep (a run joined or left, a ticket came back), and the wait to forget the account. */
	private sleep: AbortController | undefined;
	private linger: AbortController | undefined;

	constructor(readonly account: string) {}

	/** The Rate Limit in force: the strictest of the runs in the admission. */
	get limit(): SetLimit | undefined {
		if (this.seats.length === 0) return this.lastLimit;
		let strictest: SetLimit | undefined;
		for (const { member } of this.seats)
			if (member.limit && member.limit.perSecond < (strictest?.perSecond ?? Infinity))
				strictest = member.limit;
		return strictest;
	}

	/** The account's rate (the Rate Limit in force, or the pacer's if lower), that limit and the service's stated count. */
	get rateInForce(): { now: number | undefined; limit: SetLimit | undefined; stated?: Stated } {
		const limit = this.limit;
		const paced = this.pacer.rate(limit?.perSecond);
		const now = (paced ?? Infinity) < (limit?.perSecond ?? Infinity) ? paced : limit?.perSecond;
		return { now, limit, stated: this.pacer.count.stated };
	}

	get waiting(): number {
		return this.seats.reduce((sum, { queue }) => sum + queue.length, 0);
	}

	/** A run joins with the Rate Limit its credential has now: the account's from the next request on. */
	join(member: Member): void {
		this.linger?.abort();
		this.seats.push({ member, queue: new WaiterQueue<Turn>(undefined), since: 0 });
		member.held.pauseMs += Math.max(0, this.pausedUntil - clock.now());
		this.sleep?.abort(); // a sleep at the last setting's spacing is timed anew
	}

	/**
	 * With its last run gone, the account is forgotten once its tickets and its pause hold nothing
	 * back: executions that follow each other keep the rate, and wait out a Retry-After.
	 */
	leave(member: Member): void {
		this.lastLimit = this.limit;
		this.seats = this.seats.filter((seat) => seat.member !== member);
		member.held.pauseMs -= Math.max(0, this.pausedUntil - clock.now());
		this.sleep?.abort();
		if (this.seats.length === 0) this.lingerUntilQuiet();
	}

	/** An admission not in the registry (a run's own rate) keeps nothing after its run. */
	private lingerUntilQuiet(): void {
		this.linger?.abort();
		if (admissions.get(this.account) !== this) return;
		const quietIn =
			Math.max(this.tickets.quietAt(this.rateInForce.now), this.pausedUntil) - clock.now();
		const linger = (this.linger = new AbortController());
		if (quietIn <= 0) {
			if (admissions.get(this.account) === this) admissions.delete(this.account);
			// A request in flight (a cancelled run's) is quiet once its ticket comes back (`giveBack`).
		} else if (quietIn !== Infinity)
			void clock.sleep(quietIn, linger.signal).then(() => {
				if (!linger.signal.aborted) this.lingerUntilQuiet();
			});
	}

	/** The service asked to wait `ms` (Retry-After): every request of the account does, at most
	 * MAX_PAUSE_MS; a second or less while the account has a rate is the rate's to answer. */
	pause(ms: number): void {
		if (ms <= SECOND_MS && this.rateInForce.now !== undefined) return;
		const [now, until] = [clock.now(), clock.now() + Math.min(ms, MAX_PAUSE_MS)];
		const longer = until - Math.max(now, this.pausedUntil);
		if (longer <= 0) return;
		for (const { member } of this.seats) member.held.pauseMs += longer;
		this.pacer.pausedMs += longer;
		this.pausedUntil = until;
		this.sleep?.abort();
	}

	/**
	 * The member's request's turn: its ticket once it may start, the pause's end when that is more
	 * than `patienceMs` away, or undefined when `signal` aborts first.
	 */
	async turn(member: Member, signal: AbortSignal, patienceMs: number): Promise<Turn> {
		const seat = this.seats.find((candidate) => candidate.member === member);
		if (signal.aborted || !seat) return undefined;
		if (this.pausedUntil - clock.now() > patienceMs) return { pausedUntil: this.pausedUntil };
		if (this.waiting === 0 && this.accountWait() === 0) return this.take(seat, false);
		if (seat.queue.length === 0) seat.since = clock.now();
		const turn = seat.queue.wait(signal, patienceMs);
		if (!this.pumping) void this.pump();
		return await turn;
	}

	private async pump(): Promise<void> {
		this.pumping = true;
		while (this.waiting > 0) {
			const until = this.pausedUntil;
			if (until > clock.now())
				for (const { queue } of this.seats)
					queue.serveExpiring(until - clock.now(), { pausedUntil: until });
			const wait = this.accountWait();
			if (wait === 0) {
				// The next run in the rotation with a request waiting.
				let seat = this.seats[this.next % this.seats.length];
				for (let step = 1; seat.queue.length === 0; step++)
					seat = this.seats[(this.next + step) % this.seats.length];
				seat.queue.serveNext(this.take(seat, true));
				continue;
			}
			const { now: rate, limit, stated } = this.rateInForce;
			const [from, paused] = [clock.now(), this.pausedUntil > clock.now()];
			this.sleep = new AbortController();
			// Without a known end (every ticket in flight), a ticket's return ends the sleep.
			await clock.sleep(wait, this.sleep.signal);
			// Counted for the runs with requests waiting, since the first of them did, with the rate that
			// held them (the Rate Limit in force, the service's stated one, or the learned one); a pause as it is set.
			const byCount = stated && rate === stated.share ? statedWords(stated) : undefined;
			const by = rate === limit?.perSecond ? limit?.words : byCount;
			for (const { member, queue, since } of this.seats) {
				if (paused || queue.length === 0) continue;
				const { held } = member;
				const ms = clock.now() - Math.max(from, since);
				held.rateMs += ms;
				if (by) (held.heldBy ??= {})[by] = (held.heldBy[by] ?? 0) + ms;
				else if (rate !== undefined) {
					held.lowestLearned = Math.min(held.lowestLearned ?? rate, rate);
					if (this.pacer.cutAtLimit) held.throttledAtLimit = limit?.words;
				}
			}
		}
		this.pumping = false;
	}

	private accountWait(): number {
		const paused = this.pausedUntil - clock.now();
		return paused > 0 ? Math.ceil(paused) : this.tickets.nextTurnIn(this.rateInForce.now);
	}

	/** A request of `seat` starts: its ticket; the rotation goes on from the next run. */
	private take(seat: Seat, waited: boolean): Ticket {
		this.next = this.seats.indexOf(seat) + 1;
		const ticket = this.tickets.take(this.rateInForce.now);
		this.pacer.started(waited);
		return {
			giveBack: (...end) => {
				ticket.giveBack(...end);
				if (this.waiting > 0) this.sleep?.abort();
				else if (this.seats.length === 0) this.lingerUntilQuiet();
			},
		};
	}

	/** An attempt ended `tookMs` after it started; `cut`: whether it cut its run's automatic window; `count`: its answer's. */
	attemptEnded(kind: PacerKind, tookMs: number, cut?: boolean, count?: StatedCount): void {
		const startedAt = clock.now() - tookMs;
		this.pacer.onAttemptEnd({ kind, startedAt, cut, count }, this.limit?.perSecond);
	}
}

/** The admissions of this process by a hash of the account (never the key itself). */
const admissions = new Map<string, AccountAdmission>();
export const accountAdmissions: ReadonlyMap<string, AccountAdmission> = admissions;

/** The admission of `account`, joined by `member` until it leaves. */
export function joinAdmission(account: string, member: Member): AccountAdmission {
	let admission = admissions.get(account);
	if (!admission) admissions.set(account, (admission = new AccountAdmission(account)));
	admission.join(member);
	return admission;
}
