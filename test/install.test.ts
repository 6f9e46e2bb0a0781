/**
 * The n8n harness's installs (tools/n8n/install.js) as one process asks for them at once: two n8n
 * versions on one Node.js want that runtime together, and it is installed once, into one folder,
 * for both. The cache is a fresh temporary folder and `npm` a stand-in first in PATH that writes
 * down each run and installs a `node` printing a version, so no registry is involved; the n8n
 * installs are ready-made stand-ins too. POSIX only, as the harness is.
 */
import fs from 'fs';
import os from 'os';
import path from 'path';
import { NODE20_VERSION, V1_VERSION, ensureVersions, runtimeEnv } from '../tools/n8n/install';

const work = fs.mkdtempSync(path.join(os.tmpdir(), 'va-install-test-'));
const cache = path.join(work, 'cache');
const bin = path.join(work, 'bin');
const npmRuns = path.join(work, 'npm-runs.log');
const saved = { cache: process.env.N8N_E2E_CACHE, path: process.env.PATH };

/** An executable shell script. */
function script(file: string, lines: string[]) {
	fs.mkdirSync(path.dirname(file), { recursive: true });
	fs.writeFileSync(file, ['#!/bin/sh', ...lines, ''].join('\n'), { mode: 0o755 });
}

beforeAll(() => {
	// `npm ci` in a runtime's folder: a second of work, then a node that answers --version.
	script(path.join(bin, 'npm'), [
		`echo "$PWD $*" >> '${npmRuns}'`,
		'sleep 1',
		'mkdir -p node_modules/node/bin',
		`printf '#!/bin/sh\\necho v20.0.0\\n' > node_modules/node/bin/node`,
		'chmod +x node_modules/node/bin/node',
	]);
	for (const version of [NODE20_VERSION, V1_VERSION])
		script(path.join(cache, `n8n-${version}`, 'node_modules', '.bin', 'n8n'), [`echo ${version}`]);
	process.env.N8N_E2E_CACHE = cache;
	process.env.PATH = `${bin}${path.delimiter}${process.env.PATH}`;
});

afterAll(() => {
	for (const [key, value] of [
		['N8N_E2E_CACHE', saved.cache],
		['PATH', saved.path],
	] as const)
		if (value === undefined) delete process.env[key];
		else process.env[key] = value;
	fs.rmSync(work, { recursive: true, force: true });
});

test('two versions on one Node.js, installed at once, share one install of it', async () => {
	const runtime = (version: string) =>
		String(runtimeEnv(version, { PATH: '' }).PATH).split(path.delimiter)[0];
	// The two versions run on the same Node.js harness, from one folder of the cache.
	expect(runtime(V1_VERSION)).toBe(runtime(NODE20_VERSION));
	// <cache>/node-20/node_modules/node/bin
	const runtimeFolder = path.resolve(runtime(NODE20_VERSION), '../../..');
	expect(path.dirname(runtimeFolder)).toBe(cache);

	const lines: string[] = [];
	await ensureVersions([NODE20_VERSION, V1_VERSION], (line) => lines.push(line));

	// npm ran once, in that runtime's side folder, which then became the runtime's folder.
	const runs = fs.readFileSync(npmRuns, 'utf8').trim().split('\n');
	expect(runs).toHaveLength(1);
	expect(runs[0].split(' ').slice(0, 2)).toEqual([`${runtimeFolder}.partial-${process.pid}`, 'ci']);
	expect(fs.readdirSync(cache).sort()).toEqual(
		[path.basename(runtimeFolder), `n8n-${NODE20_VERSION}`, `n8n-${V1_VERSION}`].sort(),
	);
	expect(fs.existsSync(path.join(runtime(NODE20_VERSION), 'node'))).toBe(true);
	expect(lines.filter((line) => line.startsWith('Installed '))).toEqual([
		expect.stringMatching(new RegExp(`^Installed ${path.basename(runtimeFolder)} in `)),
	]);
	for (const version of [NODE20_VERSION, V1_VERSION])
		expect(lines).toContainEqual(expect.stringMatching(new RegExp(`^n8n ${version} ready `)));
}, 30_000);
