/**
 * `compute` that remembers its last arguments (compared with ===) and result. Per-request work of
 * a run (the credential's checks, the key's redaction forms) gets the same arguments for every
 * item; a one-entry memory keeps it to once per run without holding anything of earlier runs.
 */
export function rememberLast<A extends unknown[], R>(
	compute: (...args: A) => R,
): (...args: A) => R {
	let last: { args: A; result: R } | undefined;
	return (...args: A): R => {
		if (last && last.args.length === args.length && last.args.every((arg, i) => arg === args[i]))
			return last.result;
		const result = compute(...args);
		last = { args, result };
		return result;
	};
}
