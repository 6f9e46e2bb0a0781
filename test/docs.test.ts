/**
 * The documentation's links, as GitHub renders them: every relative link and image in README.md,
 * ARCHITECTURE.md and docs/*.md points at a file that exists, and a `#anchor` at a heading of the
 * Markdown file it names (GitHub's slugs). Every example workflow and every docs page is linked
 * from the README.
 */
import fs from 'fs';
import path from 'path';

const ROOT = path.resolve(__dirname, '..');
const DOCS = [
	'README.md',
	'ARCHITECTURE.md',
	...fs
		.readdirSync(path.join(ROOT, 'docs'))
		.filter((name) => name.endsWith('.md'))
		.map((name) => `docs/${name}`),
];

/** The lines outside fenced code blocks: a `# comment` or a `[x](y)` in a code block is not Markdown. */
function proseLines(file: string): string[] {
	let fenced = false;
	return fs
		.readFileSync(path.join(ROOT, file), 'utf8')
		.split('\n')
		.filter((line) => {
			if (/^\s*(```|~~~)/.test(line)) {
				fenced = !fenced;
				return false;
			}
			return !fenced;
		});
}

/** The target of every link and image, inline code left out. */
function linkTargets(file: string): string[] {
	const text = proseLines(file)
		.join('\n')
		.replace(/`[^`\n]*`/g, 'code');
	return [...text.matchAll(/!?\[[^\]]*\]\(<?([^)\s>]+)>?(?:\s+"[^"]*")?\)/g)].map(
		(match) => match[1],
	);
}

/** GitHub's anchor of each heading: its text lower-cased, punctuation dropped, spaces as hyphens, repeats numbered. */
function anchors(file: string): Set<string> {
	const seen = new Map<string, number>();
	const result = new Set<string>();
	for (const line of proseLines(file)) {
		const heading = /^#{1,6}\s+(.+?)\s*$/.exec(line)?.[1];
		if (heading === undefined) continue;
		const text = heading.replace(/!?\[([^\]]*)\]\([^)]*\)/g, '$1').replace(/[`*]/g, '');
		const slug = text
			.toLowerCase()
			.replace(/[^\p{L}\p{M}\p{N}\p{Pc} -]/gu, '')
			.replace(/ /g, '-');
		const count = seen.get(slug) ?? 0;
		seen.set(slug, count + 1);
		result.add(count === 0 ? slug : `${slug}-${count}`);
	}
	return result;
}

/** What is wrong with one link of `file`, if anything. */
function problemOf(file: string, target: string): string | undefined {
	if (/^[a-z][a-z0-9+.-]*:/i.test(target)) return undefined; // https:, mailto:: not a file
	const [pathPart, anchor] = decodeURI(target).split('#');
	const linked = pathPart === '' ? file : path.posix.join(path.posix.dirname(file), pathPart);
	if (!fs.existsSync(path.join(ROOT, linked))) return `${file}: ${target}: no file ${linked}`;
	if (anchor === undefined || !linked.endsWith('.md')) return undefined;
	return anchors(linked).has(anchor)
		? undefined
		: `${file}: ${target}: no heading #${anchor} in ${linked}`;
}

describe('the documentation', () => {
	test.each(DOCS)('%s: every relative link and image resolves', (file) => {
		const problems = linkTargets(file).map((target) => problemOf(file, target));
		expect(problems.filter(Boolean)).toEqual([]);
	});

	const readmeTargets = new Set(linkTargets('README.md').map((target) => target.split('#')[0]));

	test('the README links every example workflow', () => {
		const examples = fs
			.readdirSync(path.join(ROOT, 'examples'))
			.filter((name) => name.endsWith('.json'));
		expect(examples.length).toBeGreaterThan(0);
		expect(
			examples.map((name) => `examples/${name}`).filter((file) => !readmeTargets.has(file)),
		).toEqual([]);
	});

	test('the README links every page of docs/', () => {
		expect(DOCS.filter((file) => file.startsWith('docs/') && !readmeTargets.has(file))).toEqual([]);
	});

	test("anchors follow GitHub's slugs", () => {
		expect([...anchors('README.md')]).toEqual(
			expect.arrayContaining(['install-before-it-is-published', 'assistant--get-many']),
		);
		expect([...anchors('docs/scaling.md')]).toContain('the-suite-npm-run-testqueue');
	});
});
