// Knowledge Base → Create, and the body it shares with Update: title, language and the
// question/answer pairs, typed as a list or given as JSON.
import type {
	IDataObject,
	IExecuteSingleFunctions,
	INodeProperties,
	INodePropertyOptions,
} from 'n8n-workflow';
import { parseJsonInput } from '../../shared/spec/coerce';
import type { BodyOfItem, RequestContract } from '../../shared/spec/contract';
import { operationRouting, sendInBody } from '../../shared/request/routing';
import { ENDPOINTS } from '../../shared/spec/endpoints';
import { knowledgeBaseSchema } from '../../shared/spec/schemas';
import { problem } from '../../shared/spec/validation';
import { KNOWLEDGE_BASE_LANGUAGES } from '../../shared/spec/values';

/** Create and Update send the same body, so these fields show for both operations. */
const showForBodyOperations = { resource: ['knowledgeBase'], operation: ['create', 'update'] };

const labels = { title: 'Title', language: 'Language', data: 'Questions and Answers' };

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

export const knowledgeBaseContract: RequestContract = {
	body: knowledgeBaseSchema,
	labels,
	makeBody: knowledgeBaseBody,
};

export const createOperation: INodePropertyOptions = {
	name: 'Create',
	value: 'create',
	action: 'Create a knowledge base',
	description: 'Create a knowledge base from question/answer pairs',
	routing: operationRouting(ENDPOINTS.createKnowledgeBase, knowledgeBaseContract),
};

export const knowledgeBaseBodyFields: INodeProperties[] = [
	{
		displayName: 'Title',
		name: 'title',
		type: 'string',
		required: true,
		default: '',
		displayOptions: { show: showForBodyOperations },
		description: 'Title of the knowledge base',
		routing: sendInBody('title'),
	},
	{
		displayName: 'Language',
		name: 'language',
		type: 'options',
		required: true,
		options: KNOWLEDGE_BASE_LANGUAGES.map((code) => ({
			name: code === 'en' ? 'English' : code,
			value: code,
		})),
		default: 'en',
		displayOptions: { show: showForBodyOperations },
		description: 'Language of the questions and answers (the service supports English only)',
		routing: sendInBody('language'),
	},
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
		displayOptions: { show: showForBodyOperations },
	},
	{
		displayName: 'Questions and Answers',
		name: 'questionsAndAnswers',
		type: 'fixedCollection',
		typeOptions: { multipleValues: true, sortable: true },
		placeholder: 'Add Question',
		default: {},
		displayOptions: { show: { ...showForBodyOperations, qaInputMode: ['list'] } },
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
		displayOptions: { show: { ...showForBodyOperations, qaInputMode: ['json'] } },
		description:
			'An array of objects with a question and an answer. Other keys of each object are ignored.',
		hint: 'After an Aggregate node, use an expression such as {{ $json.data }}',
		routing: sendInBody('data'),
	},
];
