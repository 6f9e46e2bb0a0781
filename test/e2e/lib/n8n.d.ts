import type { N8nRun, Owner, ProcessResult, RunningN8n } from './index';

export const ENCRYPTION_KEY: string;
export const PACKAGE_NAME: string;
export const REPO_ROOT: string;
export const SUPPORTED_VERSIONS: string[];
export function requestedVersions(): string[];
export function cacheRoot(): string;
export function installDir(version: string): string;
export function n8nBin(version: string): string;
export function installedVersion(dir: string, version?: string): Promise<string | undefined>;
export function ensureN8n(version: string, log?: (line: string) => void): Promise<string>;
export function buildAndPack(destination: string, log?: (line: string) => void): Promise<string>;
export function installPackage(userFolder: string, tarball: string): Promise<string>;
export function n8nCli(
	bin: string,
	args: string[],
	userFolder: string,
	options?: { timeoutMs?: number; allowFailure?: boolean; extra?: Record<string, string> },
): Promise<ProcessResult>;
/** The environment of an n8n process of this binary's version: fresh ports, the user folder, `extra` on top. */
export function freshEnv(bin: string, userFolder: string, extra?: Record<string, string>): Promise<NodeJS.ProcessEnv>;
export function parseExecuteOutput(stdout: string): N8nRun | undefined;
export function executeWorkflow(
	bin: string,
	id: string,
	userFolder: string,
	options?: { timeoutMs?: number },
): Promise<{ code: number | null; run: N8nRun; stdout: string; stderr: string }>;
export function executeWorkflowProcess(
	bin: string,
	id: string,
	userFolder: string,
	options?: { timeoutMs?: number; onStart?: (pid: number | undefined) => void },
): Promise<ProcessResult>;
export function startN8n(
	bin: string,
	userFolder: string,
	options?: { port?: number; logDir?: string; extra?: Record<string, string> },
): Promise<RunningN8n>;
export function setupOwner(url: string, owner: Owner): Promise<string | undefined>;
export function login(url: string, owner: { email: string; password: string }): Promise<string | undefined>;
export function getWithCookie(
	url: string,
	pathname: string,
	cookie: string,
): Promise<{ status: number; contentType: string; body: any }>;
