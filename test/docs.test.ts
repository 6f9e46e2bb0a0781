/**
 * The documentation's links, as GitHub renders them: every relative link and image in README.md,
 * ARCHITECTURE.md and docs/*.md points at a file that exists, and a `#anchor` at a heading of the
 * Markdown file it names (GitHub's slugs). Every example workflow and every docs page is linked
 * from the README. The files ARCHITECTURE.md and docs/how-it-works.md name in backticks exist, and
 * ARCHITECTURE.md names every file of the request engine (nodes/VoiceAssistant/shared/request/).
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

/** The pages that describe the code by its files. */
const CODE_MAPS = ['ARCHITECTURE.md', 'docs/how-it-works.md'];
const NOT_REPO = new Set(['node_modules', 'dist', 'coverage', '.git', '.demo']);

/** Every file and folder of the repo (what a clone holds), as POSIX paths from its root; folders end with `/`. */
function repoPaths(dir = ROOT): string[] {
	return fs.readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
		if (NOT_REPO.has(entry.name)) return [];
		const full = path.join(dir, entry.name);
		const relative = path.relative(ROOT, full).split(path.sep).join('/');
		return entry.isDirectory() ? [`${relative}/`, ...repoPaths(full)] : [relative];
	});
}

/**
 * The file paths a page names in inline code: a path with a folder (`shared/request/`,
 * `resources/segmentContact/update.ts`) or a file name with an extension (`clock.ts`). Patterns
 * (`resources/<resource>/`), calls and URLs are not paths.
 */
function namedPaths(file: string): string[] {
	const code = [
		...proseLines(file)
			.join('\n')
			.matchAll(/`([^`\n]+)`/g),
	].map((match) => match[1]);
	return code.filter(
		(text) =>
			/^[\w.-]+(\/[\w.-]+)*\/?$/.test(text) &&
			(text.includes('/') || /\.(ts|js|json|md|svg|yml|sh)$/.test(text)) &&
			!/^\.+$/.test(text),
	);
}

describe('the pages that map the code', () => {
	const paths = repoPaths();
	/** A named path exists when a file (or folder) of the repo is it or ends with it: the pages name files from the folder they discuss. */
	const exists = (named: string) => {
		const forms = named.endsWith('/') ? [named] : [named, `${named}/`];
		return paths.some((candidate) =>
			forms.some((form) => candidate === form || candidate.endsWith(`/${form}`)),
		);
	};

	test.each(CODE_MAPS)('%s: every file it names in backticks exists', (file) => {
		const named = namedPaths(file);
		expect(named.length).toBeGreaterThan(0);
		expect(named.filter((name) => !exists(name))).toEqual([]);
	});

	test('ARCHITECTURE.md names every file of the request engine (shared/request/)', () => {
		const text = fs.readFileSync(path.join(ROOT, 'ARCHITECTURE.md'), 'utf8');
		const engine = fs.readdirSync(path.join(ROOT, 'nodes/VoiceAssistant/shared/request'));
		expect(engine.length).toBeGreaterThan(0);
		expect(engine.filter((name) => !text.includes(`\`${name}\``))).toEqual([]);
	});

	test("ARCHITECTURE.md's import list is the engine's imports, file by file", () => {
		const dir = path.join(ROOT, 'nodes/VoiceAssistant/shared/request');
		const imports = (file: string) =>
			[...fs.readFileSync(path.join(dir, file), 'utf8').matchAll(/from '\.\/(\w+)'/g)]
				.map((match) => match[1])
				.filter((name, i, all) => all.indexOf(name) === i)
				.sort();
		const inCode = Object.fromEntries(
			fs.readdirSync(dir).map((file) => [file.replace(/\.ts$/, ''), imports(file)]),
		);
		const text = fs.readFileSync(path.join(ROOT, 'ARCHITECTURE.md'), 'utf8');
		const inDoc: Record<string, string[]> = {};
		for (const [, from, to] of text.matchAll(/^- ((?:`\w+`(?:, )?)+) → (.+)$/gm)) {
			const names = (list: string) => [...list.matchAll(/`(\w+)`/g)].map((match) => match[1]);
			for (const name of names(from)) inDoc[name] = to === 'none' ? [] : names(to).sort();
		}
		expect(inDoc).toEqual(inCode);
	});

	test('a named path that does not exist is found', () => {
		expect(exists('shared/request/run.ts')).toBe(true);
		expect(exists('shared/request/nothing.ts')).toBe(false);
		expect(exists('run.ts')).toBe(true);
		expect(exists('un.ts')).toBe(false);
		expect(exists('test/simulator')).toBe(true);
	});
});
