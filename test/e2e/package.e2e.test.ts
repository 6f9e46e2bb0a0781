/**
 * The tarball this suite installs holds every file n8n loads (tools/package-tarball.js: the
 * node and credential files listed in package.json, the codex next to each node, every icon
 * they reference) and nothing else; the unit suite (test/package.test.ts) checks its own pack
 * in more detail. The example workflows set only parameters the node defines.
 */
import { execFileSync } from 'child_process';
import fs from 'fs';
import os from 'os';
import path from 'path';
import { packageProblems } from '../../tools/package-tarball';
import {
	CREDENTIAL,
	CREDENTIAL_TYPE,
	NODE_TYPE,
	TARBALL,
	TOOL_NODE_TYPE,
	readExamples,
} from './helpers';

test('the npm tarball holds what n8n loads, and nothing to install', () => {
	const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'va-e2e-tarball-'));
	try {
		execFileSync('tar', ['-xzf', TARBALL, '-C', dir]);
		expect(packageProblems(path.join(dir, 'package'))).toEqual([]);
	} finally {
		fs.rmSync(dir, { recursive: true, force: true });
	}
});

describe('the example workflows', () => {
	// The built node (globalSetup ran `npm run build`); its parameters are what n8n shows.
	// eslint-disable-next-line @typescript-eslint/no-require-imports
	const { VoiceAssistant } = require('../../dist/nodes/VoiceAssistant/VoiceAssistant.node.js');
	const properties: Array<Record<string, any>> = new VoiceAssistant().description.properties;
	const toolOnly = ['descriptionType', 'toolDescription'];

	/** Whether a parameter shows for the resource/operation (etc.) these parameters select. */
	function shown(
		property: Record<string, any>,
		parameters: Record<string, any>,
		defined: Array<Record<string, any>>,
	): boolean {
		return Object.entries(property.displayOptions?.show ?? {}).every(([key, allowed]) => {
			if (key.startsWith('@')) return true;
			const value =
				key in parameters
					? parameters[key]
					: defined.find((candidate) => candidate.name === key)?.default;
			return (allowed as unknown[]).includes(value);
		});
	}

	/** Parameter paths a workflow sets that the node does not show there (n8n would silently drop them). */
	function unknownParameters(
		parameters: Record<string, any>,
		defined: Array<Record<string, any>>,
		prefix = '',
	): string[] {
		return Object.entries(parameters).flatMap(([key, value]) => {
			const property = defined.find(
				(candidate) => candidate.name === key && shown(candidate, parameters, defined),
			);
			if (!property) return [`${prefix}${key}`];
			if (property.type === 'collection')
				return unknownParameters(value, property.options, `${prefix}${key}.`);
			if (property.type === 'fixedCollection') {
				return Object.entries(value).flatMap(([group, entries]) => {
					const option = property.options.find(
						(candidate: Record<string, any>) => candidate.name === group,
					);
					if (!option) return [`${prefix}${key}.${group}`];
					return ([] as Array<Record<string, any>>)
						.concat(entries as Record<string, any>)
						.flatMap((entry) =>
							unknownParameters(entry, option.values, `${prefix}${key}.${group}.`),
						);
				});
			}
			return [];
		});
	}

	test.each(readExamples().map((example) => [example.name, example] as const))(
		'%s: sets only parameters the Voice Assistant node defines, with the simulator credential',
		(_name, example) => {
			const nodes = example.nodes.filter(
				(node) => node.type === NODE_TYPE || node.type === TOOL_NODE_TYPE,
			);
			expect(nodes.length).toBeGreaterThan(0);
			expect(example.id.length).toBeLessThanOrEqual(16);
			for (const node of nodes) {
				const parameters = { ...node.parameters };
				if (node.type === TOOL_NODE_TYPE) for (const key of toolOnly) delete parameters[key];
				expect([node.name, unknownParameters(parameters, properties)]).toEqual([node.name, []]);
				expect(node.credentials).toEqual({ [CREDENTIAL_TYPE]: CREDENTIAL });
			}
		},
	);
});
