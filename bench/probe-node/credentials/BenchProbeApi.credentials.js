// Same shape as the Voice Assistant credential, so both nodes pay the same authentication cost.
class BenchProbeApi {
	constructor() {
		this.name = 'benchProbeApi';
		this.displayName = 'Bench Probe API';
		this.properties = [
			{
				displayName: 'API Key',
				name: 'apiKey',
				type: 'string',
				typeOptions: { password: true },
				default: '',
			},
			{ displayName: 'Base URL', name: 'baseUrl', type: 'string', default: '' },
		];
		this.authenticate = {
			type: 'generic',
			properties: { headers: { 'x-api-key': '={{$credentials.apiKey}}' } },
		};
	}
}
module.exports = { BenchProbeApi };
