/** Counting the requests a simulator received over time. */
import type { RecordedRequest } from '../simulator';

/**
 * The node spaces starts so that at most its rate start in any 1,010 ms; a request then passes
 * through n8n (and, in process, waits for the simulator that shares the event loop) before it is
 * recorded: the checks count windows this much shorter than a second.
 */
export const ARRIVAL_SLACK_MS = 50;

/**
 * Two requests a run started a spacing apart arrive closer by what their ways through n8n differ
 * (a new connection, other requests on the event loop, a busy machine stalling it): a check of the
 * spacing between two arrivals asks for half of it. Requests nothing holds back arrive a few ms
 * apart.
 */
export const apart = (spacingMs: number): number => spacingMs / 2;

/** The most times (sorted) in any window of `windowMs` ending at one of them. */
export function mostInWindow(times: number[], windowMs: number): number {
	let most = 0;
	for (let last = 0, first = 0; last < times.length; last++) {
		while (times[first] <= times[last] - windowMs) first++;
		most = Math.max(most, last - first + 1);
	}
	return most;
}

/**
 * The most requests of the API's paths (`/api/…`) the simulator accepted (any answer but a 429,
 * or none yet) whose `arrivedAt` falls in any sliding window of `windowMs`, the window ending at
 * one of them: (t − windowMs, t]. `arrivedAt` is the simulator's monotonic clock when it judged
 * the request, the time its strict rate counts it at: with `strictRate: { perSecond: N }` set
 * throughout, this is at most N.
 */
export function mostAcceptedInWindow(
	requests: ReadonlyArray<Pick<RecordedRequest, 'path' | 'status' | 'arrivedAt'>>,
	windowMs = 1000,
): number {
	const times = requests
		.filter((request) => request.path.startsWith('/api/') && request.status !== 429)
		.map((request) => request.arrivedAt)
		.sort((a, b) => a - b);
	return mostInWindow(times, windowMs);
}
