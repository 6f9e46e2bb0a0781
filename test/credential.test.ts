/**
 * The credential's own guard: n8n authenticates every request made with it (the node, the
 * Assistant picker, the credential's Test button, an HTTP Request node using it), so the key is
 * never added to a plain-http request to another machine unless the credential allows it.
 */
import type { IHttpRequestOptions, INodeProperties } from 'n8n-workflow';
import { VoiceAssistantApi } from '../credentials/VoiceAssistantApi.credentials';
import { VoiceAssistant } from '../nodes/VoiceAssistant/VoiceAssistant.node';
import { CREDENTIAL_TYPE } from '../tools/package-names';

const credential = new VoiceAssistantApi();
const authenticate = credential.authenticate as unknown as (
	credentials: Record<string, unknown>,
	options: IHttpRequestOptions,
) => Promise<IHttpRequestOptions>;

const request = (baseURL: string): IHttpRequestOptions => ({
	baseURL,
	url: '/api/v1/user/listAssistant',
	headers: { Accept: 'application/json' },
});
const PLAIN_HTTP =
	'"Base URL" in the credential uses plain http:// to another machine, which would send the API key unencrypted: use https://, or tick "Allow Unencrypted HTTP" in the credential';

describe('the credential', () => {
	it('is the type the tests, the harness and the node name (tools/package-names.js)', () => {
		expect(credential.name).toBe(CREDENTIAL_TYPE);
		expect(new VoiceAssistant().description.credentials).toEqual([
			{ name: CREDENTIAL_TYPE, required: true },
		]);
	});

	it('offers "Allow Unencrypted HTTP", off by default, and warns about plain http:// in the Base URL hint', () => {
		const byName = Object.fromEntries(
			credential.properties.map((property) => [property.name, property]),
		) as Record<string, INodeProperties>;
		expect(byName.allowUnencryptedHttp).toMatchObject({
			displayName: 'Allow Unencrypted HTTP',
			type: 'boolean',
			default: false,
		});
		expect(byName.baseUrl.hint).toMatch(/http:\/\/.*unencrypted/i);
	});

	it('adds the key, trimmed, to a request it allows', async () => {
		const options = await authenticate.call(
			credential,
			{ apiKey: ' k-1 \n', baseUrl: 'https://api.example.com' },
			request('https://api.example.com'),
		);
		expect(options.headers).toEqual({ Accept: 'application/json', 'x-api-key': 'k-1' });
	});

	it.each([
		[
			'plain http:// to another machine',
			{ baseUrl: 'http://api.example.com' },
			'http://api.example.com',
			PLAIN_HTTP,
		],
		[
			'a request sent elsewhere over plain http://',
			{ baseUrl: 'https://api.example.com' },
			'http://10.0.0.8:8080',
			PLAIN_HTTP,
		],
		[
			'a query string',
			{ baseUrl: 'https://api.example.com?tenant=a' },
			'https://api.example.com?tenant=a',
			'"Base URL" in the credential must not contain a query string (?…): enter only the address, e.g. https://api.example.com',
		],
		[
			'a fragment',
			{ baseUrl: 'https://api.example.com/#x' },
			'https://api.example.com/#x',
			'"Base URL" in the credential must not contain a fragment (#…): enter only the address, e.g. https://api.example.com',
		],
	])('refuses %s without adding the key', async (_name, data, baseURL, message) => {
		await expect(
			authenticate.call(credential, { apiKey: 'k-1', ...data }, request(baseURL)),
		).rejects.toThrow(message);
	});

	it.each(['http://localhost:5680', 'http://127.0.0.1:5680', 'http://[::1]:5680'])(
		'allows plain http:// to this machine (%s)',
		async (baseUrl) => {
			const options = await authenticate.call(
				credential,
				{ apiKey: 'k-1', baseUrl },
				request(baseUrl),
			);
			expect(options.headers?.['x-api-key']).toBe('k-1');
		},
	);

	it('allows plain http:// to another machine when "Allow Unencrypted HTTP" is ticked', async () => {
		const data = { apiKey: 'k-1', baseUrl: 'http://api.example.com', allowUnencryptedHttp: true };
		const options = await authenticate.call(credential, data, request('http://api.example.com'));
		expect(options.headers?.['x-api-key']).toBe('k-1');
	});
});
