'use strict';

/**
 * The package as n8n gets it: built (when dist/ is not current) and packed with npm
 * (tools/package-tarball.js, the one place that packs), then installed into an n8n user
 * folder the way the Community Nodes screen does it.
 */

const fs = require('fs');
const path = require('path');
const { distProblems } = require('../dist');
const { pack } = require('../package-tarball');
const { PACKAGE_NAME } = require('../package-names');
const { cleanEnv, runProcess } = require('../processes');
const { REPO_ROOT } = require('../repo');

/**
 * Builds the package unless dist/ is complete and newer than its sources (`npm test` has just
 * built it), and packs it into `destination`; returns the tarball's path.
 * @param {string} destination
 * @param {(line: string) => void} [log]
 */
async function buildAndPack(destination, log = (line) => process.stdout.write(`${line}\n`)) {
	if (distProblems(REPO_ROOT).length) {
		log('Building the package (npm run build)...');
		const build = await runProcess('npm', ['run', 'build'], {
			cwd: REPO_ROOT,
			env: cleanEnv(),
			timeoutMs: 300_000,
			name: 'build',
			logDir: destination,
		});
		if (build.code !== 0)
			throw new Error(`npm run build failed:\n${build.stdout}\n${build.stderr}`);
	}
	const tarball = pack(destination);
	log(`Packed ${tarball}`);
	return tarball;
}

/**
 * Installs the packed tarball into <userFolder>/.n8n/nodes like n8n's Community Nodes screen
 * (CommunityPackagesService.downloadPackage): extract, drop dev/peer/optional dependencies,
 * `npm install` inside the package, and record it in nodes/package.json.
 * @param {string} userFolder
 * @param {string} tarball
 */
async function installPackage(userFolder, tarball) {
	const nodesDir = path.join(userFolder, '.n8n', 'nodes');
	const packageDir = path.join(nodesDir, 'node_modules', PACKAGE_NAME);
	fs.rmSync(packageDir, { recursive: true, force: true });
	fs.mkdirSync(packageDir, { recursive: true });
	const untar = await runProcess(
		'tar',
		['-xzf', tarball, '-C', packageDir, '--strip-components=1'],
		{ name: 'tar', timeoutMs: 60_000 },
	);
	if (untar.code !== 0) throw new Error(`tar failed: ${untar.stderr}`);

	const manifestPath = path.join(packageDir, 'package.json');
	const { devDependencies, peerDependencies, optionalDependencies, ...manifest } = JSON.parse(
		fs.readFileSync(manifestPath, 'utf8'),
	);
	fs.writeFileSync(manifestPath, JSON.stringify(manifest, null, 2), 'utf8');
	const install = await runProcess(
		'npm',
		[
			'install',
			'--audit=false',
			'--fund=false',
			'--bin-links=false',
			'--install-strategy=shallow',
			'--ignore-scripts=true',
			'--package-lock=false',
		],
		{ cwd: packageDir, env: cleanEnv(), timeoutMs: 300_000, name: 'npm-install', logDir: nodesDir },
	);
	if (install.code !== 0)
		throw new Error(`npm install in ${packageDir} failed:\n${install.stderr}`);

	const nodesManifestPath = path.join(nodesDir, 'package.json');
	const nodesManifest = fs.existsSync(nodesManifestPath)
		? JSON.parse(fs.readFileSync(nodesManifestPath, 'utf8'))
		: { name: 'installed-nodes', private: true, dependencies: {} };
	nodesManifest.dependencies = { ...nodesManifest.dependencies, [PACKAGE_NAME]: manifest.version };
	fs.writeFileSync(nodesManifestPath, JSON.stringify(nodesManifest, null, 2), 'utf8');
	return packageDir;
}

module.exports = { buildAndPack, installPackage };
