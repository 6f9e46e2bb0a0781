/**
 * The packed tarball holds every file n8n loads: the node and credential files listed in
 * package.json, the codex (.node.json) next to each node, and every icon they reference.
 * The example workflows set only parameters the node defines.
 */
import { execFileSync } from 'child_process';
import path from 'path';
import { CREDENTIAL, NODE_TYPE, TARBALL, TOOL_NODE_TYPE, readExamples } from './helpers';

const read = (file: string) => execFileSync('tar', ['-xzOf', TARBALL, `package/${file}`]).toString('utf8');

describe('the npm tarball', () => {
	const files = execFileSync('tar', ['-tzf', TARBALL])
		.toString('utf8')
		.split('\n')
		.filter(Boolean)
		.map((file) => file.replace(/^package\//, ''));
	const manifest = JSON.parse(read('package.json'));
	const nodes: string[] = manifest.n8n?.nodes ?? [];
	const credentials: string[] = manifest.n8n?.credentials ?? [];

	test('lists a node and a credential, and holds their compiled files', () => {
		expect(nodes).toEqual(['dist/nodes/VoiceAssistant/VoiceAssistant.node.js']);
		expect(credentials).toEqual(['dist/credentials/VoiceAssistantApi.credentials.js']);
		for (const file of [...nodes, ...credentials]) expect(files).toContain(file);
	});

	test('holds the codex of each node, naming the node type', () => {
		for (const node of nodes) {
			const codexFile = node.replace(/\.js$/, '.json');
			expect(files).toContain(codexFile);
			expect(JSON.parse(read(codexFile))).toMatchObject({ node: NODE_TYPE, categories: expect.any(Array) });
		}
	});

	test('holds every icon the node and the credential reference', () => {
		for (const file of [...nodes, ...credentials]) {
			const icons = [...read(file).matchAll(/file:([\w./-]+\.(?:svg|png))/g)].map(([, icon]) =>
				path.posix.join(path.posix.dirname(file), icon),
			);
			expect(icons.length).toBeGreaterThanOrEqual(1);
			for (const icon of icons) expect(files).toContain(icon);
		}
	});

	test('ships only the build output (and what npm always adds)', () => {
		const alwaysShipped = /^(package\.json|README(\.md)?|LICEN[CS]E(\.md)?)$/i;
		expect(files.filter((file) => !alwaysShipped.test(file) && !file.startsWith('dist/'))).toEqual([]);
		expect(files.filter((file) => /\.ts$/.test(file) && !file.endsWith('.d.ts'))).toEqual([]);
	});
});

describe('the example workflows', () => {
	// The built node (globalSetup ran `npm run build`); its parameters are what n8n shows.
	// eslint-disable-next-line @typescript-eslint/no-require-imports
	const { VoiceAssistant } = require('../../dist/nodes/VoiceAssistant/VoiceAssistant.node.js');
	const properties: Array<Record<string, any>> = new VoiceAssistant().description.properties;
	const toolOnly = ['descriptionType', 'toolDescription'];

	/** Whether a parameter shows for the resource/operation (etc.) these parameters select. */
	function shown(property: Record<string, any>, parameters: Record<string, any>, defined: Array<Record<string, any>>): boolean {
		return Object.entries(property.displayOptions?.show ?? {}).every(([key, allowed]) => {
			if (key.startsWith('@')) return true;
			const value = key in parameters ? parameters[key] : defined.find((candidate) => candidate.name === key)?.default;
			return (allowed as unknown[]).includes(value);
		});
	}

	/** Parameter paths a workflow sets that the node does not show there (n8n would silently drop them). */
	function unknownParameters(parameters: Record<string, any>, defined: Array<Record<string, any>>, prefix = ''): string[] {
		return Object.entries(parameters).flatMap(([key, value]) => {
			const property = defined.find((candidate) => candidate.name === key && shown(candidate, parameters, defined));
			if (!property) return [`${prefix}${key}`];
			if (property.type === 'collection') return unknownParameters(value, property.options, `${prefix}${key}.`);
			if (property.type === 'fixedCollection') {
				return Object.entries(value).flatMap(([group, entries]) => {
					const option = property.options.find((candidate: Record<string, any>) => candidate.name === group);
					if (!option) return [`${prefix}${key}.${group}`];
					return ([] as Array<Record<string, any>>)
						.concat(entries as Record<string, any>)
						.flatMap((entry) => unknownParameters(entry, option.values, `${prefix}${key}.${group}.`));
				});
			}
			return [];
		});
	}

	test.each(readExamples().map((example) => [example.name, example] as const))(
		'%s: sets only parameters the Voice Assistant node defines, with the simulator credential',
		(_name, example) => {
			const nodes = example.nodes.filter((node) => node.type === NODE_TYPE || node.type === TOOL_NODE_TYPE);
			expect(nodes.length).toBeGreaterThan(0);
			expect(example.id.length).toBeLessThanOrEqual(16);
			for (const node of nodes) {
				const parameters = { ...node.parameters };
				if (node.type === TOOL_NODE_TYPE) for (const key of toolOnly) delete parameters[key];
				expect([node.name, unknownParameters(parameters, properties)]).toEqual([node.name, []]);
				expect(node.credentials).toEqual({ voiceAssistantApi: CREDENTIAL });
			}
		},
	);
});
