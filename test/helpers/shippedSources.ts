// The TypeScript files that ship (nodes/ and credentials/), for the tests that read the code as text.
import fs from 'node:fs';
import path from 'node:path';

/** The repository's root. */
export const ROOT = path.resolve(__dirname, '../..');

/** Every TypeScript file below `dir`, as POSIX paths from the repository's root. */
function sourcesUnder(dir: string): string[] {
	return fs.readdirSync(path.join(ROOT, dir), { withFileTypes: true }).flatMap((entry) => {
		const file = path.posix.join(dir, entry.name);
		if (entry.isDirectory()) return sourcesUnder(file);
		return file.endsWith('.ts') ? [file] : [];
	});
}

/** Every TypeScript file that ships. */
export const SHIPPED_SOURCES = [...sourcesUnder('nodes'), ...sourcesUnder('credentials')];
