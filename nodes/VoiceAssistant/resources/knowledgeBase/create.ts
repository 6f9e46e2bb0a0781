import type { IDataObject, IExecuteSingleFunctions, INodeProperties, INodePropertyOptions } from 'n8n-workflow';
import { JsonInputError, parseJsonInput } from '../../shared/coerce';
import { prepareRequest, type RequestContract } from '../../shared/hooks';
import { sendInBody } from '../../shared/routing';
import { ENDPOINTS, KNOWLEDGE_BASE_LANGUAGES, knowledgeBaseSchema } from '../../shared/spec';
import { failValidation } from '../../shared/validation';

/** Create and Update send the same body, so these fields show for both operations. */
const showForBodyOperations = { resource: ['knowledgeBase'], operation: ['create', 'update'] };

const labels = { title: 'Title', language: 'Language', data: 'Questions and Answers' };

/** The UI list arrives as data[i] (absent when empty); JSON mode arrives as text or a parsed value. */
function normalizeKnowledgeBase(
	body: IDataObject,
	itemIndex: number,
	context: IExecuteSingleFunctions,
): Record<string, unknown> {
	const mode = context.getNodeParameter('qaInputMode', 'list') as string;
	if (mode === 'list') return { ...body, data: body.data ?? [] };
	try {
		return { ...body, data: parseJsonInput(body.data) };
	} catch (error) {
		if (!(error instanceof JsonInputError)) throw error;
		return failValidation(context.getNode(), [`"data" (Questions and Answers (JSON)) ${error.message}`], itemIndex);
	}
}

export const knowledgeBaseContract: RequestContract = {
	body: knowledgeBaseSchema,
	labels,
	normalize: normalizeKnowledgeBase,
};

export const createOperation: INodePropertyOptions = {
	name: 'Create',
	value: 'create',
	action: 'Create a knowledge base',
	description: 'Create a knowledge base from question/answer pairs',
	routing: {
		request: {
			method: ENDPOINTS.createKnowledgeBase.method,
			url: ENDPOINTS.createKnowledgeBase.path,
			headers: { 'Content-Type': 'application/json' },
		},
		send: { preSend: [prepareRequest(knowledgeBaseContract)], paginate: true },
	},
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
		options: KNOWLEDGE_BASE_LANGUAGES.map((code) => ({ name: code === 'en' ? 'English' : code, value: code })),
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
		default: '[\n  { "question": "What are your opening hours?", "answer": "9am to 5pm, Monday to Friday." }\n]',
		displayOptions: { show: { ...showForBodyOperations, qaInputMode: ['json'] } },
		description:
			'An array of objects with a question and an answer, e.g. <code>{{ $json.data }}</code> after an Aggregate node. Other keys of each object are ignored.',
		routing: sendInBody('data'),
	},
];
