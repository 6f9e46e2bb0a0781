export const REPO_ROOT: string;
export function buildAndPack(destination: string, log?: (line: string) => void): Promise<string>;
export function installPackage(userFolder: string, tarball: string): Promise<string>;
