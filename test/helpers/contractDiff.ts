/**
 * How the node's contracts today differ from the recorded ones (test/contract/), each difference
 * named and judged: an addition (a new parameter, option value, operation, credential field, case
 * or light version) keeps what saved workflows do and is recorded with `npm run contract`;
 * anything else breaks a released version and takes a new light version. The rule and why:
 * test/contract.test.ts.
 */
import fs from 'fs';
import path from 'path';
import type { ICredentialType, INodeType } from 'n8n-workflow';
import { versionsOf, type Json, type JsonObject } from './contract';
import { ContractRunner, contractOf } from './contractRuns';

export interface Difference {
	version: number;
	where: string;
	change: string;
	breaking: boolean;
}

/**
 * Where an added key is a whole new thing (an addition), not a new fact of an existing one:
 * `options` here holds a collection's parameters or a fixed collection's groups (an options
 * list of values is a VALUE_SET).
 */
const NEW_THINGS = new Set([
	'operations',
	'parameters',
	'fields',
	'cases',
	'modes',
	'values',
	'options',
]);
/** Lists of values where an added value is an addition: option values, keys a request can send. */
const VALUE_SETS = new Set(['options', 'query', 'body']);

const isObject = (value: Json | undefined): value is JsonObject =>
	value !== null && typeof value === 'object' && !Array.isArray(value);

const shown = (value: Json | undefined) => {
	const text = value === undefined ? 'nothing' : JSON.stringify(value);
	return text.length > 300 ? `${text.slice(0, 300)}…` : text;
};

/** A path of the contract in words: `segmentContact:update › parameter "mappingMode" › default`. */
function label(at: string[]): string {
	const words: string[] = [];
	const kinds: Record<string, string> = {
		parameters: 'parameter',
		fields: 'field',
		cases: 'case',
		modes: 'mode',
		values: 'field',
		options: 'option',
	};
	for (let i = 0; i < at.length; i++) {
		const key = at[i];
		if (i === 0 && key === 'operations' && at[1] !== undefined) {
			words.push(at[++i]);
		} else if (kinds[key] && at[i + 1] !== undefined) {
			words.push(`${kinds[key]} "${at[++i]}"`);
		} else words.push(key);
	}
	return words.join(' › ');
}

/** What differs between two requests, in words (a body that is the same JSON in another key order says so). */
function requestChange(before: Json | undefined, after: Json | undefined): string {
	if (!isObject(before) || !isObject(after)) return `${shown(before)} → ${shown(after)}`;
	const changed = Object.keys({ ...before, ...after }).filter(
		(key) => JSON.stringify(before[key]) !== JSON.stringify(after[key]),
	);
	return changed
		.map((key) => {
			if (key !== 'body') return `${key}: ${shown(before[key])} → ${shown(after[key])}`;
			const parse = (text: Json) => {
				try {
					return JSON.parse(String(text));
				} catch {
					return text;
				}
			};
			const [a, b] = [parse(before.body), parse(after.body)];
			const sameJson =
				isObject(a) && isObject(b) && JSON.stringify(sortKeys(a)) === JSON.stringify(sortKeys(b));
			return sameJson
				? `body: the same JSON with its keys in another order (${shown(before.body)} → ${shown(after.body)})`
				: `body: ${shown(before.body)} → ${shown(after.body)}`;
		})
		.join('; ');
}

const sortKeys = (value: unknown): unknown =>
	Array.isArray(value)
		? value.map(sortKeys)
		: value !== null && typeof value === 'object'
			? Object.fromEntries(
					Object.keys(value)
						.sort()
						.map((key) => [key, sortKeys((value as Record<string, unknown>)[key])]),
				)
			: value;

/** Every difference between a recorded contract and today's, judged. */
export function differences(
	version: number,
	recorded: Json | undefined,
	current: Json | undefined,
	at: string[] = [],
): Difference[] {
	const key = at[at.length - 1];
	const found = (change: string, breaking = true): Difference[] => [
		{ version, where: label(at), change, breaking },
	];
	if (JSON.stringify(recorded) === JSON.stringify(current)) return [];
	if (recorded === undefined)
		return NEW_THINGS.has(at[at.length - 2])
			? found('added', false)
			: found(`added ${shown(current)}`);
	if (current === undefined) return found('removed or renamed');
	if (key === 'requests') {
		const before = recorded as Json[];
		const after = Array.isArray(current) ? current : [];
		return before.length !== after.length
			? found(`${before.length} request(s) → ${after.length}: ${shown(after)}`)
			: before.flatMap((request, i) =>
					JSON.stringify(request) === JSON.stringify(after[i])
						? []
						: found(`request ${i + 1}: ${requestChange(request, after[i])}`),
				);
	}
	if (key === 'output' || key === 'error output') {
		const [before, after] = [recorded as string[][], (current ?? []) as string[][]];
		if (before.length !== after.length)
			return found(`${before.length} item(s) → ${after.length}: ${shown(after)}`);
		return before.flatMap((fields, i) => {
			const lost = fields.filter((field) => !after[i].includes(field));
			const gained = after[i].filter((field) => !fields.includes(field));
			return lost.length || gained.length
				? found(
						`item ${i + 1}: ${[...lost.map((field) => `${field} gone`), ...gained.map((field) => `${field} new`)].join(', ')}`,
					)
				: [];
		});
	}
	if (Array.isArray(recorded) && Array.isArray(current) && VALUE_SETS.has(key)) {
		const text = (list: Json[]) => list.map((value) => JSON.stringify(value));
		const [before, after] = [text(recorded), text(current)];
		return [
			...before.filter((value) => !after.includes(value)).map((value) => `value ${value} removed`),
			...after.filter((value) => !before.includes(value)).map((value) => `value ${value} added`),
		].flatMap((change) => found(change, change.endsWith('removed')));
	}
	if (isObject(recorded) && isObject(current)) {
		return [...new Set([...Object.keys(recorded), ...Object.keys(current)])]
			.sort()
			.flatMap((inner) => differences(version, recorded[inner], current[inner], [...at, inner]));
	}
	return found(`${shown(recorded)} → ${shown(current)}`);
}

/** The recorded contracts in `dir`, by version: `<node>-v<version>.json`. */
export function readRecorded(dir: string, nodeName: string): Map<number, JsonObject> {
	const recorded = new Map<number, JsonObject>();
	const pattern = new RegExp(`^${nodeName}-v(\\d+(?:\\.\\d+)?)\\.json$`);
	for (const file of fs.existsSync(dir) ? fs.readdirSync(dir) : []) {
		const version = pattern.exec(file)?.[1];
		if (version)
			recorded.set(Number(version), JSON.parse(fs.readFileSync(path.join(dir, file), 'utf8')));
	}
	return recorded;
}

export const contractFile = (nodeName: string, version: number) => `${nodeName}-v${version}.json`;

export interface Check {
	/** Today's contract of each version of the node. */
	contracts: Map<number, JsonObject>;
	differences: Difference[];
}

/**
 * Today's contract of every version of the node (a fresh instance from `makeNode`) beside the
 * recorded ones: a recorded version the node lost is a breaking difference, a version not
 * recorded yet an addition.
 */
export async function checkContracts(
	makeNode: () => INodeType,
	credential: ICredentialType,
	recorded: Map<number, JsonObject>,
): Promise<Check> {
	const versions = versionsOf(makeNode().description);
	const runner = new ContractRunner(makeNode);
	await runner.start();
	const contracts = new Map<number, JsonObject>();
	const found: Difference[] = [];
	try {
		for (const version of versions) {
			const before = recorded.get(version);
			const contract = await contractOf(makeNode, credential, version, before, runner);
			contracts.set(version, contract);
			if (before) found.push(...differences(version, before, contract));
			else found.push({ version, where: `version ${version}`, change: 'added', breaking: false });
		}
	} finally {
		await runner.stop();
	}
	for (const version of recorded.keys()) {
		if (!versions.includes(version))
			found.push({ version, where: `version ${version}`, change: 'removed', breaking: true });
	}
	return { contracts, differences: found };
}

/** The next light version after the node's highest: 1 → 1.1, 1.1 → 1.2. */
const nextVersion = (versions: number[]) => Math.round((Math.max(...versions) + 0.1) * 10) / 10;

/** The differences in words, and what to do: what breaks a released version first, with the fix. */
export function explain(found: Difference[], nodeName: string, versions: number[]): string {
	if (!found.length) return '';
	const next = nextVersion(versions);
	const lines: string[] = [];
	const breaking = found.filter((difference) => difference.breaking);
	for (const version of [...new Set(breaking.map((difference) => difference.version))]) {
		lines.push(
			`Version ${version} changed in a way that breaks workflows saved at it (test/contract/${contractFile(nodeName, version)}):`,
			...breaking
				.filter((difference) => difference.version === version)
				.map((difference) => `  ✗ ${difference.where}: ${difference.change}`),
			`Version ${version} is released: keep it as it is and add the change under a new light version (${next}): ` +
				`\`version: [${[...versions, next].join(', ')}]\` in the node's description, ` +
				`\`displayOptions.show['@version']\` on each parameter that differs (the one of today for [${versions.join(', ')}], ` +
				`the new one for [{ _cnd: { gte: ${next} } }]), \`this.getNode().typeVersion\` where code must branch; ` +
				`then record test/contract/${contractFile(nodeName, next)} with \`npm run contract\` (RELEASING.md, "A breaking change").`,
		);
	}
	const additions = found.filter((difference) => !difference.breaking);
	if (additions.length) {
		lines.push(
			'Additions that keep what saved workflows send and read (record them with `npm run contract`):',
			...additions.map(
				(difference) =>
					`  + ${difference.where}: ${difference.change} (version ${difference.version})`,
			),
		);
	}
	return lines.join('\n');
}
