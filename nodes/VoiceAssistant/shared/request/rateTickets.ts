// A rate's tickets: at most so many requests reach the service in any second, however long each
// takes to get there. A rate of r a second has N = max(1, floor(r)) tickets, each for a span of
// N / r seconds (1 s for a whole rate). A request takes a ticket when it starts and gives it back a
// span after it ended: it may have reached the service at any moment from its start to its end, so
// no span holds more than N arrivals. One whose end the node never saw (a timeout, a cut) may still
// reach it as long again as it was on its way: it keeps its ticket that much longer. Under a rate
// of one ticket, one answered 429 keeps it a random part of a span longer (processes refused
// together do not come back together). One that never left this machine gives it back at once.
// Starts are also spaced a span / N apart (a turn a late timer missed is made up). The account's
// rate keeps tickets, and so does a run's own Max Requests per Second; a changed rate holds from
// the next request, judged by the same ends.
import { clock, jitter, SECOND_MS } from '../clock';
import type { AttemptEnd } from '../failureModel';

/** A turn a late timer missed is made up to this much later (the tickets still hold the rate). */
const CATCH_UP_MS = 25;

/** `rate` a second: N tickets, each held for `spanMs` after its request ended, starts `spacingMs` apart. */
function ticketsOf(rate: number): { count: number; spanMs: number; spacingMs: number } {
	const count = Math.max(1, Math.floor(rate));
	const spanMs = (SECOND_MS * count) / rate;
	return { count, spanMs, spacingMs: spanMs / count };
}

/**
 * A ticket taken: given back when its request ended, with how (true: answered; false or
 * 'not-connected', 'unsendable': it never left this machine) and how long it took.
 */
export interface Ticket {
	giveBack(end: boolean | AttemptEnd, tookMs?: number): void;
}

/** How much longer than a span after its end a request's ticket is held under a rate of `tickets` (undefined: given back at once). */
function heldLonger(
	end: boolean | AttemptEnd,
	tookMs: number,
	tickets?: { count: number; spanMs: number },
): number | undefined {
	if (end === false || end === 'not-connected' || end === 'unsendable') return undefined;
	if (end === 'timeout' || end === 'cut') return tookMs;
	// A rate of one ticket (below 2 a second) comes back a random part of a span later after a 429.
	return end === 'rate-limited' && tickets?.count === 1 ? jitter(tickets.spanMs) : 0;
}

export class RateTickets {
	/** Tickets of requests in flight. */
	private out = 0;
	/** When requests whose tickets are not back yet ended, oldest first. */
	private ends: number[] = [];
	private lastDue = -Infinity;

	/** Forgets the ends `spanMs` or more ago (their tickets are back), but the last, `keep` whether it is. */
	private forget(spanMs: number, keep = 0): void {
		const now = clock.now();
		let gone = 0;
		while (gone < this.ends.length - keep && now - this.ends[gone] >= spanMs) gone++;
		if (gone > 0) this.ends = this.ends.slice(gone);
	}

	/** Tickets out now under `rate`: requests in flight, and those that ended less than a span ago. */
	private held(rate: number): { held: number; spanMs: number } {
		const { spanMs } = ticketsOf(rate);
		this.forget(spanMs);
		return { held: this.out + this.ends.length, spanMs };
	}

	/**
	 * How long until a request may start at `rate` a second (0: now, and always without a rate;
	 * Infinity: once a request in flight ends).
	 */
	nextTurnIn(rate: number | undefined): number {
		if (rate === undefined) return 0;
		const { count, spacingMs } = ticketsOf(rate);
		const { held, spanMs } = this.held(rate);
		const now = clock.now();
		const spaced = Math.max(0, this.lastDue + spacingMs - now);
		if (held < count) return Math.ceil(spaced);
		// The (held - count + 1)-th oldest end frees a ticket; without it, an end in flight must.
		const freeing = this.ends[held - count];
		return freeing === undefined ? Infinity : Math.ceil(Math.max(spaced, spanMs - (now - freeing)));
	}

	/**
	 * A request starts now under `rate`: its ticket. Without a rate it is counted too (a rate that
	 * comes into force meets the requests of the last second), but spaces nothing.
	 */
	take(rate: number | undefined): Ticket {
		const now = clock.now();
		const tickets = rate === undefined ? undefined : ticketsOf(rate);
		const spanMs = tickets?.spanMs ?? SECOND_MS;
		if (tickets) {
			const due = this.lastDue + tickets.spacingMs;
			this.lastDue = due >= now - CATCH_UP_MS ? due : now;
		}
		this.out++;
		let back = false;
		return {
			giveBack: (end, tookMs = 0) => {
				if (back) return;
				back = true;
				this.out--;
				const longer = heldLonger(end, tookMs, tickets);
				if (longer !== undefined) {
					// Kept in order: the oldest end frees the next ticket.
					const at = clock.now() + longer;
					let place = this.ends.length;
					while (place > 0 && this.ends[place - 1] > at) place--;
					this.ends.splice(place, 0, at);
				}
				// A second of ends holds every whole rate's; a rate below one a second needs only the last.
				this.forget(Math.max(SECOND_MS, spanMs), 1);
			},
		};
	}

	/** When no ticket holds a request back any more under `rate` (Infinity while one is in flight). */
	quietAt(rate: number | undefined): number {
		if (this.out > 0) return Infinity;
		const last = this.ends[this.ends.length - 1] ?? -Infinity;
		if (rate === undefined) return last;
		const { spanMs, spacingMs } = ticketsOf(rate);
		// Never before a span passed since `last`: a sum that rounded below it takes the next time up.
		const sum = last + spanMs;
		const back = sum - last < spanMs ? sum * (1 + Number.EPSILON) : sum;
		return Math.max(back, this.lastDue + spacingMs);
	}
}
