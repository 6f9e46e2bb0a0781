export const CREDENTIAL_NAME = 'voiceAssistantApi';

/**
 * The API root: the Base URL the user entered, tolerating a trailing slash and a URL that
 * already ends in the /api/v1 prefix every endpoint path carries. An n8n expression, so the
 * credential test and the node resolve it the same way.
 */
export const API_BASE_URL_EXPRESSION =
	'={{ String($credentials.baseUrl ?? "").trim().replace(/\\/+$/, "").replace(/\\/api\\/v1$/i, "") }}';
