'use strict';

/**
 * Workflow JSON as n8n's REST API and `n8n import:workflow` take it, built in a few lines: a
 * chain of nodes from a Manual Trigger, Code nodes standing in for any source of data, and this
 * package's node with the simulator's credential. Used by the e2e and queue suites and the
 * benchmark.
 */

const { CREDENTIAL_TYPE, NODE_TYPE } = require('./package-names');

/**
 * @typedef {{ id: string, name: string }} CredentialRef
 * @typedef {{
 *   id: string,
 *   name: string,
 *   type: string,
 *   typeVersion: number,
 *   position: [number, number],
 *   parameters: Record<string, any>,
 *   credentials?: Record<string, CredentialRef>,
 *   onError?: string,
 *   retryOnFail?: boolean,
 *   maxTries?: number,
 *   waitBetweenTries?: number,
 *   executeOnce?: boolean,
 *   webhookId?: string,
 *   notes?: string,
 *   notesInFlow?: boolean,
 * }} WorkflowNode
 *   `retryOnFail`, `maxTries`, `waitBetweenTries` (ms): n8n's node settings Retry On Fail, Max
 *   Tries, Wait Between Tries; `executeOnce`: Execute Once (the first input item only).
 * @typedef {Record<string, Record<string, Array<Array<{ node: string, type: string, index: number }>>>>} Connections
 * @typedef {{
 *   id: string,
 *   name: string,
 *   active?: boolean,
 *   nodes: WorkflowNode[],
 *   connections: Connections,
 *   settings?: Record<string, unknown>,
 *   pinData?: Record<string, unknown>,
 * }} Workflow
 * @typedef {Omit<WorkflowNode, 'id' | 'position' | 'typeVersion'> & { typeVersion?: number }} NodeSpec
 *   A node before it has its place in a workflow.
 */

/** The Voice Assistant credential the examples, the tests and the demo point at the simulator. */
const SIMULATOR_CREDENTIAL = { id: 'vaSimulatorCred1', name: 'Voice Assistant (simulator)' };

/** @returns {NodeSpec} */
const manualTrigger = (name = 'Start') => ({
	name,
	type: 'n8n-nodes-base.manualTrigger',
	parameters: {},
});

/**
 * A Code node returning `jsCode`'s items: a stand-in for any source of data.
 * @param {string} name
 * @param {string} jsCode
 * @returns {NodeSpec}
 */
const codeNode = (name, jsCode) => ({
	name,
	type: 'n8n-nodes-base.code',
	typeVersion: 2,
	parameters: { jsCode },
});

/**
 * A Code node returning fixed items.
 * @param {string} name
 * @param {object[]} items
 */
const itemsNode = (name, items) =>
	codeNode(name, `return ${JSON.stringify(items)}.map((json) => ({ json }));`);

/**
 * This package's node, with the simulator's credential.
 * @param {string} name
 * @param {Record<string, unknown>} parameters
 * @param {Partial<WorkflowNode>} [extra] node settings, or another credential
 * @returns {NodeSpec}
 */
const voiceAssistant = (name, parameters, extra = {}) => ({
	name,
	type: NODE_TYPE,
	parameters,
	credentials: { [CREDENTIAL_TYPE]: SIMULATOR_CREDENTIAL },
	...extra,
});

/**
 * The main connections from one node to others (each gets the node's items).
 * @param {string[]} names
 */
const mainTo = (names) => ({ main: [names.map((node) => ({ node, type: 'main', index: 0 }))] });

/**
 * A workflow whose nodes run one after the other; `branches` connects the first node to several
 * nodes instead.
 * @param {string} id
 * @param {string} name
 * @param {NodeSpec[]} nodes
 * @param {string[]} [branches]
 * @returns {Workflow}
 */
function workflow(id, name, nodes, branches) {
	/** @type {Connections} */
	const connections = {};
	if (branches) connections[nodes[0].name] = mainTo(branches);
	else
		nodes.slice(0, -1).forEach((node, i) => (connections[node.name] = mainTo([nodes[i + 1].name])));
	return {
		id,
		name,
		active: false,
		settings: { executionOrder: 'v1' },
		connections,
		nodes: nodes.map((node, i) => ({
			typeVersion: 1,
			...node,
			id: `00000000-0000-4000-8000-${String(i + 1).padStart(12, '0')}`,
			position: /** @type {[number, number]} */ ([i * 220, 0]),
		})),
	};
}

module.exports = {
	SIMULATOR_CREDENTIAL,
	codeNode,
	itemsNode,
	mainTo,
	manualTrigger,
	voiceAssistant,
	workflow,
};
