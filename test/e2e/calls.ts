/**
 * Call starts as the flow-control and adapter e2e files run them: people as input items, the
 * Playground Call → Start node mapping them, and the call starts the simulator received.
 */
import type { RecordedRequest } from '../simulator';
import { MAYA, itemsNode, voiceAssistant, type WorkflowNode } from './helpers';

export const CALL_PATH = '/api/v1/playground/call';

/** Call items: person `${prefix}${i}` with their own email and phone number; `i` is the item's index. */
export const people = (prefix: string, count: number) =>
	itemsNode(
		'People',
		Array.from({ length: count }, (_, i) => ({
			i,
			first: 'Ada',
			last: `Lovelace ${prefix}${i}`,
			email: `${prefix}${i}@example.com`,
			phone: `+1415${String(5_000_000 + i)}`,
		})),
	);

export const callStart = (extra: Partial<WorkflowNode> = {}, phoneNumbers = '={{ $json.phone }}') =>
	voiceAssistant(
		'Call',
		{
			resource: 'playgroundCall',
			operation: 'start',
			assistant: { __rl: true, mode: 'id', value: MAYA },
			dialerId: 'dialer-main',
			firstName: '={{ $json.first }}',
			lastName: '={{ $json.last }}',
			email: '={{ $json.email }}',
			phoneNumbers,
			options: {},
		},
		extra,
	);

export const callStarts = (requests: RecordedRequest[]) =>
	requests.filter((r) => r.method === 'POST' && r.path === CALL_PATH);
export const emailOf = (request: { body: unknown }) =>
	(request.body as { email?: string } | undefined)?.email ?? '?';
