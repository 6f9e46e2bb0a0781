/**
 * The credential test of the Voice Assistant API credential, as the credential modal runs it:
 * through n8n's own REST API (`POST /rest/credentials/test`) in a real `n8n start`, with the
 * package installed from the packed tarball, against the API simulator. Prepared by
 * globalSetup.js (build, pack, cached n8n installs, one `n8n start` per version).
 */
import {
	API_KEY,
	CREDENTIAL,
	requestedVersions,
	simulatorCredential,
	useSimulatorProcess,
} from './helpers';
import { useN8n } from './session';
import { NODE20_VERSION, NEWEST_VERSION, V1_VERSION } from '../../tools/n8n';
import { freePort } from '../../tools/processes';

const LIST_PATH = '/api/v1/user/listAssistant';

interface TestResult {
	status: 'OK' | 'Error';
	message: string;
}

const sim = useSimulatorProcess();

/**
 * What the modal says per failure. n8n 2.8 and 1.x drop the HTTP error behind the failure (the
 * NodeApiError's `cause` is reset), so the credential's rules never apply and n8n shows its own
 * texts; 2.41 keeps it, applies the rules, and shows the errno of a refused connection.
 */
const GENERIC_MESSAGES = {
	401: 'Authorization failed - please check your credentials',
	403: 'Forbidden - perhaps check your credentials?',
	refused: 'The service refused the connection - perhaps it is offline',
	404: 'The resource you are requesting could not be found',
};
const MESSAGES: Record<string, typeof GENERIC_MESSAGES> = {
	[NODE20_VERSION]: GENERIC_MESSAGES,
	[V1_VERSION]: GENERIC_MESSAGES,
	[NEWEST_VERSION]: {
		401: 'The service refused the API key (HTTP 401): check the API Key',
		403: 'The service refused the API key (HTTP 403): check the API Key',
		refused: 'ECONNREFUSED',
		404: 'The service has no assistant list at this Base URL (HTTP 404): check the Base URL',
	},
};

describe.each(requestedVersions())(
	'n8n %s: Test in the credential modal (POST /rest/credentials/test)',
	(version) => {
		const messages = MESSAGES[version];
		const n8n = useN8n(version);
		let credential: { id: string; name: string; type: string };

		/** What the modal sends: the saved credential's id, name and type, and the form's data. */
		async function testCredential(data: Record<string, string>): Promise<TestResult> {
			const answer = await n8n().api.send('POST', '/rest/credentials/test', {
				credentials: { ...credential, data },
			});
			expect(answer.status).toBe(200);
			return answer.body.data;
		}

		beforeAll(async () => {
			const saved = simulatorCredential(sim().url);
			await n8n().saveCredentials([saved]);
			credential = { id: n8n().credentialRef(CREDENTIAL).id, name: saved.name, type: saved.type };
		});

		beforeEach(async () => {
			await sim().reset();
		});

		test('the stored key, sent back redacted as the modal does: success, one GET of the assistant list', async () => {
			// The modal never holds the saved key: n8n sends a placeholder and swaps the stored key in.
			const data: { data: Record<string, string> } = await n8n().api.call(
				'GET',
				`/rest/credentials/${credential.id}?includeData=true`,
			);
			expect(data.data.baseUrl).toBe(sim().url);
			expect(data.data.apiKey).not.toBe(API_KEY);

			expect(await testCredential(data.data)).toEqual({
				status: 'OK',
				message: 'Connection successful!',
			});
			const requests = await sim().requests();
			expect(requests).toHaveLength(1);
			expect(requests[0]).toMatchObject({
				method: 'GET',
				path: LIST_PATH,
				query: {},
				rawBody: '',
				status: 200,
			});
			expect(requests[0].headers['x-api-key']).toBe(API_KEY);
		});

		test('a valid key typed in the form, with a base URL ending in /api/v1/: success', async () => {
			const result = await testCredential({ apiKey: API_KEY, baseUrl: `${sim().url}/api/v1/` });
			expect(result).toEqual({ status: 'OK', message: 'Connection successful!' });
			expect((await sim().requests()).map((request) => request.path)).toEqual([LIST_PATH]);
		});

		test('a wrong key (the service answers 401)', async () => {
			const result = await testCredential({ apiKey: 'not-the-key', baseUrl: sim().url });
			expect(result).toEqual({ status: 'Error', message: messages[401] });
			// n8n sends a request answered 401 once more (httpRequestWithAuthentication), then gives up.
			const requests = await sim().requests();
			expect(
				requests.map((request) => [request.path, request.status, request.headers['x-api-key']]),
			).toEqual([
				[LIST_PATH, 401, 'not-the-key'],
				[LIST_PATH, 401, 'not-the-key'],
			]);
		});

		test('a key the service forbids (403)', async () => {
			await sim().failNext({
				status: 403,
				method: 'GET',
				path: LIST_PATH,
				body: { message: 'Forbidden' },
			});
			const result = await testCredential({ apiKey: API_KEY, baseUrl: sim().url });
			expect(result).toEqual({ status: 'Error', message: messages[403] });
		});

		test('an unreachable base URL (a closed port)', async () => {
			const closedPort = await freePort();
			const result = await testCredential({
				apiKey: API_KEY,
				baseUrl: `http://127.0.0.1:${closedPort}`,
			});
			expect(result).toEqual({ status: 'Error', message: messages.refused });
			expect(await sim().requests()).toEqual([]);
		});

		test('a base URL that is not the service (404)', async () => {
			const result = await testCredential({ apiKey: API_KEY, baseUrl: `${sim().url}/not-the-api` });
			expect(result).toEqual({ status: 'Error', message: messages[404] });
		});

		test('plain http:// to another machine, or a Base URL with a query string: refused with the rule, nothing sent', async () => {
			const elsewhere = sim().url.replace('//127.0.0.1:', '//127.0.0.2:');
			expect(await testCredential({ apiKey: API_KEY, baseUrl: elsewhere })).toEqual({
				status: 'Error',
				message:
					'"Base URL" in the credential uses plain http:// to another machine, which would send the API key unencrypted: use https://, or tick "Allow Unencrypted HTTP" in the credential',
			});
			expect(await testCredential({ apiKey: API_KEY, baseUrl: `${sim().url}?tenant=a` })).toEqual({
				status: 'Error',
				message:
					'"Base URL" in the credential must not contain a query string (?…): enter only the address, e.g. https://api.example.com',
			});
			expect(await sim().requests()).toEqual([]);
		});

		test('no message ever holds the key', async () => {
			const results = [
				await testCredential({ apiKey: `${API_KEY}-wrong`, baseUrl: sim().url }),
				await testCredential({ apiKey: `${API_KEY}-wrong`, baseUrl: `${sim().url}/not-the-api` }),
			];
			for (const result of results) expect(result.message).not.toContain(API_KEY);
		});
	},
);
