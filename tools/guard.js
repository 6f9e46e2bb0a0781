'use strict';

/**
 * `node guard.js COMMAND ARGS...` runs COMMAND and makes sure it does not outlive the process
 * that started the guard. That process holds the other end of our stdin: when it goes away, by
 * any means (Ctrl-C, a crash, SIGKILL), stdin ends and the guard stops its process group, which
 * COMMAND and whatever it starts (n8n's task runners) belong to. The exit status is COMMAND's.
 */

const { spawn } = require('child_process');
const os = require('os');

const [command, ...args] = process.argv.slice(2);
const child = spawn(command, args, { stdio: ['ignore', 'inherit', 'inherit'] });

/** @param {NodeJS.Signals} signal */
const killGroup = (signal) => {
	try {
		process.kill(-process.pid, signal);
	} catch {}
};

// Signals sent to the whole group reach COMMAND too: the guard only waits for it to exit.
for (const signal of ['SIGINT', 'SIGTERM', 'SIGHUP']) process.on(signal, () => {});

process.stdin.on('data', () => {});
process.stdin.on('end', () => {
	killGroup('SIGTERM');
	setTimeout(() => killGroup('SIGKILL'), 10_000).unref();
});

child.on('error', (error) => {
	process.stderr.write(`${command}: ${error.message}\n`);
	process.exit(127);
});
child.on('exit', (code, signal) => {
	process.exit(code ?? 128 + (signal ? os.constants.signals[signal] : 0));
});
