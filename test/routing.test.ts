/**
 * An operation's routing (shared/request/routing.ts), in n8n's engine in process over HTTP: every
 * operation goes out with the method and path the spec gives it (written out here, not read from
 * the node), JSON headers, a body only where the spec has one, and a field routed to the query
 * or the body where its routing says.
 */
import { useSimulator } from './helpers/simulator';
import { runNode } from './helpers/runNode';
import {
	API_KEY,
	knowledgeBaseListParameters,
	playgroundCallParameters,
	segmentContactParameters,
} from './helpers/fixtures';
import { SEEDED_KNOWLEDGE_BASE_IDS } from './simulator';

const sim = useSimulator();

const OPERATIONS = [
	[
		'Assistant → Get Many',
		{ resource: 'assistant', operation: 'getAll' },
		'GET',
		'/api/v1/user/listAssistant',
	],
	['Playground Call → Start', playgroundCallParameters, 'POST', '/api/v1/playground/call'],
	['Knowledge Base → Create', knowledgeBaseListParameters, 'POST', '/api/v1/knowledgeBase/create'],
	[
		'Knowledge Base → Update',
		{
			...knowledgeBaseListParameters,
			operation: 'update',
			knowledgeBaseId: SEEDED_KNOWLEDGE_BASE_IDS.workshopHours,
		},
		'PUT',
		'/api/v1/knowledgeBase/update',
	],
	['Segment Contact → Update', segmentContactParameters, 'PUT', '/api/v1/segment/contact/update'],
] as const;

it.each(OPERATIONS)(
	'%s: %s %s, JSON headers, a body only with one',
	async (_name, parameters, method, path) => {
		const { error } = await runNode({
			parameters,
			credentials: { apiKey: API_KEY, baseUrl: sim().url },
		});
		expect(error).toBeUndefined();
		expect(sim().requests).toHaveLength(1);
		const [request] = sim().requests;
		expect([request.method, request.path]).toEqual([method, path]);
		expect(request.headers.accept).toBe('application/json');
		expect(request.headers['content-type']).toBe(method === 'GET' ? undefined : 'application/json');
		expect(request.rawBody === '').toBe(method === 'GET');
	},
);

it('a field routed to the query goes there, one routed to the body there (Knowledge Base → Update)', async () => {
	const id = SEEDED_KNOWLEDGE_BASE_IDS.workshopHours;
	await runNode({
		parameters: { ...knowledgeBaseListParameters, operation: 'update', knowledgeBaseId: id },
		credentials: { apiKey: API_KEY, baseUrl: sim().url },
	});
	const [request] = sim().requests;
	expect(request.query).toEqual({ id });
	expect(JSON.parse(request.rawBody)).toMatchObject({ title: 'Opening hours' });
	expect(JSON.parse(request.rawBody)).not.toHaveProperty('id');
});
