// The engine's floor: one field mapped to the query, a constant body, nothing else.
class BenchProbe {
	constructor() {
		this.description = {
			displayName: 'Bench Probe',
			name: 'benchProbe',
			group: ['output'],
			version: 1,
			description: 'One-field declarative node for benchmarks',
			defaults: { name: 'Bench Probe' },
			inputs: ['main'],
			outputs: ['main'],
			credentials: [{ name: 'benchProbeApi', required: true }],
			requestDefaults: {
				baseURL: '={{$credentials.baseUrl}}',
				headers: { 'Content-Type': 'application/json' },
			},
			properties: [
				{
					displayName: 'Contact ID',
					name: 'contactId',
					type: 'string',
					default: '',
					routing: {
						request: {
							method: 'PUT',
							url: '/api/v1/segment/contact/update',
							body: { first_name: 'Bench', last_name: 'Probe', phone: '+10000000000' },
						},
						send: { type: 'query', property: 'id' },
					},
				},
			],
		};
	}
}
module.exports = { BenchProbe };
