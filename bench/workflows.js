'use strict';

/**
 * The benchmark's workflows: Manual Trigger → Code (N contacts) → the node under test.
 * Every target sends the same PUT /api/v1/segment/contact/update?id=… per item and continues
 * on fail, so failed items are counted instead of stopping the run.
 */

const { CREDENTIAL_TYPE, NODE_TYPE } = require('../tools/package-names');
const { readExample } = require('../tools/repo');
const { codeNode, manualTrigger, workflow } = require('../tools/workflows');

/**
 * @typedef {import('../tools/workflows').Workflow} Workflow
 * @typedef {import('../tools/workflows').NodeSpec} NodeSpec
 * @typedef {Omit<NodeSpec, 'name'>} Target a node under test, before it is named
 * @typedef {'api' | 'crm'} Shape the contacts' field names: the API's, or a CRM export's
 */

const CREDENTIALS = {
	voiceAssistant: { id: 'benchVoiceAssistant', name: 'Voice Assistant (bench)' },
	probe: { id: 'benchProbe', name: 'Bench Probe (bench)' },
	headerAuth: { id: 'benchHeaderAuth', name: 'Header Auth (bench)' },
	/** The id and name the PostgreSQL examples refer to. */
	postgres: { id: 'vaPostgresCrm01', name: 'Postgres (CRM)' },
};

const TARGET = 'Target';

/** The columns of a CRM export, as the "CRM columns" rows read them (Input Columns). */
const CRM_COLUMNS = {
	id: 'Record ID',
	first_name: 'First Name',
	last_name: 'Last Name',
	phone: 'Phone Number',
};

/**
 * A Code node's code that returns `count` contacts.
 * @param {number} count
 * @param {string} prefix of their ids
 * @param {Shape} [shape]
 */
function contactsCode(count, prefix, shape = 'api') {
	const names =
		shape === 'crm'
			? CRM_COLUMNS
			: { id: 'id', first_name: 'first_name', last_name: 'last_name', phone: 'phone' };
	/** @param {keyof typeof names} field */
	const key = (field) => JSON.stringify(names[field]);
	return [
		`const items = [];`,
		`for (let i = 0; i < ${count}; i++) {`,
		`  items.push({ json: { ${key('id')}: '${prefix}-' + i, ${key('first_name')}: 'First' + i, ${key('last_name')}: 'Last' + i, ${key('phone')}: '+1555' + String(i).padStart(7, '0')${shape === 'crm' ? `, 'Contact owner': 'Sam Seller'` : ''} } });`,
		`}`,
		`return items;`,
	].join('\n');
}

/**
 * This package's node with the bench credential.
 * @param {Record<string, unknown>} parameters
 * @returns {Target}
 */
const voiceAssistant = (parameters) => ({
	type: NODE_TYPE,
	typeVersion: 1,
	parameters,
	credentials: { [CREDENTIAL_TYPE]: CREDENTIALS.voiceAssistant },
});

/**
 * The nodes under test, each a function of the API key, the service's address and the node's options.
 * @type {Record<string, (apiKey: string, baseUrl: string, options?: Record<string, unknown>) => Target>}
 */
const targets = {
	/** n8n's HTTP Request node, configured as a user would for the same call, the key typed into a header. */
	httpRequest: (apiKey, baseUrl) => ({
		type: 'n8n-nodes-base.httpRequest',
		typeVersion: 4.2,
		parameters: {
			method: 'PUT',
			url: `${baseUrl}/api/v1/segment/contact/update`,
			sendQuery: true,
			queryParameters: { parameters: [{ name: 'id', value: '={{ $json.id }}' }] },
			sendHeaders: true,
			headerParameters: { parameters: [{ name: 'x-api-key', value: apiKey }] },
			sendBody: true,
			contentType: 'json',
			bodyParameters: {
				parameters: [
					{ name: 'first_name', value: '={{ $json.first_name }}' },
					{ name: 'last_name', value: '={{ $json.last_name }}' },
					{ name: 'phone', value: '={{ $json.phone }}' },
				],
			},
			options: {},
		},
	}),
	/** The same HTTP Request node with the key in a Header Auth credential (x-api-key), as users set it up. */
	httpRequestHeaderAuth: (apiKey, baseUrl) => {
		const node = targets.httpRequest(apiKey, baseUrl);
		const { sendHeaders, headerParameters, ...parameters } = node.parameters;
		return {
			...node,
			parameters: {
				...parameters,
				authentication: 'genericCredentialType',
				genericAuthType: 'httpHeaderAuth',
			},
			credentials: { httpHeaderAuth: CREDENTIALS.headerAuth },
		};
	},
	/** HTTP Request with a Header Auth credential and the body as one JSON expression: 2 expressions per item. */
	httpRequestJsonBody: (apiKey, baseUrl) => {
		const node = targets.httpRequestHeaderAuth(apiKey, baseUrl);
		const { bodyParameters, ...parameters } = node.parameters;
		return {
			...node,
			parameters: {
				...parameters,
				specifyBody: 'json',
				jsonBody:
					'={{ JSON.stringify({ first_name: $json.first_name, last_name: $json.last_name, phone: $json.phone }) }}',
			},
		};
	},
	/** The smallest declarative node: the engine's own floor. */
	probe: () => ({
		type: 'n8n-nodes-bench-probe.benchProbe',
		typeVersion: 1,
		parameters: { contactId: '={{ $json.id }}' },
		credentials: { benchProbeApi: CREDENTIALS.probe },
	}),
	/** This package, Map Automatically (no expression per field). */
	ours: (_apiKey, _baseUrl, options = {}) =>
		voiceAssistant({
			resource: 'segmentContact',
			operation: 'update',
			mappingMode: 'auto',
			options,
		}),
	/** This package starting a playground call per item: a POST, never to be sent twice. */
	oursCalls: (_apiKey, _baseUrl, options = {}) =>
		voiceAssistant({
			resource: 'playgroundCall',
			operation: 'start',
			assistant: { __rl: true, mode: 'id', value: '6650b7c1e4a2f9d3b8c10a01' },
			dialerId: 'bench-dialer',
			firstName: '={{ $json.first_name }}',
			lastName: '={{ $json.last_name }}',
			email: '={{ $json.id }}@example.com',
			phoneNumbers: '={{ $json.phone }}',
			options,
		}),
	/** This package, Map Automatically from a CRM export's own column names, typed once (Input Columns). */
	oursColumns: (_apiKey, _baseUrl, options = {}) =>
		voiceAssistant({
			resource: 'segmentContact',
			operation: 'update',
			mappingMode: 'auto',
			inputColumns: CRM_COLUMNS,
			options,
		}),
	/** This package, each field mapped with an expression, as most users start. */
	oursManual: (_apiKey, _baseUrl, options = {}) =>
		voiceAssistant({
			resource: 'segmentContact',
			operation: 'update',
			mappingMode: 'manual',
			contactId: '={{ $json.id }}',
			contactFirstName: '={{ $json.first_name }}',
			contactLastName: '={{ $json.last_name }}',
			phone: '={{ $json.phone }}',
			options,
		}),
	/** Map Automatically with Dry Run on: every request built and shown, none sent. */
	oursDry: (apiKey, baseUrl, options) => dryRun(targets.ours(apiKey, baseUrl, options)),
	/** Map Each Field Manually with Dry Run on. */
	oursManualDry: (apiKey, baseUrl, options) => dryRun(targets.oursManual(apiKey, baseUrl, options)),
};

/**
 * The same node with Dry Run on.
 * @param {Target} target
 * @returns {Target}
 */
function dryRun(target) {
	return { ...target, parameters: { ...target.parameters, dryRun: true } };
}

/**
 * A whole workflow for `n8n import:workflow`: Manual Trigger → Code (`count` contacts) → the target.
 * @param {{ id: string, target: string, count: number, apiKey: string, baseUrl: string, options?: Record<string, unknown>, shape?: Shape, batching?: { batchSize: number, batchInterval: number }, credential?: { id: string, name: string } }} row
 * @returns {Workflow}
 */
function benchWorkflow({
	id,
	target,
	count,
	apiKey,
	baseUrl,
	options,
	shape,
	batching,
	credential,
}) {
	const node = {
		name: TARGET,
		onError: 'continueRegularOutput',
		...targets[target](apiKey, baseUrl, options),
	};
	// Another credential of the same account (one that sets its Rate Limit).
	if (credential) node.credentials = { [CREDENTIAL_TYPE]: credential };
	// n8n's Batching: the HTTP Request node's Options, a declarative node's Request Options.
	if (batching && target.startsWith('http'))
		node.parameters = {
			...node.parameters,
			options: { ...node.parameters.options, batching: { batch: batching } },
		};
	else if (batching)
		node.parameters = { ...node.parameters, requestOptions: { batching: { batch: batching } } };
	return workflow(id, `bench ${id}`, [
		manualTrigger(),
		codeNode('Contacts', contactsCode(count, id, shape)),
		node,
	]);
}

/** Id of the page workflow of the paged example, as the bench imports it. */
const PAGED_SUB_ID = 'benchPagedPage';

/**
 * An example as `n8n execute` can run it: its schedule becomes a manual trigger (the CLI starts
 * from one), with the bench credential. A workflow that calls itself (the paged example) becomes
 * two: the CLI would start at its Execute Workflow Trigger, so the caller is a copy without it,
 * calling the whole example imported under PAGED_SUB_ID.
 * @param {string} file
 * @param {string} id
 * @returns {Workflow[]}
 */
function exampleForCli(file, id) {
	const example = readExample(file);
	/** @type {Workflow} */
	const workflow = { ...example, id, name: `bench ${id}` };
	workflow.nodes = example.nodes.map((node) => {
		const copy = { ...node };
		if (copy.type === 'n8n-nodes-base.scheduleTrigger')
			Object.assign(copy, { type: 'n8n-nodes-base.manualTrigger', typeVersion: 1, parameters: {} });
		if (copy.credentials?.[CREDENTIAL_TYPE])
			copy.credentials = { ...copy.credentials, [CREDENTIAL_TYPE]: CREDENTIALS.voiceAssistant };
		return copy;
	});
	const entry = workflow.nodes.find(
		(node) => node.type === 'n8n-nodes-base.executeWorkflowTrigger',
	)?.name;
	if (!entry) return [workflow];
	const page = { ...workflow, id: PAGED_SUB_ID, name: `bench ${PAGED_SUB_ID}` };
	const { [entry]: _entryConnections, ...connections } = workflow.connections;
	const caller = {
		...workflow,
		connections,
		nodes: workflow.nodes
			.filter((node) => node.type !== 'n8n-nodes-base.executeWorkflowTrigger')
			.map((node) =>
				node.type === 'n8n-nodes-base.executeWorkflow'
					? {
							...node,
							parameters: {
								...node.parameters,
								workflowId: { __rl: true, mode: 'id', value: PAGED_SUB_ID },
							},
						}
					: node,
			),
	};
	return [caller, page];
}

module.exports = { CREDENTIALS, TARGET, benchWorkflow, exampleForCli, PAGED_SUB_ID };
