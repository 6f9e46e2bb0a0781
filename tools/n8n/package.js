'use strict';

/**
 * The package as n8n gets it: built and packed with npm, then installed into an n8n user
 * folder the way the Community Nodes screen does it.
 */

const fs = require('fs');
const path = require('path');
const { PACKAGE_NAME } = require('../package-names');
const { cleanEnv, runProcess } = require('../processes');

const REPO_ROOT = path.resolve(__dirname, '..', '..');

/** Builds the package and packs it; returns the tarball's path. */
async function buildAndPack(destination, log = (line) => process.stdout.write(`${line}\n`)) {
	log('Building the package (npm run build)...');
	const build = await runProcess('npm', ['run', 'build'], {
		cwd: REPO_ROOT,
		env: cleanEnv(),
		timeoutMs: 300_000,
		name: 'build',
		logDir: destination,
	});
	if (build.code !== 0) throw new Error(`npm run build failed:\n${build.stdout}\n${build.stderr}`);
	const pack = await runProcess('npm', ['pack', '--json', '--pack-destination', destination], {
		cwd: REPO_ROOT,
		env: cleanEnv(),
		timeoutMs: 120_000,
		name: 'pack',
		logDir: destination,
	});
	if (pack.code !== 0) throw new Error(`npm pack failed:\n${pack.stderr}`);
	const [{ filename }] = JSON.parse(pack.stdout);
	const tarball = path.join(destination, filename);
	log(`Packed ${tarball}`);
	return tarball;
}

/**
 * Installs the packed tarball into <userFolder>/.n8n/nodes like n8n's Community Nodes screen
 * (CommunityPackagesService.downloadPackage): extract, drop dev/peer/optional dependencies,
 * `npm install` inside the package, and record it in nodes/package.json.
 */
async function installPackage(userFolder, tarball) {
	const nodesDir = path.join(userFolder, '.n8n', 'nodes');
	const packageDir = path.join(nodesDir, 'node_modules', PACKAGE_NAME);
	fs.rmSync(packageDir, { recursive: true, force: true });
	fs.mkdirSync(packageDir, { recursive: true });
	const untar = await runProcess('tar', ['-xzf', tarball, '-C', packageDir, '--strip-components=1'], {
		name: 'tar',
		timeoutMs: 60_000,
	});
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
	if (install.code !== 0) throw new Error(`npm install in ${packageDir} failed:\n${install.stderr}`);

	const nodesManifestPath = path.join(nodesDir, 'package.json');
	const nodesManifest = fs.existsSync(nodesManifestPath)
		? JSON.parse(fs.readFileSync(nodesManifestPath, 'utf8'))
		: { name: 'installed-nodes', private: true, dependencies: {} };
	nodesManifest.dependencies = { ...nodesManifest.dependencies, [PACKAGE_NAME]: manifest.version };
	fs.writeFileSync(nodesManifestPath, JSON.stringify(nodesManifest, null, 2), 'utf8');
	return packageDir;
}

module.exports = { REPO_ROOT, buildAndPack, installPackage };
