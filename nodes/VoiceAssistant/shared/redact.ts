/**
 * Keeps the API key out of whatever the node outputs or reports: a hostile or careless service
 * could echo it back in an error or in a successful answer, as sent or encoded, in any case.
 */

import { rememberLast } from './rememberLast';

const REDACTED = '[redacted]';

/**
 * Forms shorter than this are left alone: replacing one to three characters (a tiny test key,
 * the unpadded base64 of a one-character key) would erase unrelated text everywhere, and a key
 * that short protects nothing anyway.
 */
const MIN_FORM_LENGTH = 4;

/**
 * Matches any form of one key, case-insensitively: `any` to test, `all` to replace. A text
 * shorter than the shortest form (most texts of an answer) needs no test.
 */
interface SecretPattern {
	readonly any: RegExp;
	readonly all: RegExp;
	readonly shortest: number;
}

/** The bytes a header could have carried the key as: UTF-8, and Latin-1 when it fits. */
function byteEncodings(text: string): Uint8Array[] {
	const utf8 = new TextEncoder().encode(text);
	if (!/^[\0-\xff]*$/.test(text)) return [utf8];
	return [utf8, Uint8Array.from(text, (char) => char.charCodeAt(0))];
}

function toHex(bytes: Uint8Array): string {
	return Array.from(bytes, (byte) => byte.toString(16).padStart(2, '0')).join('');
}

function toBase64(bytes: Uint8Array): string {
	let binary = '';
	for (const byte of bytes) binary += String.fromCharCode(byte);
	return btoa(binary);
}

/**
 * The key in base64 wherever it starts in the encoded bytes (`user:key` of Basic credentials):
 * for each of the three byte alignments, the characters made of the key's bits alone, and the
 * same up to the end of the encoding, with and without padding; each also URL-safe.
 */
function base64Forms(bytes: Uint8Array): string[] {
	const forms: string[] = [];
	for (let offset = 0; offset < 3; offset++) {
		const aligned = new Uint8Array(offset + bytes.length);
		aligned.set(bytes, offset);
		const encoded = toBase64(aligned);
		const start = Math.ceil((offset * 8) / 6);
		const end = Math.floor((aligned.length * 8) / 6);
		forms.push(
			encoded.slice(start),
			encoded.slice(start).replace(/=+$/, ''),
			encoded.slice(start, end),
		);
	}
	return forms.flatMap((form) => [form, form.replace(/\+/g, '-').replace(/\//g, '_')]);
}

function urlEncodings(text: string): string[] {
	const formEncoded = new URLSearchParams({ k: text }).toString().slice('k='.length);
	try {
		return [encodeURIComponent(text), formEncoded];
	} catch {
		return [formEncoded]; // a lone surrogate, which encodeURIComponent refuses
	}
}

function encodedForms(text: string): string[] {
	const forms = [text, ...urlEncodings(text)];
	for (const bytes of byteEncodings(text)) forms.push(toHex(bytes), ...base64Forms(bytes));
	return forms;
}

function escapeRegExp(text: string): string {
	return text.replace(/[\\^$.*+?()[\]{}|/]/g, '\\$&');
}

/**
 * Every form of the key: as saved and trimmed (HTTP header values are read without surrounding
 * spaces), then the trimmed key and its upper- and lower-case variants URL-encoded, in hex and
 * in base64; one case-insensitive pattern, longest form first so that a form inside another is
 * not left half replaced. A run asks for the same key once per item.
 */
const secretPattern = rememberLast((secret: string | undefined): SecretPattern | undefined => {
	const key = secret?.trim();
	if (!secret || !key) return undefined;
	const variants = [...new Set([key, key.toUpperCase(), key.toLowerCase()])];
	const forms = new Map<string, string>();
	for (const form of [secret, ...variants.flatMap(encodedForms)]) {
		// Printable ASCII folds as the pattern does, so its case variants are one form.
		if (form.length < MIN_FORM_LENGTH) continue;
		forms.set(/^[\x20-\x7e]*$/.test(form) ? form.toLowerCase() : form, form);
	}
	if (forms.size === 0) return undefined;
	const longestFirst = [...forms.values()].sort((a, b) => b.length - a.length);
	const source = longestFirst.map(escapeRegExp).join('|');
	const shortest = longestFirst[longestFirst.length - 1].length;
	// Without the `u` flag: it makes the pattern about twice as slow, and the encoded forms of the
	// key's upper- and lower-case variants are in the pattern anyway.
	return { any: new RegExp(source, 'i'), all: new RegExp(source, 'gi'), shortest };
});

function holdsIn(text: string, pattern: SecretPattern): boolean {
	return text.length >= pattern.shortest && pattern.any.test(text);
}

function redactText(text: string, pattern: SecretPattern): string {
	return text.length >= pattern.shortest ? text.replace(pattern.all, REDACTED) : text;
}

/** Replaces every form of the secret in a text. */
export function redact(text: string | undefined, secret: string | undefined): string | undefined {
	const pattern = text ? secretPattern(secret) : undefined;
	return pattern && text ? redactText(text, pattern) : text;
}

/** Adds what a value holds directly: an array's entries, an object's keys and entries. */
function pushParts(value: object, pending: unknown[]): void {
	if (Array.isArray(value)) for (const entry of value) pending.push(entry);
	else
		for (const key of Object.keys(value))
			pending.push(key, (value as Record<string, unknown>)[key]);
}

/** Scans from a list of values still to see, not by recursion: an answer can be deeper than the stack. */
function holdsSecret(root: unknown, pattern: SecretPattern): boolean {
	const pending: unknown[] = [root];
	const seen = new Set<object>();
	while (pending.length > 0) {
		const value = pending.pop();
		if (typeof value === 'string' && holdsIn(value, pattern)) return true;
		if (value === null || typeof value !== 'object' || seen.has(value)) continue;
		seen.add(value);
		pushParts(value, pending);
	}
	return false;
}

function put(copy: object, key: string, entry: unknown): void {
	// Assigning `__proto__` would set the copy's prototype, not make the own key JSON.parse makes.
	if (key !== '__proto__') (copy as Record<string, unknown>)[key] = entry;
	else
		Object.defineProperty(copy, key, {
			value: entry,
			writable: true,
			enumerable: true,
			configurable: true,
		});
}

function fill(copy: object, source: object, copyOf: (value: unknown) => unknown): void {
	if (Array.isArray(source)) for (const entry of source) (copy as unknown[]).push(copyOf(entry));
	else
		for (const [key, entry] of Object.entries(source))
			put(copy, copyOf(key) as string, copyOf(entry));
}

/**
 * A copy with the secret replaced in texts and keys. Each object is copied once, when first
 * met, and filled later from a list instead of by recursion; a value met again (or a cycle)
 * gets the same copy.
 */
function redactIn(root: unknown, pattern: SecretPattern): unknown {
	const copies = new Map<object, object>();
	const unfilled: Array<[object, object]> = [];
	const copyOf = (value: unknown): unknown => {
		if (typeof value === 'string') return redactText(value, pattern);
		if (value === null || typeof value !== 'object') return value;
		let copy = copies.get(value);
		if (!copy) {
			copy = Array.isArray(value) ? [] : {};
			copies.set(value, copy);
			unfilled.push([value, copy]);
		}
		return copy;
	};
	const result = copyOf(root);
	for (let next = unfilled.pop(); next; next = unfilled.pop()) fill(next[1], next[0], copyOf);
	return result;
}

/**
 * A JSON value (a service's answer) with every form of the secret replaced, in texts and in
 * keys. Copied only when the secret is in it: the usual answer is passed through untouched.
 */
export function redactValue<T>(value: T, secret: string | undefined): T {
	const pattern = secretPattern(secret);
	return pattern && holdsSecret(value, pattern) ? (redactIn(value, pattern) as T) : value;
}

/**
 * The error as the user sees it, with every form of the key removed from its message and
 * description, whichever path built it (a redirect's target host, a service's echo).
 */
export function redactError<E extends Error & { description?: string | null }>(
	error: E,
	secret: string | undefined,
): E {
	error.message = redact(error.message, secret) as string;
	if (typeof error.description === 'string') error.description = redact(error.description, secret);
	return error;
}
