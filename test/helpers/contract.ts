/**
 * A light version's contract (test/contract/<node>-v<version>.json), read off the built node and
 * credential: what a workflow saved at that version stores and reads. The facts of the node's
 * description are here (type names, credential fields, each operation's parameters), the runs
 * that give its requests and output fields in contractRuns.ts, and how two contracts differ, which
 * difference breaks saved workflows, in contractDiff.ts. test/contract.test.ts says what is
 * recorded and why.
 */
import {
	NodeHelpers,
	type ICredentialType,
	type INodeProperties,
	type INodePropertyCollection,
	type INodePropertyOptions,
	type INodeTypeDescription,
	type NodeParameterValueType,
} from 'n8n-workflow';

export type Json = null | boolean | number | string | Json[] | { [key: string]: Json };
export type JsonObject = { [key: string]: Json };

/** Keys of a parameter that only the editor reads, or that the facts below record in their own form. */
const NOT_A_FACT = new Set([
	'displayName',
	'name',
	'description',
	'hint',
	'placeholder',
	'action',
	'builderHint',
	'routing',
	'displayOptions',
	'options',
	'values',
	'modes',
	'typeOptions',
]);

/** typeOptions that only shape the editor (rows, a password field, a searchable list, the methods that fill it). */
const EDITOR_TYPE_OPTIONS = new Set([
	'rows',
	'password',
	'sortable',
	'searchable',
	'searchListMethod',
	'loadOptionsMethod',
	'loadOptionsDependsOn',
	'editor',
	'editorLanguage',
	'alwaysOpenEditWindow',
]);

type Conditions = NonNullable<INodeProperties['displayOptions']>['show'];

/** Whether a parameter exists at `version` (its `@version` display options). */
export function atVersion(property: Pick<INodeProperties, 'displayOptions'>, version: number) {
	const show = property.displayOptions?.show?.['@version'];
	const hide = property.displayOptions?.hide?.['@version'];
	if (show && !NodeHelpers.checkConditions(show, [version])) return false;
	return !(hide && NodeHelpers.checkConditions(hide, [version]));
}

/** Display conditions without `@version` (a version's file holds that version alone), primitive values sorted. */
function conditions(given: Conditions): JsonObject | undefined {
	const entries = Object.entries(given ?? {})
		.filter(([key]) => key !== '@version')
		.map(([key, values]) => {
			const list = [...((values ?? []) as Json[])];
			if (list.every((value) => typeof value !== 'object')) list.sort(byText);
			return [key, list] as const;
		});
	return entries.length ? Object.fromEntries(entries) : undefined;
}

const byText = (a: Json, b: Json) => String(a).localeCompare(String(b));

/** Facts of one parameter (or of a credential field, or a resource locator's mode). */
function facts(property: INodeProperties, version: number, where: string): JsonObject {
	const recorded: JsonObject = {};
	for (const [key, value] of Object.entries(property)) {
		if (!NOT_A_FACT.has(key) && value !== undefined) recorded[key] = value as Json;
	}
	const typeOptions = Object.entries(property.typeOptions ?? {}).filter(
		([key, value]) => !EDITOR_TYPE_OPTIONS.has(key) && value !== undefined,
	);
	if (typeOptions.length) recorded.typeOptions = Object.fromEntries(typeOptions) as JsonObject;
	const show = conditions(property.displayOptions?.show);
	const hide = conditions(property.displayOptions?.hide);
	if (show) recorded.show = show;
	if (hide) recorded.hide = hide;
	const inside = `${where} › ${property.name}`;
	if (property.type === 'options' || property.type === 'multiOptions') {
		recorded.options = ((property.options ?? []) as INodePropertyOptions[])
			.map((option) => option.value as Json)
			.sort(byText);
	} else if (property.type === 'collection') {
		recorded.options = byName(property.options as INodeProperties[], version, inside);
	} else if (property.type === 'fixedCollection') {
		recorded.options = Object.fromEntries(
			((property.options ?? []) as INodePropertyCollection[]).map((group) => [
				group.name,
				{ values: byName(group.values, version, `${inside} › ${group.name}`) },
			]),
		);
	}
	if (property.modes) {
		recorded.modes = byName(property.modes as unknown as INodeProperties[], version, inside);
	}
	return recorded;
}

/** Parameters keyed by name, those that exist at `version`; a name twice is an error (a fact needs one key). */
export function byName(list: INodeProperties[], version: number, where: string): JsonObject {
	const recorded: JsonObject = {};
	for (const property of list.filter((candidate) => atVersion(candidate, version))) {
		if (property.type === 'notice') continue; // shown text, never stored in a workflow
		if (property.name in recorded)
			throw new Error(
				`${where}: two parameters named "${property.name}" at version ${version}; the contract keys them by name`,
			);
		recorded[property.name] = facts(property, version, where);
	}
	return recorded;
}

/** Whether `property` shows for this resource and operation (its other conditions are recorded as they are). */
function showsFor(property: INodeProperties, selected: Record<string, string>): boolean {
	const { show = {}, hide = {} } = property.displayOptions ?? {};
	return Object.entries(selected).every(
		([key, value]) =>
			(!show[key] || NodeHelpers.checkConditions(show[key], [value])) &&
			!(hide[key] && NodeHelpers.checkConditions(hide[key], [value])),
	);
}

/** The operations of the node at `version`: "resource:operation" → the top-level parameters that show for it. */
export function operationsOf(
	description: INodeTypeDescription,
	version: number,
): Record<string, { resource: string; operation: string; properties: INodeProperties[] }> {
	const properties = description.properties.filter((property) => atVersion(property, version));
	const valuesOf = (property: INodeProperties) =>
		((property.options ?? []) as INodePropertyOptions[]).map((option) => String(option.value));
	const resources = properties.filter((property) => property.name === 'resource');
	const found: ReturnType<typeof operationsOf> = {};
	for (const resource of resources.flatMap(valuesOf)) {
		const selectors = properties.filter(
			(property) => property.name === 'operation' && showsFor(property, { resource }),
		);
		for (const operation of selectors.flatMap(valuesOf)) {
			found[`${resource}:${operation}`] = {
				resource,
				operation,
				properties: properties.filter((property) => showsFor(property, { resource, operation })),
			};
		}
	}
	return found;
}

/** The node's versions, as its description lists them. */
export const versionsOf = (description: INodeTypeDescription): number[] =>
	([] as number[]).concat(description.version).sort((a, b) => a - b);

/** What identifies the node and its credential in a saved workflow at `version`. */
export function identityFacts(
	packageName: string,
	description: INodeTypeDescription,
	credential: ICredentialType,
	version: number,
): { node: JsonObject; credential: JsonObject } {
	const type = `${packageName}.${description.name}`;
	return {
		node: {
			type,
			...(description.usableAsTool ? { toolType: `${type}Tool` } : {}),
			version,
			credentials: (description.credentials ?? []).map(({ name, required }) => ({
				name,
				required: !!required,
			})),
			inputs: description.inputs as Json,
			outputs: description.outputs as Json,
		},
		credential: {
			type: credential.name,
			fields: byName(credential.properties, version, `credential ${credential.name}`),
		},
	};
}

/** JSON with every object's keys sorted: the recorded file reads the same whatever order the code declares. */
export function sorted(value: Json | NodeParameterValueType | undefined): Json {
	if (Array.isArray(value)) return value.map((entry) => sorted(entry as Json));
	if (value === null || typeof value !== 'object') return value as Json;
	return Object.fromEntries(
		Object.keys(value)
			.sort()
			.filter((key) => (value as JsonObject)[key] !== undefined)
			.map((key) => [key, sorted((value as JsonObject)[key])]),
	);
}

/** An item's fields as paths: nested objects as a.b, the objects of a list as a[].b. */
export function fieldPaths(json: unknown): string[] {
	const paths = new Set<string>();
	const isObject = (value: unknown) =>
		value !== null && typeof value === 'object' && !Array.isArray(value);
	const visit = (value: unknown, at: string) => {
		if (Array.isArray(value) && value.some(isObject)) {
			for (const entry of value.filter(isObject)) visit(entry, `${at}[]`);
		} else if (isObject(value) && Object.keys(value as object).length) {
			for (const [key, inner] of Object.entries(value as object))
				visit(inner, at ? `${at}.${key}` : key);
		} else if (at) paths.add(at);
	};
	visit(json, '');
	return [...paths].sort();
}

/** A saved node's parameter values that its version's contract does not have (by path), e.g. a renamed parameter or option value. */
export function unknownParameters(
	contract: JsonObject,
	parameters: Record<string, unknown>,
	ignore: string[] = [],
): string[] {
	const operations = contract.operations as Record<string, JsonObject>;
	/** A parameter's default, as the operations of `resource` (or any) show it. */
	const defaultOf = (name: string, resource = '') => {
		const [, operation] =
			Object.entries(operations).find(([key]) => key.startsWith(resource)) ?? [];
		return ((operation?.parameters as Record<string, JsonObject>)?.[name] ?? {}).default;
	};
	const resource = String(parameters.resource ?? defaultOf('resource'));
	const key = `${resource}:${String(parameters.operation ?? defaultOf('operation', `${resource}:`))}`;
	const operation = operations[key];
	if (!operation) return [`resource/operation ${key}`];
	const check = (values: Record<string, unknown>, known: JsonObject, prefix: string): string[] =>
		Object.entries(values).flatMap(([name, value]) => {
			const facts = known[name] as JsonObject | undefined;
			if (!facts) return [`${prefix}${name}`];
			const options = facts.options;
			if (Array.isArray(options)) {
				const expression = typeof value === 'string' && value.startsWith('=');
				return expression || options.includes(value as Json)
					? []
					: [`${prefix}${name}=${String(value)}`];
			}
			const mode = (value as { mode?: string } | null)?.mode;
			if (facts.type === 'resourceLocator' && mode !== undefined)
				return mode in (facts.modes as JsonObject) ? [] : [`${prefix}${name}.mode=${mode}`];
			if (facts.type === 'collection' && value && typeof value === 'object')
				return check(value as Record<string, unknown>, options as JsonObject, `${prefix}${name}.`);
			if (facts.type === 'fixedCollection' && value && typeof value === 'object')
				return Object.entries(value).flatMap(([group, entries]) => {
					const values = ((options as Record<string, JsonObject>)[group]?.values ?? undefined) as
						| JsonObject
						| undefined;
					if (!values) return [`${prefix}${name}.${group}`];
					return ([] as unknown[])
						.concat(entries)
						.flatMap((entry) =>
							check(entry as Record<string, unknown>, values, `${prefix}${name}.${group}.`),
						);
				});
			return [];
		});
	const given = Object.fromEntries(
		Object.entries(parameters).filter(([name]) => !ignore.includes(name)),
	);
	return check(given, operation.parameters as JsonObject, '');
}
