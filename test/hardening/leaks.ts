/**
 * Finds a secret, or any fragment of it, anywhere in a value: strings, object keys, own
 * properties enumerable or not (an error's `cause`, `errorResponse`, `stack`), getters, Map and
 * Set entries and byte buffers, following references once (cycles are fine).
 */
export function fragmentsOf(secret: string, length = 8): string[] {
	const fragments = new Set<string>();
	for (let i = 0; i + length <= secret.length; i++) fragments.add(secret.slice(i, i + length));
	return [...fragments];
}

export function findSecret(root: unknown, secret: string): string[] {
	const fragments = fragmentsOf(secret);
	const leaks = (text: string) => fragments.some((fragment) => text.includes(fragment));
	const found: string[] = [];
	const seen = new WeakSet<object>();

	const visit = (value: unknown, path: string): void => {
		if (typeof value === 'string') {
			if (leaks(value)) found.push(path);
			return;
		}
		if (value instanceof Uint8Array) return visit(Buffer.from(value).toString('latin1'), path);
		if (value === null || (typeof value !== 'object' && typeof value !== 'function')) return;
		if (seen.has(value)) return;
		seen.add(value);
		if (value instanceof Map) {
			for (const [key, entry] of value) {
				visit(key, `${path}<key>`);
				visit(entry, `${path}<${String(key)}>`);
			}
		}
		if (value instanceof Set) for (const entry of value) visit(entry, `${path}<entry>`);
		for (const key of Reflect.ownKeys(value)) {
			if (typeof key === 'string' && leaks(key)) found.push(`${path}[key ${key}]`);
			const descriptor = Object.getOwnPropertyDescriptor(value, key);
			const where = `${path}.${String(key)}`;
			if (descriptor && 'value' in descriptor) visit(descriptor.value, where);
			else if (descriptor?.get) {
				try {
					visit(descriptor.get.call(value), where);
				} catch {
					// a getter that throws holds nothing we can read
				}
			}
		}
	};
	visit(root, '$');
	return found;
}
