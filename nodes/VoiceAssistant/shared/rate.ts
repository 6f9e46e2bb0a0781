/**
 * A rate limit as a user gives it (the credential's Rate Limit, the node's Max Requests per
 * Second): a positive number of requests a second or a minute, fractions allowed (0.5 a second is
 * one every 2 s); 0, or a field left empty, is none. A value from an expression is held to the
 * same rule, and one that gives nothing (a missing column) is a problem, never silently none.
 */

type RateUnit = 'second' | 'minute';

/** A rate limit in force: requests a second, and its words as the user set it ("1 request a minute, set on credential …"). */
export interface SetLimit {
	perSecond: number;
	words: string;
}

const SECONDS_PER: Record<RateUnit, number> = { second: 1, minute: 60 };

/**
 * The rate a second that `given` means (undefined: none), or why it cannot be used. `field` names
 * it as the user sees it (`"Rate Limit" in the credential`); `fromExpression`: an expression gave it.
 */
export function readRate(
	given: unknown,
	field: string,
	fromExpression: boolean,
	unit: unknown = 'second',
): { perSecond?: number; problem?: string; words?: string } {
	const empty =
		given === undefined || given === null || (typeof given === 'string' && given.trim() === '');
	if (empty && !fromExpression) return {};
	const number =
		typeof given === 'number' || (typeof given === 'string' && !empty) ? Number(given) : NaN;
	const rule = `must be a positive number of requests (0: no limit)`;
	if (empty) return { problem: `${field} ${rule}: its expression gave nothing` };
	if (!Number.isFinite(number) || number < 0)
		return { problem: `${field} ${rule}, not ${JSON.stringify(given)}` };
	if (unit !== 'second' && unit !== 'minute')
		return {
			problem: `${field}: the unit must be "second" or "minute", not ${JSON.stringify(unit)}`,
		};
	if (number === 0) return {};
	return {
		perSecond: number / SECONDS_PER[unit],
		words: `${number} request${number === 1 ? '' : 's'} a ${unit}`,
	};
}
