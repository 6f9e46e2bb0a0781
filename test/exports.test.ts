/**
 * What the package exports is what it uses: every export of nodes/ and credentials/ is imported by
 * another file that ships, is one n8n loads (package.json's "n8n" section), or is a declared test
 * seam or field table. An export only the tests import is a door into the code that the code does
 * not need. Read with TypeScript's own parser, imports resolved to their files.
 */
import fs from 'fs';
import path from 'path';
import ts from 'typescript';
import { ROOT, SHIPPED_SOURCES as SHIPPED } from './helpers/shippedSources';

/** Declared seams: exports for the tests to replace what the node reads from the world. */
const SEAMS: Record<string, string[]> = {
	// The injected clock: unit tests run the node's waits on a fast or virtual clock.
	'nodes/VoiceAssistant/shared/clock.ts': ['Clock', 'realClock', 'useClock'],
	// The accounts' registry, read (never written) by the tests that prove every run leaves it and
	// nothing stays once its window has passed: no behaviour shows a map's size.
	'nodes/VoiceAssistant/shared/request/admission.ts': ['accountAdmissions'],
};

/** The field tables the code reads only where it derives from them: the tests read them too, rather than write the fields again. */
const TABLES: Record<string, string[]> = {
	'nodes/VoiceAssistant/resources/playgroundCall/start.ts': ['PLAYGROUND_CALL_FIELDS'],
	'nodes/VoiceAssistant/resources/knowledgeBase/update.ts': ['UPDATE_KNOWLEDGE_BASE_FIELDS'],
};

/** The classes n8n loads by file, as package.json lists them. */
function loadedByN8n(): Set<string> {
	const { n8n } = JSON.parse(fs.readFileSync(path.join(ROOT, 'package.json'), 'utf8'));
	return new Set(
		[...n8n.nodes, ...n8n.credentials].map((file: string) =>
			file.replace(/^dist\//, '').replace(/\.js$/, '.ts'),
		),
	);
}

const parse = (file: string) =>
	ts.createSourceFile(file, fs.readFileSync(path.join(ROOT, file), 'utf8'), ts.ScriptTarget.Latest);

const hasExport = (node: ts.Node) =>
	ts.canHaveModifiers(node) &&
	!!ts.getModifiers(node)?.some((modifier) => modifier.kind === ts.SyntaxKind.ExportKeyword);

/** The names a file exports. */
function exportsOf(file: string): string[] {
	const names: string[] = [];
	for (const statement of parse(file).statements) {
		if (ts.isExportDeclaration(statement) && statement.exportClause) {
			if (ts.isNamedExports(statement.exportClause))
				names.push(...statement.exportClause.elements.map((element) => element.name.text));
		} else if (hasExport(statement)) {
			if (ts.isVariableStatement(statement))
				names.push(
					...statement.declarationList.declarations.map((declaration) =>
						declaration.name.getText(parse(file)),
					),
				);
			else if ('name' in statement && statement.name && ts.isIdentifier(statement.name as ts.Node))
				names.push((statement.name as ts.Identifier).text);
		}
	}
	return names;
}

/** Each file's imported names, by the file they come from (relative imports of shipped files). */
function importsOf(file: string): Array<[string, string]> {
	const found: Array<[string, string]> = [];
	for (const statement of parse(file).statements) {
		if (!ts.isImportDeclaration(statement) && !ts.isExportDeclaration(statement)) continue;
		const { moduleSpecifier } = statement;
		if (!moduleSpecifier || !ts.isStringLiteral(moduleSpecifier)) continue;
		if (!moduleSpecifier.text.startsWith('.')) continue;
		const target = path.posix.join(path.posix.dirname(file), moduleSpecifier.text);
		const from = fs.existsSync(path.join(ROOT, `${target}.ts`))
			? `${target}.ts`
			: `${target}/index.ts`;
		const bindings = ts.isImportDeclaration(statement)
			? statement.importClause?.namedBindings
			: statement.exportClause;
		if (bindings && (ts.isNamedImports(bindings) || ts.isNamedExports(bindings)))
			for (const element of bindings.elements)
				found.push([from, (element.propertyName ?? element.name).text]);
	}
	return found;
}

test('every export of nodes/ and credentials/ is used by what ships, n8n, or a declared seam or table', () => {
	const used = new Set(
		SHIPPED.flatMap((file) => importsOf(file).map(([from, name]) => `${from}#${name}`)),
	);
	const loaded = loadedByN8n();
	const unused = SHIPPED.flatMap((file) =>
		exportsOf(file)
			.filter((name) => !used.has(`${file}#${name}`))
			.filter(
				(name) =>
					!loaded.has(file) && !SEAMS[file]?.includes(name) && !TABLES[file]?.includes(name),
			)
			.map((name) => `${file}: ${name}`),
	);
	expect(unused).toEqual([]);
});

test('the check bites: an export nothing imports is found, one a shipped file imports is not', () => {
	expect(exportsOf('nodes/VoiceAssistant/shared/clock.ts')).toEqual(
		expect.arrayContaining(['useClock']),
	);
	const imported = importsOf('nodes/VoiceAssistant/shared/request/sendItem.ts');
	expect(imported).toContainEqual([
		'nodes/VoiceAssistant/shared/failureModel.ts',
		'classifyFailure',
	]);
});
