/** Types of scripts/package-tarball.js (plain CommonJS, shared with the lint and e2e scripts). */
export const REPO_ROOT: string;
export function listFiles(dir: string): string[];
export function packAndUnpack(
	destination: string,
	options?: { cwd?: string; runScripts?: boolean },
): { tarball: string; dir: string };
export function packageProblems(dir: string): string[];
