/**
 * The GitHub Actions workflows, checked offline against GitHub's workflow schema
 * (@action-validator/core, a WASM build of action-validator), plus what the schema cannot say:
 * CI runs .ci/run with the n8n installs cached by every harness lockfile (saved once the supported
 * versions are installed), and a version tag
 * publishes with provenance through npm trusted publishing, with no npm token.
 */
import { validateWorkflow } from '@action-validator/core';
import fs from 'fs';
import path from 'path';
import { STEPS as LINT_STEPS } from '../scripts/lint';
import { supportedHarnesses } from '../tools/n8n/install';

const WORKFLOWS = path.resolve(__dirname, '..', '.github', 'workflows');
const read = (file: string) => fs.readFileSync(path.join(WORKFLOWS, file), 'utf8');

describe.each(['ci.yml', 'publish.yml'])('.github/workflows/%s', (file) => {
	test('is a valid GitHub Actions workflow', () => {
		expect(validateWorkflow(read(file)).errors).toEqual([]);
	});

	test('pins every action to a full commit (a moved tag cannot change what runs, least of all where it publishes)', () => {
		const uses = [...read(file).matchAll(/uses: (\S+)/g)].map((match) => match[1]);
		expect(uses.length).toBeGreaterThan(0);
		for (const action of uses) expect(action).toMatch(/^[\w.-]+\/[\w./-]+@[0-9a-f]{40}$/);
	});

	test('is rejected once broken (the validator bites)', () => {
		const broken = read(file).replace(/^(\s+)runs-on:/m, '$1runs_on:');
		expect(broken).not.toEqual(read(file));
		expect(validateWorkflow(broken).errors).not.toEqual([]);
		expect(validateWorkflow(`${read(file)}\n  : not yaml`).errors).not.toEqual([]);
	});
});

test('CI runs .ci/run on pushes and pull requests, caching the n8n installs of every harness folder', () => {
	const ci = read('ci.yml');
	expect(ci).toMatch(/^on:\n {2}push:\n.*\n {2}pull_request:/m);
	expect(ci).toMatch(/run: \.ci\/run$/m);
	expect(ci).toContain("hashFiles('tools/n8n/versions/*/package-lock.json')");
	expect(ci).toMatch(/path: \/github\/home\/\.cache\/n8n-voice-assistant$/m);
	// Saved once the supported versions are installed: a harness run by hand (1.110.1) never is.
	expect(ci).toContain('for harness in $(node tools/n8n/install.js --harnesses); do');
	expect(supportedHarnesses()).toEqual([
		'n8n-2.8.4',
		'n8n-1.123.50',
		'n8n-2.41.1',
		'node-20',
		'node-24',
	]);
});

test('a v* tag publishes with provenance through trusted publishing, after npm ci, build and tests', () => {
	const publish = read('publish.yml');
	expect(publish).toMatch(/^on:\n {2}push:\n {4}tags: \['v\*'\]$/m);
	expect(publish).toMatch(/^ {6}id-token: write$/m);
	const steps = ['npm ci', 'npm test', 'npm run release'];
	const positions = steps.map((step) => publish.indexOf(`run: ${step}`));
	expect(positions.every((position) => position > 0)).toBe(true);
	expect([...positions].sort((a, b) => a - b)).toEqual(positions);
	expect(publish).not.toMatch(/\$\{\{\s*secrets\.|NODE_AUTH_TOKEN|NPM_TOKEN/);
	// n8n's own tool releases: lint (scripts/lint.js, first) and build with n8n-node, and npm
	// publish only through it, once the release check (scripts/release-check.js) passes.
	const { scripts } = JSON.parse(
		fs.readFileSync(path.resolve(__dirname, '..', 'package.json'), 'utf8'),
	) as { scripts: Record<string, string> };
	expect(scripts).toMatchObject({
		build: 'n8n-node build',
		release: 'npm run build && node scripts/release-check.js && n8n-node release',
		prepublishOnly: 'n8n-node prerelease && node scripts/release-check.js',
	});
	expect(scripts.lint).toBe('node scripts/lint.js');
	expect(LINT_STEPS[0]).toEqual({
		args: [expect.stringMatching(/@n8n[\\/]node-cli[\\/]bin[\\/]n8n-node\.mjs$/), 'lint'],
		env: { ESLINT_FLAGS: 'unstable_config_lookup_from_file' },
	});
	// The lifecycle scripts the repo's .npmrc turns off run for the publish (prepack, prepublishOnly).
	expect(publish).toMatch(/run: npm run release\n\s+env:\n\s+npm_config_ignore_scripts: 'false'/);
});
