/**
 * The documentation's links, as GitHub renders them: every relative link and image in README.md,
 * ARCHITECTURE.md and docs/*.md points at a file that exists, and a `#anchor` at a heading of the
 * Markdown file it names (GitHub's slugs). Every example workflow and every docs page is linked
 * from the README. The docs stay brief: the README at most 1,500 words with no line over 400
 * characters, the README, docs/, ARCHITECTURE.md and RELEASING.md at most 15,000 words together.
 * The files the pages name in backticks exist, and ARCHITECTURE.md names every file of shared/ and
 * the engine's imports. What ARCHITECTURE.md states as rules holds (an opening comment in every
 * file that ships, the size limits, shared/ never importing the engine); the identifiers
 * ARCHITECTURE.md and how-it-works name in backticks are in the code; no retired word of the Words
 * section is back. The tables the code owns are the code's: the README's operations, Options and
 * credential fields, how-it-works' failure model, and the figures both give.
 */
import fs from 'fs';
import path from 'path';
import ts from 'typescript';
import type { INodeProperties, INodePropertyOptions } from 'n8n-workflow';
import { VoiceAssistantApi } from '../credentials/VoiceAssistantApi.credentials';
import { VoiceAssistant } from '../nodes/VoiceAssistant/VoiceAssistant.node';
import { ruleOf, type AttemptEnd } from '../nodes/VoiceAssistant/shared/failureModel';
import { requestPolicyOptions } from '../nodes/VoiceAssistant/shared/requestPolicy';
import { ROOT, SHIPPED_SOURCES as SHIPPED } from './helpers/shippedSources';

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
			expect.arrayContaining(['the-nightly-contact-update', 'version-history']),
		);
		expect([...anchors('docs/scaling.md')]).toContain('the-suite-npm-run-testqueue');
		expect([...anchors('docs/how-it-works.md')]).toContain('the-hooks-in-n8ns-declarative-engine');
	});
});

/** Words as `wc -w` counts them: runs of characters between white space. */
const wordCount = (text: string) => text.split(/\s+/).filter(Boolean).length;

describe('the docs stay brief', () => {
	const BRIEF = ['README.md', 'ARCHITECTURE.md', 'RELEASING.md', ...DOCS.slice(2)];

	test('the README: at most 1,500 words, no line over 400 characters', () => {
		const text = fs.readFileSync(path.join(ROOT, 'README.md'), 'utf8');
		const words = wordCount(text);
		const long = text
			.split('\n')
			.flatMap((line, index) =>
				line.length > 400 ? [`line ${index + 1}: ${line.length} characters`] : [],
			);
		expect({ words: words > 1500 ? words : 'at most 1,500', long }).toEqual({
			words: 'at most 1,500',
			long: [],
		});
	});

	test('the README, docs/, ARCHITECTURE.md and RELEASING.md: at most 15,000 words together', () => {
		const counts = Object.fromEntries(
			BRIEF.map((file) => [file, wordCount(fs.readFileSync(path.join(ROOT, file), 'utf8'))]),
		);
		const total = Object.values(counts).reduce((sum, count) => sum + count, 0);
		// The counts of every file when the total is over: which page grew.
		expect(total > 15000 ? { total, ...counts } : {}).toEqual({});
		expect(BRIEF).toContain('docs/how-it-works.md');
	});

	test('words are counted as wc -w counts them', () => {
		expect(wordCount('  | Option | Default |\n| --- | --- |\n`a b`  c\n')).toBe(13);
	});
});

/** The pages that describe the code by its files. */
const CODE_MAPS = ['ARCHITECTURE.md', 'docs/how-it-works.md'];
/** The pages that name files of the repo in passing: those must exist too. */
const FILE_NAMING = [
	'docs/development.md',
	'docs/testing.md',
	'docs/scaling.md',
	'docs/recipes.md',
];
/** What the pages name that a clone does not hold: made by a command, or another program's file. */
const NOT_IN_A_CLONE = [
	'.demo/',
	'dist/',
	'node_modules/',
	'test/queue/results/',
	'claude_desktop_config.json',
];
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

	test.each([...CODE_MAPS, ...FILE_NAMING])(
		'%s: every file it names in backticks exists',
		(file) => {
			const named = namedPaths(file).filter(
				(name) => !NOT_IN_A_CLONE.some((made) => name.startsWith(made)),
			);
			expect(named.length).toBeGreaterThan(0);
			expect(named.filter((name) => !exists(name))).toEqual([]);
		},
	);

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

const read = (file: string) => fs.readFileSync(path.join(ROOT, file), 'utf8');
const lineCount = (file: string) => read(file).replace(/\n$/, '').split('\n').length;

describe('the rules ARCHITECTURE.md states', () => {
	test('every TypeScript file of nodes/ and credentials/ opens with a comment of a few words', () => {
		expect(SHIPPED.length).toBeGreaterThan(40);
		const opening = (file: string) => {
			const text = read(file).trimStart();
			const comment = /^(\/\*[\s\S]*?\*\/|(?:\/\/.*\n)+)/.exec(text)?.[0] ?? '';
			return comment.replace(/[/*]/g, ' ').trim().split(/\s+/).filter(Boolean).length;
		};
		expect(SHIPPED.filter((file) => opening(file) < 6)).toEqual([]);
	});

	test('a file of nodes/ has at most 220 lines, the engine at most 1,800, the README at most 300', () => {
		const engine = SHIPPED.filter((file) => file.includes('/shared/request/'));
		expect(engine.length).toBeGreaterThan(10);
		const long = SHIPPED.filter((file) => file.startsWith('nodes/') && lineCount(file) > 220);
		expect(long).toEqual([]);
		expect(engine.reduce((sum, file) => sum + lineCount(file), 0)).toBeLessThanOrEqual(1800);
		expect(lineCount('README.md')).toBeLessThanOrEqual(300);
	});

	test('ARCHITECTURE.md names every file of shared/ (request/, spec/ and the top)', () => {
		const text = read('ARCHITECTURE.md');
		const shared = SHIPPED.filter((file) => file.includes('/shared/'));
		expect(shared.length).toBeGreaterThan(30);
		expect(shared.filter((file) => !text.includes(`\`${path.posix.basename(file)}\``))).toEqual([]);
	});

	test('shared/ outside request/ never imports request/', () => {
		const outside = SHIPPED.filter(
			(file) => file.includes('/shared/') && !file.includes('/shared/request/'),
		);
		expect(outside.length).toBeGreaterThan(20);
		const importsEngine = (file: string) =>
			[...read(file).matchAll(/from '([^']+)'/g)].some(([, from]) =>
				`${path.posix.join(path.posix.dirname(file), from)}/`.includes('/shared/request/'),
			);
		expect(outside.filter(importsEngine)).toEqual([]);
		expect(importsEngine('nodes/VoiceAssistant/resources/assistant/getMany.ts')).toBe(true);
	});
});

describe('the rule docs/testing.md states: a unit test file per module, named after it', () => {
	test('every engine module (shared/request/) has its test/<module>.test.ts', () => {
		const engine = SHIPPED.filter((file) => file.includes('/shared/request/'));
		expect(engine.length).toBeGreaterThan(10);
		const testOf = (file: string) => `test/${path.posix.basename(file, '.ts')}.test.ts`;
		expect(testOf('nodes/VoiceAssistant/shared/request/run.ts')).toBe('test/run.test.ts');
		const untested = engine.map(testOf).filter((file) => !fs.existsSync(path.join(ROOT, file)));
		expect(untested).toEqual([]);
	});
});

/**
 * What the code names: every identifier, every word of its string, template and regular
 * expression literals (comments left out), and `Class.member` for each member of a class.
 */
function codeNames(): Set<string> {
	const names = new Set<string>();
	for (const file of SHIPPED) {
		const source = ts.createSourceFile(file, read(file), ts.ScriptTarget.Latest, true);
		const visit = (node: ts.Node): void => {
			if (ts.isIdentifier(node) || ts.isPrivateIdentifier(node)) names.add(node.text);
			if (ts.isStringLiteralLike(node) || ts.isRegularExpressionLiteral(node))
				for (const word of node.text.match(/[\w$-]+/g) ?? []) names.add(word);
			if (ts.isTemplateHead(node) || ts.isTemplateMiddle(node) || ts.isTemplateTail(node))
				for (const word of node.text.match(/[\w$-]+/g) ?? []) names.add(word);
			if (ts.isClassDeclaration(node) && node.name)
				for (const member of node.members)
					if (member.name) names.add(`${node.name.text}.${member.name.getText(source)}`);
			ts.forEachChild(node, visit);
		};
		visit(source);
	}
	return names;
}

/** Names of n8n, Node.js and the spec the pages cite in backticks; each is cited, and none is the code's own. */
const NOT_OURS = [
	'$now', // an n8n expression
	'makeRoutingRequest', // n8n-core's RoutingNode
	'autoSelectFamily', // Node's happy eyeballs
	'AggregateError',
	'EHOSTUNREACH', // a code the node reads with its system call, never alone
	'ENODATA',
	'ENOMEM',
	'EOF',
	'SsrfBlockedIpError', // n8n 2.41's SSRF protection
	'SsrfBlockedHostnameError',
	'ERR_TLS_CERT_ALTNAME_INVALID', // Node's tls
	'ERR_TLS_CERT_ALTNAME_FORMAT',
	'secureConnect',
	'dns',
	'routing.send', // n8n's declarative routing
];

/** The Words section's list of retired words, which alone may name them. */
const RETIRED = /^- Retired[^:]*:([\s\S]*?)(?=\n\n|\n- )/m;
const withoutRetired = (text: string) => text.replace(RETIRED, '');

/** The identifiers a page names in backticks (`Run`, `Run.maySend`, `RULES`), file names and its Retired line left out. */
function namedIdentifiers(file: string): string[] {
	const prose = withoutRetired(proseLines(file).join('\n'));
	const code = [...prose.matchAll(/`([^`\n]+)`/g)].map((match) => match[1]);
	return code.filter(
		(text) =>
			/^[A-Za-z_$][\w$]*(\.[A-Za-z_$][\w$]*)?$/.test(text) &&
			!/\.(ts|js|json|md|svg|yml|sh|mjs)$/.test(text),
	);
}

describe('the names the pages give the code', () => {
	const names = codeNames();

	test.each(CODE_MAPS)('%s: every identifier it names in backticks is in the code', (file) => {
		const named = namedIdentifiers(file);
		expect(named.length).toBeGreaterThan(10);
		expect(named.filter((name) => !names.has(name) && !NOT_OURS.includes(name))).toEqual([]);
	});

	test("the names of n8n and Node's the pages cite are cited, and are not the code's own", () => {
		const cited = new Set(CODE_MAPS.flatMap(namedIdentifiers));
		expect(NOT_OURS.filter((name) => !cited.has(name))).toEqual([]);
		expect(NOT_OURS.filter((name) => names.has(name))).toEqual([]);
	});

	test('a name that is not in the code is found', () => {
		expect(names.has('Run.maySend')).toBe(true);
		expect(names.has('Run.mayStart')).toBe(false);
		expect(names.has('RULES')).toBe(true);
		expect(names.has('runIndex')).toBe(false);
	});

	/** The words ARCHITECTURE.md's Words section retires. */
	const retired = [
		...(RETIRED.exec(read('ARCHITECTURE.md'))?.[1] ?? '').matchAll(/`([^`]+)`/g),
	].map((match) => match[1]);
	const usesRetired = (text: string) =>
		retired.filter((word) => new RegExp(`(?<![\\w$])${word}(?![\\w$])`, 'i').test(text));

	test('no retired word in the code, ARCHITECTURE.md, how-it-works, the README or scaling.md', () => {
		expect(retired.length).toBeGreaterThan(5);
		const files = [
			...SHIPPED,
			'README.md',
			'ARCHITECTURE.md',
			'docs/how-it-works.md',
			'docs/scaling.md',
		];
		const found = files.map((file) => [file, usesRetired(withoutRetired(read(file)))] as const);
		expect(Object.fromEntries(found.filter(([, words]) => words.length > 0))).toEqual({});
	});

	test('a retired word is found, a longer one is not', () => {
		expect(usesRetired('the pace is the account’s')).toEqual(['pace']);
		expect(usesRetired('paced by the pacer, const AccountPace = 1')).toEqual(['AccountPace']);
	});
});

/** The text of a page from `heading` to the next heading of the same or a higher level. */
function sectionOf(text: string, heading: string): string {
	const start = text.indexOf(`\n${heading}\n`);
	expect(start).toBeGreaterThanOrEqual(0);
	const level = /^#+/.exec(heading)![0].length;
	const rest = text.slice(start + heading.length + 2);
	const end = rest.search(new RegExp(`^#{1,${level}} `, 'm'));
	return end === -1 ? rest : rest.slice(0, end);
}

/** The first `columns` cells of each body row of the Markdown tables in `text` (header rows and rules left out). */
function tableRows(text: string, columns: number): string[][] {
	const lines = text.split('\n').filter((line) => line.startsWith('|'));
	return lines
		.filter(
			(line, index) =>
				!/^\|[\s|:-]+\|$/.test(line) && !/^\|[\s|:-]+\|$/.test(lines[index + 1] ?? ''),
		)
		.map((line) =>
			line
				.slice(1)
				.split(' |')
				.slice(0, columns)
				.map((cell) => cell.trim()),
		);
}

/** A numeric constant of a file of shared/, as its source declares it. */
function constant(file: string, name: string): number {
	const source = read(`nodes/VoiceAssistant/shared/${file}`);
	const value = new RegExp(`const ${name} = ([\\d._]+);`).exec(source)?.[1];
	expect(value).toBeDefined();
	return Number(value!.replace(/_/g, ''));
}

describe("the tables the code owns are the code's", () => {
	const readme = read('README.md');
	const howItWorks = read('docs/how-it-works.md');
	const percent = (share: number) => `${Math.round(share * 100)}%`;

	test('a table is read cell by cell, its header and rule left out', () => {
		const table = '| A | B |\n| - | - |\n| x | `y` |\n| z | w |\n';
		expect(tableRows(table, 2)).toEqual([
			['x', '`y`'],
			['z', 'w'],
		]);
		expect(sectionOf('# T\n\n## A\n\ntext\n### B\nmore\n## C\nother', '## A')).toBe(
			'\ntext\n### B\nmore\n',
		);
	});

	test("the README's operations: every resource and operation of the node, its method and path", () => {
		const properties = new VoiceAssistant().description.properties;
		const resources = properties.find((property) => property.name === 'resource')!
			.options as INodePropertyOptions[];
		const inNode = resources.flatMap(({ name: resource, value }) =>
			(
				properties.find(
					(property) =>
						property.name === 'operation' &&
						property.displayOptions?.show?.resource?.includes(value),
				)!.options as INodePropertyOptions[]
			).map(({ name, routing }) => [
				resource,
				name,
				`\`${routing!.request!.method} ${routing!.request!.url}\``,
			]),
		);
		expect(inNode.length).toBeGreaterThanOrEqual(5);
		const rows = tableRows(sectionOf(readme, '## Operations').split('### ')[0], 3);
		expect(rows.sort()).toEqual(inNode.sort());
	});

	test("the README's Options: every option is a row with its default, and no other", () => {
		const rows = tableRows(sectionOf(readme, '### Options'), 2);
		const shownDefault = (value: unknown) =>
			value === true ? 'on' : value === false ? 'off' : value === 0 ? '0 (off)' : String(value);
		const options = requestPolicyOptions.options as INodeProperties[];
		expect(rows.length).toBe(options.length);
		expect(Object.fromEntries(rows)).toEqual(
			Object.fromEntries(
				options.map((option) => [option.displayName, shownDefault(option.default)]),
			),
		);
		for (const name of ['maxConcurrency', 'maxRetries', 'maxRetryWaitSeconds']) {
			const option = options.find((candidate) => candidate.name === name)!;
			const { minValue, maxValue } = option.typeOptions as { minValue: number; maxValue: number };
			const range = `${option.displayName.replace(' (Seconds)', '')} ${minValue}–${maxValue.toLocaleString('en-US')}`;
			expect(readme).toContain(range);
		}
	});

	test("the README's credential fields: every field is a row with its default, and no other", () => {
		const rows = tableRows(sectionOf(readme, '## Credentials'), 2);
		const shownDefault = (field: INodeProperties) => {
			if (field.required) return 'required';
			if (typeof field.default === 'boolean') return field.default ? 'on' : 'off';
			const option = field.options?.find(
				(candidate) => 'value' in candidate && candidate.value === field.default,
			);
			return option ? option.name : String(field.default);
		};
		const fields = new VoiceAssistantApi().properties;
		expect(rows.length).toBe(fields.length);
		expect(Object.fromEntries(rows)).toEqual(
			Object.fromEntries(fields.map((field) => [field.displayName, shownDefault(field)])),
		);
	});

	test("how-it-works' failure model: every way an attempt ends, as RULES decides it", () => {
		const source = read('nodes/VoiceAssistant/shared/failureModel.ts');
		const union = /export type AttemptEnd =([^;]+);/.exec(source)![1];
		const ends = [...union.matchAll(/\| '([a-z-]+)'/g)].map((match) => match[1] as AttemptEnd);
		expect(ends.length).toBeGreaterThan(8);
		const again = (retry: string | false) =>
			retry === 'as-asked' ? 'as asked' : retry === 'backoff' ? 'backoff' : 'no';
		const laterTry = (end: AttemptEnd) =>
			!ruleOf(end, 'POST').remember
				? 'sends it'
				: end === 'answered'
					? 'same result'
					: 'same error';
		const rows = tableRows(sectionOf(howItWorks, '## The failure model'), 4).map(
			([end, ...cells]) => [/^`([a-z-]+)`/.exec(end)?.[1], ...cells],
		);
		expect(rows).toEqual(
			ends.map((end) => [
				end,
				again(ruleOf(end, 'PUT').retry),
				again(ruleOf(end, 'POST').retry),
				laterTry(end),
			]),
		);
		// "A GET or PUT is remembered only when it succeeded."
		expect(ends.filter((end) => ruleOf(end, 'GET').remember !== (end === 'answered'))).toEqual([]);
		expect(howItWorks).toContain('A GET or PUT is remembered only when it succeeded');
	});

	test("the figures they give are the code's constants", () => {
		const figures = [
			`Starts with ${constant('requestPolicy.ts', 'INITIAL_CONCURRENCY')} requests in flight`,
			`at most once per ${constant('request/windowSizer.ts', 'SLOW_START_DOUBLING_MS')} ms`,
			`at least ${constant('retry.ts', 'MIN_RETRY_DELAY_MS')} ms apart`,
			`runs of ${constant('progress.ts', 'PROGRESS_FROM_ITEMS')} items or more`,
		];
		expect(figures.filter((figure) => !readme.includes(figure))).toEqual([]);
		const pacer = 'request/ratePacer.ts';
		const seconds = (file: string, name: string) => constant(file, name) / 1000;
		const inWords = (ms: number) =>
			({ 3_600_000: 'an hour', 7_776_000_000: '90 days' })[ms] ?? `${ms} ms`;
		const rules = [
			`up to ${seconds('retry.ts', 'BASE_BACKOFF_MS')} s × 2`,
			`at most ${seconds('retry.ts', 'MAX_BACKOFF_MS')} s)`,
			`Every wait is at least ${constant('retry.ts', 'MIN_RETRY_DELAY_MS')} ms`,
			`when ${constant(pacer, 'THROTTLED_OF_RECENT_TO_PACE')} of the latest ${constant(pacer, 'RECENT')} attempts ended in 429`,
			`at least ${percent(constant(pacer, 'SET_SHARE_TO_PACE'))} of it in the last second`,
			`cuts the rate to ${percent(constant(pacer, 'BACK_OFF'))} of what the service took`,
			`by ${percent(constant(pacer, 'RETURN'))} a second, stays there ${constant(pacer, 'PLATEAU')} s`,
			`grows by ${percent(constant(pacer, 'GROWTH'))} of itself a second`,
			`up to ${percent(constant(pacer, 'MAX_GROWTH'))} a second`,
			`less ${percent(constant('countShare.ts', 'RESERVE'))} once others use it`,
			`for that long, at most ${inWords(constant('request/admission.ts', 'MAX_PAUSE_MS'))}`,
			`a reset or wait beyond ${inWords(constant('serviceCount.ts', 'MAX_HINT_MS'))}`,
			`below ${percent(constant(pacer, 'GIVE_UP_BELOW'))} of where they began`,
			`not below ${percent(constant(pacer, 'FUTILE_SHARE_RATIO'))} of that second's`,
		];
		expect(rules.filter((rule) => !howItWorks.includes(rule))).toEqual([]);
	});
});
