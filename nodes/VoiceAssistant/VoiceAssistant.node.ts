// The Voice Assistant node as n8n loads it: its description (resources, operations, Dry Run, the
// Options) and the picker's method. No execute(): n8n's declarative engine runs the routing.
import { NodeConnectionTypes, type INodeType, type INodeTypeDescription } from 'n8n-workflow';
import { searchAssistants } from './listSearch/searchAssistants';
import { assistantDescription } from './resources/assistant';
import { knowledgeBaseDescription } from './resources/knowledgeBase';
import { playgroundCallDescription } from './resources/playgroundCall';
import { segmentContactDescription } from './resources/segmentContact';
import { CREDENTIAL_NAME } from './shared/credential';
import { dryRunProperties } from './shared/dryRunOption';
import { requestPolicyOptions } from './shared/requestPolicy';

export class VoiceAssistant implements INodeType {
	description: INodeTypeDescription = {
		displayName: 'Voice Assistant',
		name: 'voiceAssistant',
		icon: {
			light: 'file:../../icons/voiceAssistant.svg',
			dark: 'file:../../icons/voiceAssistant.dark.svg',
		},
		group: ['output'],
		version: 1,
		subtitle:
			'={{ ({ getAll: "Get many", start: "Start", create: "Create", update: "Update" })[$parameter.operation] + " " + ({ assistant: "assistants", playgroundCall: "playground call", knowledgeBase: "knowledge base", segmentContact: "segment contact" })[$parameter.resource] }}',
		description:
			'List AI voice-call assistants, start playground calls, manage knowledge bases and segment contacts',
		defaults: { name: 'Voice Assistant' },
		usableAsTool: true,
		inputs: [NodeConnectionTypes.Main],
		outputs: [NodeConnectionTypes.Main],
		credentials: [{ name: CREDENTIAL_NAME, required: true }],
		// The base URL is set on each item's request in the send step (sendItem), from the
		// credential its run read once.
		requestDefaults: {
			headers: { Accept: 'application/json' },
			json: true,
			// Error statuses reach the attempt (attempt.ts) with their headers (Retry-After) instead of throwing.
			ignoreHttpStatusErrors: true,
			// n8n's client would forward x-api-key to whatever host a redirect names.
			disableFollowRedirect: true,
		},
		properties: [
			{
				displayName: 'Resource',
				name: 'resource',
				type: 'options',
				noDataExpression: true,
				options: [
					{ name: 'Assistant', value: 'assistant' },
					{ name: 'Knowledge Base', value: 'knowledgeBase' },
					{ name: 'Playground Call', value: 'playgroundCall' },
					{ name: 'Segment Contact', value: 'segmentContact' },
				],
				default: 'assistant',
			},
			...assistantDescription,
			...playgroundCallDescription,
			...knowledgeBaseDescription,
			...segmentContactDescription,
			...dryRunProperties,
			requestPolicyOptions,
		],
	};

	methods = {
		listSearch: { searchAssistants },
	};
}
