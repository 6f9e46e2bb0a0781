export const SUPPORTED_VERSIONS: string[];
export function requestedVersions(): string[];
export function cacheRoot(): string;
export function installDir(version: string): string;
export function n8nBin(version: string): string;
export function installedVersion(dir: string, version?: string): Promise<string | undefined>;
export function ensureN8n(version: string, log?: (line: string) => void): Promise<string>;
export function runtimeEnv(version: string, env: NodeJS.ProcessEnv): NodeJS.ProcessEnv;
export function versionOfBin(bin: string): string;
