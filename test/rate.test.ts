/**
 * A rate limit as a user gives it (shared/rate.ts), the rule the credential's Rate Limit and the
 * node's Max Requests per Second share: a positive number a second or a minute, fractions too; 0
 * or an empty field is none; anything else, and an expression that gives nothing, is a problem
 * naming the field. As the node reads them in n8n: test/target.test.ts, test/requestPolicy.test.ts.
 */
import { readRate } from '../nodes/VoiceAssistant/shared/rate';

const FIELD = '"Rate Limit" in the credential';
const RULE = 'must be a positive number of requests (0: no limit)';

describe('readRate', () => {
	it.each([
		[200, 'second', 200],
		[0.5, 'second', 0.5],
		['12.5', 'second', 12.5],
		[' 3 ', 'second', 3],
		[30, 'minute', 0.5],
		[6000, 'minute', 100],
	])('%j per %s is %j a second', (given, unit, perSecond) => {
		expect(readRate(given, FIELD, false, unit)).toEqual({
			perSecond,
			words: `${Number(given)} requests a ${unit}`,
		});
	});

	it('keeps the unit the user set it in: 1 a minute is "1 request a minute", not 0.02 a second', () => {
		expect(readRate(1, FIELD, false, 'minute')).toEqual({
			perSecond: 1 / 60,
			words: '1 request a minute',
		});
	});

	it.each([0, '0', '', '   ', null, undefined])('%j typed in the field is none', (given) => {
		expect(readRate(given, FIELD, false)).toEqual({});
	});

	it('0 from an expression is none too', () => {
		expect(readRate(0, FIELD, true)).toEqual({});
	});

	it.each([
		['fast', `${FIELD} ${RULE}, not "fast"`],
		[-1, `${FIELD} ${RULE}, not -1`],
		[Number.NaN, `${FIELD} ${RULE}, not null`],
		['Infinity', `${FIELD} ${RULE}, not "Infinity"`],
		[true, `${FIELD} ${RULE}, not true`],
		[[5], `${FIELD} ${RULE}, not [5]`],
	])('%j is a problem naming the field', (given, problem) => {
		expect(readRate(given, FIELD, false)).toEqual({ problem });
	});

	it.each(['', '  ', null, undefined])(
		'an expression that gives %j (a missing column) is a problem, never none',
		(given) => {
			expect(readRate(given, FIELD, true)).toEqual({
				problem: `${FIELD} ${RULE}: its expression gave nothing`,
			});
		},
	);

	it('a unit that is neither second nor minute is a problem', () => {
		expect(readRate(5, FIELD, false, 'hour')).toEqual({
			problem: `${FIELD}: the unit must be "second" or "minute", not "hour"`,
		});
	});
});
