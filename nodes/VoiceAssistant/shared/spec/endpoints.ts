/** The endpoints of the API as the node reads it (docs/api.md, Endpoints). */

const API_PREFIX = '/api/v1';

export const ENDPOINTS = {
	listAssistants: { method: 'GET', path: `${API_PREFIX}/user/listAssistant` },
	startPlaygroundCall: { method: 'POST', path: `${API_PREFIX}/playground/call` },
	createKnowledgeBase: { method: 'POST', path: `${API_PREFIX}/knowledgeBase/create` },
	updateKnowledgeBase: { method: 'PUT', path: `${API_PREFIX}/knowledgeBase/update` },
	updateSegmentContact: { method: 'PUT', path: `${API_PREFIX}/segment/contact/update` },
} as const;

export type Endpoint = (typeof ENDPOINTS)[keyof typeof ENDPOINTS];
