// Values from expressions and AI agents ($fromAI) are not always of the declared type. These
// helpers coerce only where the meaning is unambiguous; anything else reaches the schema as is
// and is rejected there with a clear message (a number too long to hold exactly, by its own rule).

/**
 * A number given for a text field whose digits may not be the ones given: an integer beyond
 * Number.MAX_SAFE_INTEGER, which JSON.parse (or an expression) already rounded (a CRM's record id
 * 4150868000000224005 arrives as 4150868000000224000). Undefined for any other value. The words
 * tell the fix: the text as its source has it; String() of the number keeps the wrong digits.
 */
export function inexactNumberRule(value: unknown): string | undefined {
	if (typeof value !== 'number' || !Number.isFinite(value)) return undefined;
	if (Math.abs(value) <= Number.MAX_SAFE_INTEGER) return undefined;
	return `is the number ${value}, which has more digits than a number holds exactly (over ${Number.MAX_SAFE_INTEGER}), so its last digits may already be wrong: pass it as text, as its source has it (a JSON string, or $fromAI() with the type 'string'), not String() of this number`;
}

/**
 * A number typed into a text field (a phone, an id) means its digits; one whose digits may be
 * wrong (inexactNumberRule) stays a number, which the text field's check refuses with that rule.
 */
export function asText(value: unknown): unknown {
	const digits = typeof value === 'number' && Number.isFinite(value) && !inexactNumberRule(value);
	return digits ? String(value) : value;
}

/**
 * A switch from the UI or an expression: true or false, as such or as text in any case and
 * spacing (" TRUE "); anything else (0, "no", "off") is not a switch (undefined), for the caller
 * to refuse: read as on or off, it would act against the user's intent.
 */
export function readSwitch(value: unknown): boolean | undefined {
	if (typeof value === 'boolean') return value;
	const text = typeof value === 'string' ? value.trim().toLowerCase() : undefined;
	return text === 'true' || text === 'false' ? text === 'true' : undefined;
}

/** An optional value that is not set: missing, null (an empty CRM cell), empty or only whitespace. */
export function isUnset(value: unknown): boolean {
	return (
		value === undefined || value === null || (typeof value === 'string' && value.trim() === '')
	);
}

/**
 * "+1 555 0100, +1 555 0101" (also ; or new lines), a list, a list written as JSON text (as AI
 * agents often write one), or a single number → a list of numbers.
 */
export function phoneNumberList(value: unknown): unknown {
	if (typeof value === 'number') return [asText(value)];
	if (typeof value === 'string' && value.trim().startsWith('[')) {
		const parsed = parseJsonInput(value);
		// Not JSON after all: leave it as text, which the schema refuses (it is not a list).
		return 'value' in parsed && Array.isArray(parsed.value) ? parsed.value.map(asText) : value;
	}
	if (typeof value === 'string') {
		return value
			.split(/[,;\n]/)
			.map((part) => part.trim())
			.filter((part) => part !== '');
	}
	if (Array.isArray(value)) return value.map(asText);
	return value;
}

/** JSON text from the editor or an expression; already-parsed values pass through. */
export function parseJsonInput(value: unknown): { value: unknown } | { problem: string } {
	if (typeof value !== 'string') return { value };
	if (value.trim() === '') return { value: undefined };
	try {
		return { value: JSON.parse(value) };
	} catch (error) {
		return { problem: `is not valid JSON (${(error as Error).message})` };
	}
}
