/**
 * The key is redacted in every form a service could echo it in: as saved, URL-encoded,
 * base64 (with or without padding, standard or URL-safe, at any byte alignment), hex, and in
 * any letter case; in texts and in keys of an answer however deep, which stays untouched when
 * it holds no key.
 */
import { redact, redactValue } from '../../nodes/VoiceAssistant/shared/redact';

// A key whose base64 holds `+` and `/` and needs padding, so each form differs from the others.
const KEY = 'sk_live>>?~Key/9';
const R = '[redacted]';

const utf8 = (text: string) => new TextEncoder().encode(text);
const base64 = (text: string) => btoa(String.fromCharCode(...utf8(text)));
const base64url = (text: string) => base64(text).replace(/\+/g, '-').replace(/\//g, '_');
const hex = (text: string) =>
	[...utf8(text)].map((byte) => byte.toString(16).padStart(2, '0')).join('');

describe('every form of the key in a text', () => {
	test.each([
		['as saved', KEY],
		['upper case', 'SK_LIVE>>?~KEY/9'],
		['lower case', 'sk_live>>?~key/9'],
		['URL-encoded', 'sk_live%3E%3E%3F~Key%2F9'],
		['URL-encoded with lower-case escapes', 'sk_live%3e%3e%3f~Key%2f9'],
		['URL-encoded, upper case', 'SK_LIVE%3E%3E%3F~KEY%2F9'],
		['form-encoded', 'sk_live%3E%3E%3F%7EKey%2F9'],
		['base64', 'c2tfbGl2ZT4+P35LZXkvOQ=='],
		['base64 without padding', 'c2tfbGl2ZT4+P35LZXkvOQ'],
		['base64url', 'c2tfbGl2ZT4-P35LZXkvOQ=='],
		['base64url without padding', 'c2tfbGl2ZT4-P35LZXkvOQ'],
		['base64, upper case', 'C2TFBGL2ZT4+P35LZXKVOQ=='],
		['base64, lower case', 'c2tfbgl2zt4+p35lzxkvoq=='],
		['base64 of the key in upper case', 'U0tfTElWRT4+P35LRVkvOQ=='],
		['base64 of the key in lower case', 'c2tfbGl2ZT4+P35rZXkvOQ=='],
		['hex', '736b5f6c6976653e3e3f7e4b65792f39'],
		['hex in upper case', '736B5F6C6976653E3E3F7E4B65792F39'],
		['hex of the key in upper case', hex(KEY.toUpperCase())],
	])('%s: %s', (_form, echoed) => {
		expect(redact(`before ${echoed} after`, KEY)).toBe(`before ${R} after`);
	});

	test('the forms computed here are the ones listed above', () => {
		expect([base64(KEY), base64url(KEY), hex(KEY)]).toEqual([
			'c2tfbGl2ZT4+P35LZXkvOQ==',
			'c2tfbGl2ZT4-P35LZXkvOQ==',
			'736b5f6c6976653e3e3f7e4b65792f39',
		]);
	});

	test('the key is found in base64 wherever it starts (Basic credentials of user:key and :key)', () => {
		// Only the characters made of the key's own bits go; those mixed with a neighbour stay.
		expect(redact(`Basic ${base64(`user:${KEY}`)}`, KEY)).toBe(`Basic dXNlcjp${R}`);
		expect(redact(`Basic ${base64(`:${KEY}`)}`, KEY)).toBe(`Basic On${R}`);
		expect(redact(`Basic ${base64(`${KEY}:x`)}`, KEY)).toBe(`Basic ${R}Tp4`);
	});

	test('several forms in one text, each replaced whole', () => {
		const text = `${KEY} ${base64(KEY)} ${hex(KEY).toUpperCase()} ${encodeURIComponent(KEY)} ${KEY.toLowerCase()}`;
		expect(redact(text, KEY)).toBe(`${R} ${R} ${R} ${R} ${R}`);
	});

	test('the key is trimmed, as the header that carries it is', () => {
		expect(redact(`key ${KEY} and ${base64(KEY)}`, `  ${KEY}\n`)).toBe(`key ${R} and ${R}`);
	});

	test('a key outside Latin-1: its UTF-8 bytes in base64 and hex', () => {
		const key = 'clé-ünï-🔑-42';
		expect(
			redact(
				`a ${base64(key)} b ${hex(key)} c ${encodeURIComponent(key)} d ${key.toUpperCase()}`,
				key,
			),
		).toBe(`a ${R} b ${R} c ${R} d ${R}`);
	});

	test('a key with characters special to regular expressions matches only itself', () => {
		const key = 'a.b*c+(d)[e]{2}$^|\\';
		expect(redact(`${key} axb*c+(d)[e]{2}$^|\\ aab*c`, key)).toBe(
			`${R} axb*c+(d)[e]{2}$^|\\ aab*c`,
		);
	});

	test('a text without the key comes back as it was', () => {
		const text = 'nothing to see: sk_live, c2tfbGl2, 736b5f6c';
		expect(redact(text, KEY)).toBe(text);
		expect(redact(undefined, KEY)).toBeUndefined();
		expect(redact('', KEY)).toBe('');
	});
});

describe('short and empty keys redact nothing unrelated', () => {
	test.each([[''], ['   '], ['\t\n'], [undefined]])('no key (%j): the text is kept', (secret) => {
		expect(redact('some text   with spaces\t\n', secret)).toBe('some text   with spaces\t\n');
		const value = { a: ['some text   with spaces'] };
		expect(redactValue(value, secret)).toBe(value);
	});

	test('forms shorter than 4 characters are not redacted: a 2-character key stays, its base64 and hex go', () => {
		// 'ab' is 'YWI=' in base64 and '6162' in hex: those have 4 characters and go.
		expect(redact('ab cab YWI YWI= 6162', 'ab')).toBe(`ab cab YWI ${R} ${R}`);
	});

	test('a 4-character key is redacted in every case', () => {
		expect(redact('abcd ABCD AbCd abc', 'abcd')).toBe(`${R} ${R} ${R} abc`);
	});
});

/** `{ a: { a: … { a: bottom } } }`, `depth` levels, built in a loop. */
function nested(depth: number, bottom: unknown): Record<string, unknown> {
	let value: unknown = bottom;
	for (let i = 0; i < depth; i++) value = { a: value };
	return value as Record<string, unknown>;
}

/** The levels of a `nested` value, walked without recursion: each must hold only `a`. */
function levelsOf(value: unknown): { depth: number; bottom: unknown } {
	let depth = 0;
	let current = value;
	while (current !== null && typeof current === 'object') {
		expect(Object.keys(current)).toEqual(['a']);
		current = (current as { a: unknown }).a;
		depth++;
	}
	return { depth, bottom: current };
}

describe('answers of any depth', () => {
	const DEPTH = 20_000;

	test('a 20,000-deep answer without the key is passed through untouched', () => {
		const value = nested(DEPTH, 'nothing secret');
		expect(redactValue(value, KEY)).toBe(value);
	});

	test('a 20,000-deep answer with the key at the bottom keeps its structure, the key redacted', () => {
		const value = nested(DEPTH, `echo ${base64url(KEY).replace(/=+$/, '')}`);
		const result = redactValue(value, KEY);
		expect(result).not.toBe(value);
		expect(levelsOf(result)).toEqual({ depth: DEPTH, bottom: `echo ${R}` });
		expect(levelsOf(value).bottom).toBe(`echo ${base64url(KEY).replace(/=+$/, '')}`);
	});

	test('a 20,000-deep array with the key at the bottom', () => {
		let value: unknown = [KEY.toUpperCase()];
		for (let i = 0; i < DEPTH; i++) value = [value, 1];
		let current = redactValue(value, KEY) as unknown[];
		for (let i = 0; i < DEPTH; i++) {
			expect(current).toHaveLength(2);
			expect(current[1]).toBe(1);
			current = current[0] as unknown[];
		}
		expect(current).toEqual([R]);
	});
});

describe('values', () => {
	test('keys and texts of an answer are redacted in every form, the rest is kept as it was', () => {
		const value = {
			id: 7,
			[KEY]: 'as a key',
			list: [
				null,
				true,
				1.5,
				`echo ${hex(KEY)}`,
				{ [base64(KEY).replace(/=+$/, '')]: KEY.toLowerCase() },
			],
			nested: { ok: 'fine', header: `Bearer ${KEY.toUpperCase()}` },
		};
		expect(redactValue(value, KEY)).toEqual({
			id: 7,
			[R]: 'as a key',
			list: [null, true, 1.5, `echo ${R}`, { [R]: R }],
			nested: { ok: 'fine', header: `Bearer ${R}` },
		});
		expect(value[KEY]).toBe('as a key');
	});

	test('the order of the keys is kept', () => {
		const result = redactValue({ z: 1, [KEY]: 2, b: KEY, a: 3 }, KEY);
		expect(Object.keys(result)).toEqual(['z', R, 'b', 'a']);
	});

	test('an own "__proto__" key of a parsed answer stays an own key', () => {
		const value = JSON.parse(`{"__proto__": {"x": "${KEY}"}, "y": 1}`);
		const result = redactValue(value, KEY);
		expect(Object.getPrototypeOf(result)).toBe(Object.prototype);
		expect(Object.keys(result)).toEqual(['__proto__', 'y']);
		expect(Object.getOwnPropertyDescriptor(result, '__proto__')?.value).toEqual({ x: R });
	});

	test('a string answer and a value without the key', () => {
		expect(redactValue(`x ${base64(KEY)}`, KEY)).toBe(`x ${R}`);
		const clean = { a: [1, 'two', { three: null }] };
		expect(redactValue(clean, KEY)).toBe(clean);
		expect(redactValue(42, KEY)).toBe(42);
		expect(redactValue(null, KEY)).toBeNull();
	});

	test('a value that refers to itself is scanned and copied once per object', () => {
		const value: Record<string, unknown> = { text: KEY };
		value.self = value;
		value.twice = [value, value];
		const result = redactValue(value, KEY);
		expect(result.text).toBe(R);
		expect(result.self).toBe(result);
		expect(result.twice).toEqual([result, result]);
		const clean: Record<string, unknown> = { text: 'clean' };
		clean.self = clean;
		expect(redactValue(clean, KEY)).toBe(clean);
	});
});
