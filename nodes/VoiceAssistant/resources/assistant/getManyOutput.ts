// Get Many's output: its parameters checked in preSend, and the postReceive that filters, limits
// and simplifies the assistant list.
import type {
	IDataObject,
	IExecuteSingleFunctions,
	IN8nHttpFullResponse,
	INodeExecutionData,
} from 'n8n-workflow';
import { assistantId, assistantList } from '../../shared/assistants';
import { isUnset, readSwitch } from '../../shared/spec/coerce';
import {
	ASSISTANT_ID_FIELDS,
	ASSISTANT_LANGUAGES,
	ASSISTANT_TYPES,
	LANGUAGE_NAMES,
	SIMPLIFIED_ASSISTANT_FIELDS,
} from '../../shared/spec/values';
import { isHtml } from '../../shared/failureModel';
import { nodeError } from '../../shared/nodeError';

/** Said on a simplified assistant without an id, which Simplify would otherwise hide. */
const NO_ID_NOTICE = `No id: the service sent none of the fields ${ASSISTANT_ID_FIELDS.join(', ')} for this assistant. Turn off Simplify to see every field it sent.`;

function simplify(assistant: IDataObject): IDataObject {
	const id = assistantId(assistant);
	const result: IDataObject = id === undefined ? {} : { id };
	for (const field of SIMPLIFIED_ASSISTANT_FIELDS) {
		if (assistant[field] !== undefined) result[field] = assistant[field];
	}
	if (id === undefined) result.notice = NO_ID_NOTICE;
	return result;
}

interface ListOptions {
	returnAll: boolean;
	limit: number;
	simplify: boolean;
	type?: string;
	language?: string;
}

/** A filter value: the spec's code in any case, or (for languages) the language's English name. */
function matchCode(
	value: unknown,
	codes: readonly string[],
	names: Record<string, string> = {},
): string | undefined {
	const text = String(value).trim().toLowerCase();
	return (
		codes.find((code) => code === text) ??
		Object.keys(names).find((code) => names[code].toLowerCase() === text)
	);
}

/** Get Many's parameters, checked: what the output should be, or what is wrong with them. */
function readListOptions(context: IExecuteSingleFunctions): {
	options: ListOptions;
	problems: string[];
} {
	const problems: string[] = [];
	const returnAll = readSwitch(context.getNodeParameter('returnAll', false));
	if (returnAll === undefined) problems.push('"Return All" must be true or false');
	const simplifyOutput = readSwitch(context.getNodeParameter('simplify', true));
	if (simplifyOutput === undefined) problems.push('"Simplify" must be true or false');
	let limit = Infinity;
	if (returnAll === false) {
		limit = Number(context.getNodeParameter('limit', 50));
		if (!Number.isInteger(limit) || limit < 1)
			problems.push('"Limit" must be a whole number of at least 1');
	}
	const filters = context.getNodeParameter('filters', {}) as IDataObject;
	const options: ListOptions = {
		returnAll: returnAll ?? false,
		limit,
		simplify: simplifyOutput ?? true,
	};
	if (!isUnset(filters.type)) {
		options.type = matchCode(filters.type, ASSISTANT_TYPES);
		if (!options.type)
			problems.push(`"Filters → Type" must be one of: ${ASSISTANT_TYPES.join(', ')}`);
	}
	if (!isUnset(filters.language)) {
		options.language = matchCode(filters.language, ASSISTANT_LANGUAGES, LANGUAGE_NAMES);
		if (!options.language)
			problems.push(`"Filters → Language" must be one of: ${ASSISTANT_LANGUAGES.join(', ')}`);
	}
	return { options, problems };
}

/** preSend check of Get Many: a wrong limit or filter fails before the list is fetched. */
export function listParameterProblems(context: IExecuteSingleFunctions): string[] {
	return readListOptions(context).problems;
}

function describeBody(body: unknown, headers: IDataObject): string {
	if (body === '' || body === undefined) return 'an empty body';
	if (body === null) return 'null';
	if (isHtml(body, headers)) return 'an HTML page';
	return Array.isArray(body)
		? 'a list'
		: typeof body === 'object'
			? 'an object'
			: `a ${typeof body}`;
}

/** postReceive of Assistant → Get Many: filters, limits and simplifies the list, one item per assistant. */
export async function shapeAssistantList(
	this: IExecuteSingleFunctions,
	_items: INodeExecutionData[],
	response: IN8nHttpFullResponse,
): Promise<INodeExecutionData[]> {
	const list = assistantList(response.body);
	if (!list) {
		throw nodeError(
			this.getNode(),
			`The service answered the assistant list with ${describeBody(response.body, response.headers)} instead of a list`,
			{
				itemIndex: this.getItemIndex(),
				description:
					'Check that the Base URL in the credential points at the voice assistant service.',
			},
		);
	}
	const { options } = readListOptions(this);
	const assistants = list
		.filter(
			(assistant) =>
				(!options.type || assistant.type === options.type) &&
				(!options.language || assistant.language === options.language),
		)
		.slice(0, options.limit);
	return assistants.map((assistant) => ({
		json: options.simplify ? simplify(assistant) : assistant,
	}));
}
