// The account's admission: when a request to a service account may start. One per account in this
// process, shared by every run sending to it: a request starts once the account's Retry-After pause
// is over and its rate (set on the credential, or learned from 429s by the pacer) allows one. Turns
// are handed out when they come (a pause or a lower rate holds the very next request), round robin
// over the runs with requests waiting (a tool call's request does not wait behind a bulk run's).
import { clock } from '../clock';
import { RatePacer } from './ratePacer';
import { MARGIN, StartTimes } from './startTimes';
import { WaiterQueue } from './waiterQueue';

/** A run as the admission knows it: the rate its credential sets, a second (undefined: none). */
export interface Member {
	readonly setRate: number | undefined;
	/** How long its requests waited for the account's rate, and the account was paused while it ran. */
	readonly held: { rateMs: number; pauseMs: number };
}

/** A member and its requests waiting for their turn. */
type Seat = { member: Member; queue: WaiterQueue<void> };

export class AccountAdmission {
	readonly pacer = new RatePacer();
	private readonly starts = new StartTimes();
	private pausedUntil = 0;
	private seats: Seat[] = [];
	private next = 0;
	private pumping = false;
	/** Ends the pump's sleep once its runs left, and the wait to forget the account once a run joins. */
	private sleep: AbortController | undefined;
	private linger: AbortController | undefined;

	constructor(readonly account: string) {}

	/** The account's rate: the lowest its runs' credentials set, or the learned one if lower. */
	get rate(): number | undefined {
		return this.lowestRate(1);
	}

	/**
	 * `learnedBy` × the learned rate, or the lowest set if lower (spaced at it × MARGIN: a set limit
	 * keeps the schedule's margin, what the service accepted needs none).
	 */
	private lowestRate(learnedBy: number): number | undefined {
		const set = this.seats.map((seat) => seat.member.setRate ?? Infinity);
		const rate = Math.min((this.pacer.rate ?? Infinity) * learnedBy, ...set);
		return rate === Infinity ? undefined : rate;
	}

	get waiting(): number {
		return this.seats.reduce((sum, { queue }) => sum + queue.length, 0);
	}

	join(member: Member): void {
		this.linger?.abort();
		this.seats.push({ member, queue: new WaiterQueue<void>(undefined) });
		member.held.pauseMs += Math.max(0, this.pausedUntil - clock.now());
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
			const [from, paused] = [clock.now(), this.pausedUntil > clock.now()];
			this.sleep = new AbortController();
			await clock.sleep(wait, this.sleep.signal);
			// Counted for the runs with requests waiting; a pause is counted as it is set.
			for (const { member, queue } of this.seats)
				if (!paused && queue.length > 0) member.held.rateMs += clock.now() - from;
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
