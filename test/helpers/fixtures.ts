/** Valid node parameters per operation, built from the spec module's constants. */
import type { INodeParameters } from 'n8n-workflow';
import { KNOWLEDGE_BASE_LANGUAGES } from '../../nodes/VoiceAssistant/shared/spec/values';

export const API_KEY = 'test-key-0f3c9a';

/** The paths the simulator records (the API's, written out: not read from the node's endpoints). */
export const CONTACT_UPDATE_PATH = '/api/v1/segment/contact/update';
export const PLAYGROUND_CALL_PATH = '/api/v1/playground/call';

export const playgroundCallParameters: INodeParameters = {
	resource: 'playgroundCall',
	operation: 'start',
	assistant: { __rl: true, mode: 'id', value: '6650b7c1e4a2f9d3b8c10a01' },
	dialerId: 'dialer-7',
	firstName: 'Ada',
	lastName: 'Lovelace',
	email: 'ada@example.com',
	phoneNumbers: '+14155550100, +14155550101',
};

export const knowledgeBaseListParameters: INodeParameters = {
	resource: 'knowledgeBase',
	operation: 'create',
	title: 'Opening hours',
	language: KNOWLEDGE_BASE_LANGUAGES[0],
	qaInputMode: 'list',
	questionsAndAnswers: {
		pairs: [
			{ question: 'When are you open?', answer: '9 to 5, Monday to Friday.' },
			{ question: 'Do you open on holidays?', answer: 'No.' },
		],
	},
};

export const segmentContactParameters: INodeParameters = {
	resource: 'segmentContact',
	operation: 'update',
	contactId: 'contact-42',
	contactFirstName: 'Grace',
	contactLastName: 'Hopper',
	phone: '+14155550123',
	additionalFields: {},
};
