// The service's own explanation of a failure, read safely from an error body: shortened and
// without the key.
import { isHtml } from './failureModel';
import { redact } from './redact';

const MAX_MESSAGE_LENGTH = 300;

/** A text, if `value` is one: the body is the service's (or anyone's), so nothing is converted. */
function text(value: unknown): string | undefined {
	return typeof value === 'string' && value.trim() ? value.trim() : undefined;
}

function rawServiceMessage(body: unknown): string | undefined {
	if (typeof body === 'string')
		return isHtml(body) ? 'the service answered with an HTML page instead of JSON' : text(body);
	if (!body || typeof body !== 'object') return undefined;
	const data = body as Record<string, unknown>;
	for (const key of ['message', 'error', 'detail', 'title', 'msg']) {
		const value = data[key];
		const said =
			text(value) ??
			(value && typeof value === 'object'
				? text((value as Record<string, unknown>).message)
				: undefined);
		if (said) return said;
	}
	if (!Array.isArray(data.errors)) return undefined;
	const parts = data.errors.map(
		(entry: unknown) =>
			text(entry) ??
			(entry && typeof entry === 'object'
				? text((entry as Record<string, unknown>).message)
				: undefined),
	);
	return parts.filter(Boolean).join('; ') || undefined;
}

/**
 * The service's own explanation from an error body (its shape: not shown in the spec; parsed JSON
 * or text), with the secret removed before it is shortened.
 */
export function serviceMessage(body: unknown, secret?: string): string | undefined {
	const said = redact(rawServiceMessage(body), secret);
	return said && said.length > MAX_MESSAGE_LENGTH ? `${said.slice(0, MAX_MESSAGE_LENGTH)}…` : said;
}
