// The account's admission: when a request to a service account may start. One per account in this
// process, shared by every run sending to it: a request starts once the account's Retry-After pause
// is over and its rate (set on the credential, or learned from 429s by the pacer) allows one. Turns
// are handed out when they come (a pause or a changed Rate Limit holds from the very next
// request), round robin over the runs with requests waiting (a tool call's request does not wait
// behind a bulk run's).
import { clock } from '../clock';
import type { SetLimit } from '../rate';
import type { HeldBack } from '../runWords';
import { RatePacer } from './ratePacer';
import { MARGIN, StartTimes } from './startTimes';
import { WaiterQueue } from './waiterQueue';

/** A run as the admission knows it: the Rate Limit its credential had when the run read it (undefined: none). */
export interface Member {
	readonly limit: SetLimit | undefined;
	/** How long its own requests waited for the account's rate, which rate held them, how long the account paused. */
	readonly held: Pick<HeldBack, 'rateMs' | 'pauseMs' | 'setBy' | 'lowestLearned'>;
}

/** A member, its requests waiting for their turn, and since when one has waited. */
type Seat = { member: Member; queue: WaiterQueue<void>; since: number };

export class AccountAdmission {
	readonly pacer = new RatePacer();
	private readonly starts = new StartTimes();
	/** The Rate Limit of the account's credential as last read: the setting in force. */
	private limit: SetLimit | undefined;
	private pausedUntil = 0;
	private seats: Seat[] = [];
	private next = 0;
	private pumping = false;
	/** Ends the pump's sleep once its runs left, and the wait to forget the account once a run joins. */
	private sleep: AbortController | undefined;
	private linger: AbortController | undefined;

	constructor(readonly account: string) {}

	/** The account's rate: the Rate Limit in force, or the learned one if lower. */
	get rate(): number | undefined {
		return this.lowestRate(1);
	}

	/** The account's rate and its Rate Limit in force, as the user set it. */
	get rateInForce(): { now: number | undefined; limit: SetLimit | undefined } {
		return { now: this.rate, limit: this.limit };
	}

	/**
	 * `learnedBy` × the learned rate, or the Rate Limit in force if lower (spaced at it × MARGIN: a
	 * set limit keeps the start times' margin, what the service accepted needs none).
	 */
	private lowestRate(learnedBy: number): number | undefined {
		const [learned, set] = [this.pacer.rate ?? Infinity, this.limit?.perSecond ?? Infinity];
		const rate = Math.min(learned * learnedBy, set);
		return rate === Infinity ? undefined : rate;
	}

	get waiting(): number {
		return this.seats.reduce((sum, { queue }) => sum + queue.length, 0);
	}

	/** A run joins with the Rate Limit its credential has now: the account's from the next request on. */
	join(member: Member): void {
		this.linger?.abort();
		this.seats.push({ member, queue: new WaiterQueue<void>(undefined), since: 0 });
		member.held.pauseMs += Math.max(0, this.pausedUntil - clock.now());
		this.limit = member.limit;
		this.sleep?.abort(); // a sleep at the last setting's spacing is timed anew
	}

	/**
	 * With its last run gone, the account is forgotten once its starts and its pause hold nothing
	 * back: executions that follow each other keep the rate, and wait out a Retry-After.
	 */
	leave(member: Member): void {
		this.seats = this.seats.filter((seat) => seat.member !== member);
		member.held.pauseMs -= Math.max(0, this.pausedUntil - clock.now());
		if (this.waiting === 0) this.sleep?.abort();
		if (this.seats.length > 0) return;
		const quietIn = Math.max(this.starts.quietAt, this.pausedUntil) - clock.now();
		const linger = (this.linger = new AbortController());
		const forget = () => admissions.get(this.account) === this && admissions.delete(this.account);
		if (quietIn <= 0) forget();
		else void clock.sleep(quietIn, linger.signal).then(() => linger.signal.aborted || forget());
	}

	/** The service asked to wait `ms` (Retry-After): every request of the account does. */
	pause(ms: number): void {
		const [now, until] = [clock.now(), clock.now() + ms];
		const longer = until - Math.max(now, this.pausedUntil);
		if (longer <= 0) return;
		for (const { member } of this.seats) member.held.pauseMs += longer;
		this.pacer.pausedMs += longer;
		this.pausedUntil = until;
	}

	/** Resolves when the member's request may start, or when `signal` aborts first. */
	async turn(member: Member, signal: AbortSignal): Promise<void> {
		const seat = this.seats.find((candidate) => candidate.member === member);
		if (signal.aborted || !seat) return;
		if (this.waiting === 0 && this.accountWait() === 0) return this.take(seat, false);
		if (seat.queue.length === 0) seat.since = clock.now();
		const turn = seat.queue.wait(signal);
		if (!this.pumping) void this.pump();
		await turn;
	}

	private async pump(): Promise<void> {
		this.pumping = true;
		while (this.waiting > 0) {
			const wait = this.accountWait();
			if (wait === 0) {
				// The next run in the rotation with a request waiting.
				let seat = this.seats[this.next % this.seats.length];
				for (let step = 1; !seat.queue.serveNext(undefined); step++)
					seat = this.seats[(this.next + step) % this.seats.length];
				this.take(seat, true);
				continue;
			}
			const [from, learned] = [clock.now(), this.pacer.rate];
			const paused = this.pausedUntil > from;
			this.sleep = new AbortController();
			await clock.sleep(wait, this.sleep.signal);
			// Counted for the runs with requests waiting, since the first of them did, with the rate that
			// held them (the Rate Limit in force, or the learned one if lower); a pause as it is set.
			for (const { member, queue, since } of this.seats) {
				if (paused || queue.length === 0) continue;
				const { held } = member;
				held.rateMs += clock.now() - Math.max(from, since);
				if (learned === undefined || learned * MARGIN >= (this.limit?.perSecond ?? Infinity))
					held.setBy = this.limit?.words;
				else held.lowestLearned = Math.min(held.lowestLearned ?? learned, learned);
			}
		}
		this.pumping = false;
	}

	private accountWait(): number {
		const paused = this.pausedUntil - clock.now();
		return paused > 0 ? Math.ceil(paused) : this.starts.nextTurnIn(this.lowestRate(MARGIN));
	}

	/** A request of `seat` starts: the rotation goes on from the next run. */
	private take(seat: Seat, waited: boolean): void {
		this.next = this.seats.indexOf(seat) + 1;
		this.starts.take(this.lowestRate(MARGIN));
		this.pacer.started(waited);
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
