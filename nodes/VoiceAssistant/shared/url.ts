// Parsing a text that may not be a URL: the one place that catches the URL constructor's error.

/** `text` as a URL (resolved against `base` when given), or undefined when it is not one. */
export function parseUrl(text: unknown, base?: string): URL | undefined {
	try {
		return new URL(String(text), base);
	} catch {
		return undefined;
	}
}
