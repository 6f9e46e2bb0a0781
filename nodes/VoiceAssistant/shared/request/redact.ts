/**
 * Keeps the API key out of whatever the node outputs or reports: a hostile or careless service
 * could echo it back in an error or in a successful answer.
 */

import { rememberLast } from '../rememberLast';

const REDACTED = '[redacted]';

function base64(text: string): string | undefined {
	try {
		return btoa(text);
	} catch {
		return undefined; // not Latin-1: no header could have carried it either
	}
}

/**
 * The forms in which the service could echo the key: as saved, trimmed (HTTP header values are
 * read without surrounding spaces), URL-encoded and base64. Longest first, so a form inside
 * another is not left half replaced. A run asks for the same key once per item.
 */
const secretForms = rememberLast((secret: string | undefined): readonly string[] => {
	if (!secret) return [];
	const trimmed = secret.trim();
	const forms = new Set([secret, trimmed, encodeURIComponent(trimmed), base64(trimmed) ?? '']);
	forms.delete('');
	return [...forms].sort((a, b) => b.length - a.length);
});

function redactText(text: string, forms: readonly string[]): string {
	let result = text;
	for (const form of forms) if (result.includes(form)) result = result.split(form).join(REDACTED);
	return result;
}

/** Replaces every form of the secret in a text. */
export function redact(text: string | undefined, secret: string | undefined): string | undefined {
	return text ? redactText(text, secretForms(secret)) : text;
}

function redactIn(value: unknown, forms: readonly string[]): unknown {
	if (typeof value === 'string') return redactText(value, forms);
	if (Array.isArray(value)) return value.map((entry) => redactIn(entry, forms));
	if (value === null || typeof value !== 'object') return value;
	const result: Record<string, unknown> = {};
	for (const [key, entry] of Object.entries(value)) result[redactText(key, forms)] = redactIn(entry, forms);
	return result;
}

function holdsSecret(value: unknown, forms: readonly string[]): boolean {
	const inText = (text: string) => forms.some((form) => text.includes(form));
	if (typeof value === 'string') return inText(value);
	if (value === null || typeof value !== 'object') return false;
	if (Array.isArray(value)) return value.some((entry) => holdsSecret(entry, forms));
	return Object.entries(value).some(([key, entry]) => inText(key) || holdsSecret(entry, forms));
}

/**
 * A JSON value (a service's answer) with every form of the secret replaced, in texts and in
 * keys. Copied only when the secret is in it: the usual answer is passed through untouched.
 */
export function redactValue<T>(value: T, secret: string | undefined): T {
	const forms = secretForms(secret);
	return forms.length > 0 && holdsSecret(value, forms) ? (redactIn(value, forms) as T) : value;
}
