// Knowledge Base → Create, and the body it shares with Update: its fields, one entry each
// (KNOWLEDGE_BASE_FIELDS), sent by n8n's routing; the question/answer pairs typed as a list or
// given as JSON.
import type {
	IDataObject,
	IExecuteSingleFunctions,
	INodeProperties,
	INodePropertyOptions,
} from 'n8n-workflow';
import { parseJsonInput } from '../../shared/spec/coerce';
import type { BodyOfItem, RequestContract } from '../../shared/spec/contract';
import { tableContract, type Field, type FieldTable } from '../../shared/spec/fieldTable';
import { fieldProperties } from '../../shared/spec/fieldProperties';
import { operationRouting, sendInBody, sendInQuery } from '../../shared/request/routing';
import { ENDPOINTS } from '../../shared/spec/endpoints';
import { problem } from '../../shared/spec/validation';
import { KNOWLEDGE_BASE_LANGUAGES } from '../../shared/spec/values';
import { knowledgeBaseLanguage, questionAnswerPairs } from '../../shared/spec/schemas';

/** The knowledge base's fields as the API names them (docs/api.md); Create and Update send them. */
export const KNOWLEDGE_BASE_FIELDS: FieldTable = {
	title: {
		parameter: 'title',
		label: 'Title',
		required: true,
		description: 'Title of the knowledge base',
	},
	language: {
		parameter: 'language',
		label: 'Language',
		type: knowledgeBaseLanguage,
		required: true,
		description: 'Language of the questions and answers (the service supports English only)',
		ui: {
			type: 'options',
			options: KNOWLEDGE_BASE_LANGUAGES.map((code) => ({
				name: code === 'en' ? 'English' : code,
				value: code,
			})),
			default: 'en',
		},
	},
	data: {
		parameter: 'questionsAndAnswers',
		label: 'Questions and Answers',
		type: questionAnswerPairs,
		required: true,
		ui: [
			{
				displayName: 'Questions and Answers Input',
				name: 'qaInputMode',
				type: 'options',
				noDataExpression: true,
				options: [
					{ name: 'List', value: 'list', description: 'Type each question and answer in the node' },
					{
						name: 'JSON',
						value: 'json',
						description: 'An array of {question, answer} objects, e.g. from an Aggregate node',
					},
				],
				default: 'list',
			},
			{
				displayName: 'Questions and Answers',
				name: 'questionsAndAnswers',
				type: 'fixedCollection',
				typeOptions: { multipleValues: true, sortable: true },
				placeholder: 'Add Question',
				default: {},
				displayOptions: { show: { qaInputMode: ['list'] } },
				options: [
					{
						displayName: 'Pair',
						name: 'pairs',
						values: [
							{
								displayName: 'Question',
								name: 'question',
								type: 'string',
								default: '',
								routing: sendInBody('=data[{{$index}}].question'),
							},
							{
								displayName: 'Answer',
								name: 'answer',
								type: 'string',
								typeOptions: { rows: 2 },
								default: '',
								routing: sendInBody('=data[{{$index}}].answer'),
							},
						],
					},
				],
			},
			{
				displayName: 'Questions and Answers (JSON)',
				name: 'questionsAndAnswersJson',
				type: 'json',
				required: true,
				default:
					'[\n  { "question": "What are your opening hours?", "answer": "9am to 5pm, Monday to Friday." }\n]',
				displayOptions: { show: { qaInputMode: ['json'] } },
				description:
					'An array of objects with a question and an answer. Other keys of each object are ignored.',
				hint: 'After an Aggregate node, use an expression such as {{ $json.data }}',
				routing: sendInBody('data'),
			},
		],
	},
};

/** n8n's routing sends each field of a knowledge base: the body's by name, the id as the query's. */
export const routeKnowledgeBase = (name: string, field: Field) =>
	field.inQuery ? sendInQuery(name) : sendInBody(name);

/** The UI list arrives as data[i] (absent when empty); JSON mode arrives as text or a parsed value. */
function knowledgeBaseBody(body: IDataObject, context: IExecuteSingleFunctions): BodyOfItem {
	if (context.getNodeParameter('qaInputMode', 'list') === 'list')
		return { body: { ...body, data: body.data ?? [] } };
	const parsed = parseJsonInput(body.data);
	if ('problem' in parsed) {
		// The other fields are still checked, so one look shows every problem of the item.
		const { data, ...rest } = body;
		return {
			body: rest,
			problems: [problem('data', parsed.problem, 'Questions and Answers (JSON)', data)],
		};
	}
	return { body: { ...body, data: parsed.value } };
}

/** The contract of an endpoint whose body is a knowledge base (its table: these fields, and Update's id). */
export const knowledgeBaseContract = (table: FieldTable): RequestContract => ({
	...tableContract(table),
	makeBody: knowledgeBaseBody,
});

export const createOperation: INodePropertyOptions = {
	name: 'Create',
	value: 'create',
	action: 'Create a knowledge base',
	description: 'Create a knowledge base from question/answer pairs',
	routing: operationRouting(
		ENDPOINTS.createKnowledgeBase,
		knowledgeBaseContract(KNOWLEDGE_BASE_FIELDS),
	),
};

/** Create and Update send the same body, so these fields show for both operations. */
export const knowledgeBaseBodyFields: INodeProperties[] = fieldProperties(
	KNOWLEDGE_BASE_FIELDS,
	{ resource: ['knowledgeBase'], operation: ['create', 'update'] },
	routeKnowledgeBase,
);
