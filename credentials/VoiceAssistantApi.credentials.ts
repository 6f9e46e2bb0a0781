// The Voice Assistant API credential: its fields (API Key, Base URL, Allow Unencrypted HTTP, Rate
// Limit), the key added to every request made with it, and its Test.
import type { Icon, ICredentialTestRequest, ICredentialType, INodeProperties } from 'n8n-workflow';
import {
	API_BASE_URL_EXPRESSION,
	CREDENTIAL_NAME,
	authenticateWithApiKey,
} from '../nodes/VoiceAssistant/shared/credential';
import { ENDPOINTS } from '../nodes/VoiceAssistant/shared/spec/endpoints';

export class VoiceAssistantApi implements ICredentialType {
	name = CREDENTIAL_NAME;

	displayName = 'Voice Assistant API';

	icon: Icon = {
		light: 'file:../icons/voiceAssistant.svg',
		dark: 'file:../icons/voiceAssistant.dark.svg',
	};

	documentationUrl = 'https://www.npmjs.com/package/n8n-nodes-voice-assistant#credentials';

	properties: INodeProperties[] = [
		{
			displayName: 'API Key',
			name: 'apiKey',
			type: 'string',
			typeOptions: { password: true },
			required: true,
			default: '',
			description: 'The API key of your voice assistant account, sent in the x-api-key header',
		},
		{
			displayName: 'Base URL',
			name: 'baseUrl',
			type: 'string',
			required: true,
			default: '',
			placeholder: 'https://api.example.com',
			description:
				'Address of the voice assistant service. A trailing slash or a trailing /api/v1 is fine.',
			hint: 'Use https://. Plain http:// to another machine would send the API key unencrypted, so it is refused unless "Allow Unencrypted HTTP" is on.',
		},
		{
			displayName: 'Allow Unencrypted HTTP',
			name: 'allowUnencryptedHttp',
			type: 'boolean',
			default: false,
			description:
				'Whether to allow a plain http:// Base URL on another machine. The API key then crosses the network unencrypted: use it only on a network you trust.',
		},
		{
			displayName: 'Rate Limit',
			name: 'rateLimit',
			type: 'number',
			typeOptions: { minValue: 0 },
			default: 0,
			description:
				"The account's limit on requests, per second or per minute (below): at most that many of its requests arrive at the service in any second (or minute), from every node, run, AI Agent tool call and execution using this account in this n8n process (or worker) together, also executions that follow each other. Fractions work (0.5 a second: one every 2 s). Queue mode: the full limit on every worker, which share it through the service's rate-limit headers or its 429 answers. 0: none (the node reads the limit from the service's rate-limit headers, or with Adapt Concurrency on learns it from its 429 answers).",
		},
		{
			displayName: 'Rate Limit Per',
			name: 'rateLimitUnit',
			type: 'options',
			options: [
				{ name: 'Second', value: 'second' },
				{ name: 'Minute', value: 'minute' },
			],
			default: 'second',
			description: 'Whether Rate Limit counts requests per second or per minute',
		},
	];

	/** Adds the key to every request made with the credential, or refuses one that would expose it. */
	authenticate = authenticateWithApiKey;

	test: ICredentialTestRequest = {
		request: {
			baseURL: API_BASE_URL_EXPRESSION,
			url: ENDPOINTS.listAssistants.path,
			method: ENDPOINTS.listAssistants.method,
			disableFollowRedirect: true,
		},
		// Shown by n8n versions that keep the HTTP error behind the test's failure (2.41 does;
		// 2.8 and 1.x show their own generic texts instead).
		rules: [
			{
				type: 'responseCode',
				properties: {
					value: 401,
					message: 'The service refused the API key (HTTP 401): check the API Key',
				},
			},
			{
				type: 'responseCode',
				properties: {
					value: 403,
					message: 'The service refused the API key (HTTP 403): check the API Key',
				},
			},
			{
				type: 'responseCode',
				properties: {
					value: 404,
					message:
						'The service has no assistant list at this Base URL (HTTP 404): check the Base URL',
				},
			},
		],
	};
}
