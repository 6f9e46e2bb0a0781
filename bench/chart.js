'use strict';

/**
 * Draws docs/images/bench.svg from the last benchmark (bench/results/latest.json): requests per
 * second of each 10,000-item scenario, and how many of the 10,000 updates were applied.
 *   node bench/chart.js [results.json] [out.svg]
 */
const fs = require('fs');
const path = require('path');

const input = process.argv[2] ?? path.join(__dirname, 'results', 'latest.json');
const output = process.argv[3] ?? path.join(__dirname, '..', 'docs', 'images', 'bench.svg');
const { machine, rows } = JSON.parse(fs.readFileSync(input, 'utf8'));

const bars = rows
	.filter((row) => row.count === 10_000 && !row.name.startsWith('simulator'))
	.map((row) => ({ label: row.name, value: row.result.requestsPerSec, applied: row.result.applied, count: row.count }));

const width = 900;
const rowHeight = 34;
const left = 380;
const top = 56;
const height = top + bars.length * rowHeight + 40;
const max = Math.max(...bars.map((bar) => bar.value));
const scale = (width - left - 150) / max;
const escape = (text) => text.replace(/&/g, '&amp;').replace(/</g, '&lt;');
const isOurs = (label) => label.startsWith('Voice Assistant');

const body = bars
	.map((bar, i) => {
		const y = top + i * rowHeight;
		const barWidth = Math.max(2, bar.value * scale);
		const lost = bar.count - bar.applied;
		const note = lost > 0 ? ` — ${lost.toLocaleString('en')} lost` : '';
		return [
			`<text x="${left - 10}" y="${y + 20}" text-anchor="end">${escape(bar.label)}</text>`,
			`<rect x="${left}" y="${y + 6}" width="${barWidth.toFixed(1)}" height="20" rx="3" fill="${isOurs(bar.label) ? '#5B4CF5' : '#9CA3AF'}"/>`,
			`<text x="${left + barWidth + 8}" y="${y + 20}">${Math.round(bar.value)} req/s${note}</text>`,
		].join('');
	})
	.join('\n');

const svg = `<svg xmlns="http://www.w3.org/2000/svg" width="${width}" height="${height}" font-family="sans-serif" font-size="13" fill="#111827">
<rect width="100%" height="100%" fill="#ffffff"/>
<text x="20" y="28" font-size="16" font-weight="bold">10,000 contact updates in n8n 2.8.4: requests per second (higher is better)</text>
<text x="20" y="46" fill="#6B7280">${escape(machine)}</text>
${body}
</svg>
`;
fs.mkdirSync(path.dirname(output), { recursive: true });
fs.writeFileSync(output, svg);
console.log(`Wrote ${output}`);
