/** Counting the requests a simulator received over time. */
import type { RecordedRequest } from '../simulator';
import { mostInAnyWindow } from './strictService';

/**
 * How much shorter than a second a check's window is where it reads when the simulator recorded a
 * request (`receivedAt`, once its body was in) or how long after another one came: a request's way
 * through n8n (and, in process, the simulator sharing the event loop) moves that moment by up to
 * this much. Checks of arrivals (`arrivedAt`, mostAcceptedInWindow) count whole seconds.
 */
export const ARRIVAL_SLACK_MS = 50;

/**
 * Two requests a run started a spacing apart arrive closer by what their ways through n8n differ
 * (a new connection, other requests on the event loop, a busy machine stalling it): a check of the
 * spacing between two arrivals asks for half of it. Requests nothing holds back arrive a few ms
 * apart.
 */
export const apart = (spacingMs: number): number => spacingMs / 2;

/** The most times (sorted) in any window of `windowMs` ending at one of them (strictService.js, which the bench reads too). */
export const mostInWindow = mostInAnyWindow;

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
