'use strict';

/**
 * Redis and PostgreSQL for the queue-mode suite and the e2e suite's recipes: the binaries of
 * Debian's `redis-server` and `postgresql` packages (.ci/run installs them), never their system
 * services. Each is started
 * here on 127.0.0.1, on a free port, with a throwaway data folder, in its own process group
 * (tools/processes.js: it never outlives the test run), and removed again by stop().
 *
 * PostgreSQL refuses to run as root: as root, initdb and postgres run as the `postgres` user
 * the Debian package creates (`setpriv`, which execs, so the process group stays the same).
 */

const fs = require('fs');
const os = require('os');
const path = require('path');
const { cleanEnv, freePort, killGroup, poll, runProcess, startProcess } = require('./processes');

/** The newest /usr/lib/postgresql/<major>/bin, or PG_BIN. */
function postgresBinDir() {
	if (process.env.PG_BIN) return process.env.PG_BIN;
	const root = '/usr/lib/postgresql';
	const majors = fs.existsSync(root)
		? fs
				.readdirSync(root)
				.filter((entry) => fs.existsSync(path.join(root, entry, 'bin', 'postgres')))
		: [];
	if (!majors.length)
		throw new Error('PostgreSQL is not installed: apt-get install postgresql (.ci/run does)');
	majors.sort((a, b) => Number(b) - Number(a));
	return path.join(root, majors[0], 'bin');
}

/** Why PostgreSQL cannot be started here (no binaries), or undefined when it can. */
function postgresMissing() {
	let dir;
	try {
		dir = postgresBinDir();
	} catch (error) {
		return error.message;
	}
	return fs.existsSync(path.join(dir, 'postgres'))
		? undefined
		: `PostgreSQL is not installed: no ${path.join(dir, 'postgres')} (apt-get install postgresql)`;
}

/**
 * A throwaway folder; owned by `owner` when given.
 * @param {string} prefix
 * @param {{ uid: number, gid: number }} [owner]
 */
function throwawayDir(prefix, owner) {
	const dir = fs.mkdtempSync(path.join(os.tmpdir(), prefix));
	if (owner) fs.chownSync(dir, owner.uid, owner.gid);
	return dir;
}

/**
 * `redis-server` on 127.0.0.1 without persistence (a snapshot only when asked, uncompressed so
 * its strings can be searched).
 * @param {{ logDir: string }} options
 */
async function startRedis({ logDir }) {
	const dataDir = throwawayDir('va-queue-redis-');
	const host = '127.0.0.1';
	const port = await freePort();
	const args = [
		'--bind',
		host,
		'--port',
		String(port),
		'--dir',
		dataDir,
		'--save',
		'',
		'--appendonly',
		'no',
	];
	args.push(
		'--rdbcompression',
		'no',
		'--dbfilename',
		'dump.rdb',
		'--protected-mode',
		'yes',
		'--daemonize',
		'no',
	);
	const proc = startProcess('redis-server', args, { logDir, name: 'redis' });
	/** @param {string[]} command */
	const cli = (...command) =>
		runProcess('redis-cli', ['-h', host, '-p', String(port), ...command], {
			name: 'redis-cli',
			timeoutMs: 30_000,
		});
	await poll('redis-server', async () => (await cli('PING')).stdout.trim() === 'PONG', { proc });
	return {
		host,
		port,
		dataDir,
		proc,
		/** Everything Redis holds, as the text of an uncompressed snapshot (SAVE). */
		async snapshot() {
			const result = await cli('SAVE');
			if (result.stdout.trim() !== 'OK')
				throw new Error(`redis SAVE failed: ${result.stdout}${result.stderr}`);
			return fs.readFileSync(path.join(dataDir, 'dump.rdb')).toString('latin1');
		},
		async stop() {
			await proc.stop(10_000);
			fs.rmSync(dataDir, { recursive: true, force: true });
		},
	};
}

/** The account PostgreSQL runs as: the `postgres` user when we are root, else ourselves. */
function postgresAccount() {
	if (typeof process.getuid !== 'function' || process.getuid() !== 0) return undefined;
	let passwd = '';
	try {
		passwd = fs.readFileSync('/etc/passwd', 'utf8');
	} catch {}
	const entry = passwd.split('\n').find((line) => line.startsWith('postgres:'));
	if (!entry)
		throw new Error(
			'Running as root, but there is no "postgres" user to run PostgreSQL as (apt-get install postgresql creates it)',
		);
	const [, , uid, gid] = entry.split(':');
	return { name: 'postgres', uid: Number(uid), gid: Number(gid) };
}

/**
 * A PostgreSQL cluster: `initdb` into a throwaway folder, `postgres` on 127.0.0.1 only (no Unix
 * socket), password authentication, fsync off (the data are thrown away; nothing here tests
 * PostgreSQL's own crash safety).
 * @param {{ logDir: string }} options
 */
async function startPostgres({ logDir }) {
	const bin = postgresBinDir();
	const account = postgresAccount();
	/** The command and its arguments, run as the account. @type {(command: string, args: string[]) => [string, string[]]} */
	const asAccount = (command, args) =>
		account
			? [
					'setpriv',
					[
						`--reuid=${account.uid}`,
						`--regid=${account.gid}`,
						'--init-groups',
						'--',
						command,
						...args,
					],
				]
			: [command, args];
	const root = throwawayDir('va-queue-pg-', account);
	const dataDir = path.join(root, 'data');
	const user = 'n8n';
	const password = `pw-${Math.random().toString(36).slice(2)}`;
	const passwordFile = path.join(root, 'password');
	fs.writeFileSync(passwordFile, `${password}\n`, { mode: 0o600 });
	if (account) fs.chownSync(passwordFile, account.uid, account.gid);
	const initdbArgs = [
		'-D',
		dataDir,
		'-U',
		user,
		`--pwfile=${passwordFile}`,
		'-A',
		'scram-sha-256',
		'-E',
		'UTF8',
		'--no-locale',
		'--no-sync',
	];
	const initdb = await runProcess(...asAccount(path.join(bin, 'initdb'), initdbArgs), {
		cwd: root,
		env: cleanEnv(),
		logDir,
		name: 'initdb',
		timeoutMs: 180_000,
	});
	if (initdb.code !== 0)
		throw new Error(`initdb failed (code ${initdb.code}):\n${initdb.stdout}\n${initdb.stderr}`);

	const host = '127.0.0.1';
	const env = cleanEnv({ PGPASSWORD: password });
	/** @type {number} */
	let port = 0;
	/** @type {import('./processes').StartedProcess | undefined} */
	let proc;
	for (let attempt = 1; !proc; attempt++) {
		port = await freePort();
		const settings = [
			'fsync=off',
			'synchronous_commit=off',
			'full_page_writes=off',
			'max_connections=50',
		];
		const args = [
			'-D',
			dataDir,
			'-h',
			host,
			'-p',
			String(port),
			'-k',
			'',
			...settings.flatMap((setting) => ['-c', setting]),
		];
		const started = startProcess(...asAccount(path.join(bin, 'postgres'), args), {
			cwd: root,
			env: cleanEnv(),
			logDir,
			name: 'postgres',
		});
		try {
			await poll(
				'postgres',
				async () =>
					(
						await runProcess(path.join(bin, 'pg_isready'), ['-h', host, '-p', String(port)], {
							name: 'pg_isready',
							timeoutMs: 10_000,
						})
					).code === 0,
				{ proc: started },
			);
			proc = started;
		} catch (error) {
			await started.stop(5_000);
			if (attempt >= 3 || !/could not bind|already in use/.test(started.readStderr())) throw error;
		}
	}

	/**
	 * Runs one command-line client (psql, createdb, pg_dump) against this cluster.
	 * @param {string} command
	 * @param {string[]} args
	 */
	async function client(command, args, timeoutMs = 120_000) {
		const result = await runProcess(
			path.join(bin, command),
			['-h', host, '-p', String(port), '-U', user, ...args],
			{
				env,
				name: command,
				timeoutMs,
			},
		);
		if (result.code !== 0)
			throw new Error(
				`${command} ${args.join(' ')} failed (code ${result.code}):\n${result.stderr}`,
			);
		return result.stdout;
	}

	return {
		host,
		port,
		user,
		password,
		dataDir,
		proc,
		/** @param {string} name */
		createDatabase: (name) => client('createdb', [name]),
		/**
		 * Rows of a query as arrays of text fields (psql's unaligned output, tab-separated).
		 * @param {string} database
		 * @param {string} sql
		 */
		async query(database, sql) {
			const stdout = await client('psql', [
				'-d',
				database,
				'-X',
				'-A',
				'-t',
				'-F',
				'\t',
				'-v',
				'ON_ERROR_STOP=1',
				'-c',
				sql,
			]);
			return stdout
				.split('\n')
				.filter((line) => line !== '')
				.map((line) => line.split('\t'));
		},
		/** The whole database as SQL text (pg_dump), to search it. @param {string} database */
		dump: (database) => client('pg_dump', ['-d', database, '--data-only'], 300_000),
		async stop() {
			// SIGINT is PostgreSQL's fast shutdown: it does not wait for clients to disconnect.
			killGroup(proc.pid, 'SIGINT');
			await proc.stop(20_000);
			fs.rmSync(root, { recursive: true, force: true });
		},
	};
}

/** @typedef {Awaited<ReturnType<typeof startRedis>>} Redis */
/** @typedef {Awaited<ReturnType<typeof startPostgres>>} Postgres */

module.exports = { postgresMissing, startPostgres, startRedis };
