'use strict';

/**
 * Draws .github/images/bench.svg from the last benchmark: requests per second of each 10,000-item
 * scenario (and how many of the 10,000 updates were applied), then the 2,000 updates at 100 and
 * 300 ms service latency with default settings. Reads bench/results/latest.json and, when
 * present, bench/results/defaults.json (`--defaults` runs; its rows replace those of the same name).
 *   node bench/chart.js [results.json ...] [out.svg]
 */
const fs = require('fs');
const path = require('path');

const argv = process.argv.slice(2);
const output =
	argv.find((arg) => arg.endsWith('.svg')) ??
	path.join(__dirname, '..', '.github', 'images', 'bench.svg');
const given = argv.filter((arg) => arg.endsWith('.json'));
const inputs = (
	given.length
		? given
		: ['latest.json', 'defaults.json'].map((name) => path.join(__dirname, 'results', name))
).filter((file) => fs.existsSync(file));
if (inputs.length === 0) throw new Error('No benchmark results: run npm run bench first');

/** @type {Map<string, import('./run').Row>} */
const byKey = new Map();
const machines = [];
for (const file of inputs) {
	const { machine, load, rows } = JSON.parse(fs.readFileSync(file, 'utf8'));
	machines.push(
		load ? `${machine}; ${load.replace('Load average (1, 5, 15 min): ', 'load ')}` : machine,
	);
	for (const row of rows) byKey.set(`${row.name}|${row.count}`, row);
}
/** The n8n versions measured, from each result's machine line (bench/run.js ends it with `n8n <version>`). */
const versions = [
	...new Set(machines.map((line) => /n8n (\S+?)(;|$)/.exec(line)?.[1]).filter(Boolean)),
];
const rows = [...byKey.values()].filter(
	(row) => !row.name.startsWith('simulator') && !row.name.includes('chaos'),
);

/** @param {import('./run').Row} row */
const toBar = (row) => ({
	label: row.name,
	value: row.result.requestsPerSec,
	applied: row.result.applied,
	count: row.count,
});
const groups = [
	{ title: '10,000 contact updates', bars: rows.filter((row) => row.count === 10_000).map(toBar) },
	{
		title: '2,000 contact updates at 100 and 300 ms service latency, default settings',
		bars: rows.filter((row) => row.count === 2_000 && / ms latency$/.test(row.name)).map(toBar),
	},
].filter((group) => group.bars.length > 0);

const width = 940;
const rowHeight = 34;
const groupGap = 36;
const left = 420;
const top = 40 + machines.length * 18;
const all = groups.flatMap((group) => group.bars);
const max = Math.max(...all.map((bar) => bar.value));
const scale = (width - left - 150) / max;
/** @param {string} text */
const escape = (text) => text.replace(/&/g, '&amp;').replace(/</g, '&lt;');
/** @param {string} label */
const isOurs = (label) => label.startsWith('Voice Assistant');

let y = top;
const body = [];
for (const group of groups) {
	body.push(`<text x="20" y="${y + 22}" font-weight="bold">${escape(group.title)}</text>`);
	y += groupGap;
	for (const bar of group.bars) {
		const barWidth = Math.max(2, bar.value * scale);
		const lost = bar.count - bar.applied;
		const note = lost > 0 ? ` — ${lost.toLocaleString('en')} lost` : '';
		body.push(
			[
				`<text x="${left - 10}" y="${y + 20}" text-anchor="end">${escape(bar.label)}</text>`,
				`<rect x="${left}" y="${y + 6}" width="${barWidth.toFixed(1)}" height="20" rx="3" fill="${isOurs(bar.label) ? '#5B4CF5' : '#9CA3AF'}"/>`,
				`<text x="${left + barWidth + 8}" y="${y + 20}">${Math.round(bar.value)} req/s${note}</text>`,
			].join(''),
		);
		y += rowHeight;
	}
}
const height = y + 24;

const svg = `<svg xmlns="http://www.w3.org/2000/svg" width="${width}" height="${height}" font-family="sans-serif" font-size="13" fill="#111827">
<rect width="100%" height="100%" fill="#ffffff"/>
<text x="20" y="28" font-size="16" font-weight="bold">Contact updates in n8n ${escape(versions.join(' and '))}: requests per second (higher is better)</text>
${machines.map((line, i) => `<text x="20" y="${46 + i * 18}" fill="#6B7280">${escape(line)}</text>`).join('\n')}
${body.join('\n')}
</svg>
`;
fs.mkdirSync(path.dirname(output), { recursive: true });
fs.writeFileSync(output, svg);
console.log(`Wrote ${output}`);
