'use strict';

/**
 * The n8n Data Tables the example workflows write to, made so that each example runs with one
 * click and no database: the demo prepares the examples it imported (the Data Table recipe,
 * examples/datatable-contacts-sync.json, is its *Start here*; the Dry Run recipe,
 * examples/crm-check-dry-run.json, keeps its problems in one), and `npm run example` the
 * workflow it runs. The examples ship with no table picked (a table's id is n8n's own), naming
 * the table they expect; each such table is created once, by that name, with the columns its
 * recipe reads and writes (and sample rows where the recipe reads them), and picked in the
 * nodes that have none. A table or a node the user changed is left as it is.
 */

const DATA_TABLE_NODE = 'n8n-nodes-base.dataTable';

/**
 * @typedef {{ name: string, type: 'string' | 'number' | 'boolean' | 'date' }} Column
 * @typedef {{ columns: Column[], rows: Array<Record<string, unknown>> }} TableSpec
 * @typedef {{ id: string, name: string }} DataTable
 * @typedef {import('../tools/workflows').Workflow} Workflow
 * @typedef {import('../tools/workflows').WorkflowNode} WorkflowNode
 */

/** @param {string[]} names @returns {Column[]} */
const textColumns = (names) => names.map((name) => ({ name, type: 'string' }));

const CONTACTS = [
	['Ada', 'Lovelace', 'customer'],
	['Grace', 'Hopper', 'lead'],
	['Alan', 'Turing', 'opportunity'],
	['Katherine', 'Johnson', 'lead'],
	['Dorothy', 'Vaughan', 'customer'],
	['Mary', 'Jackson', 'lead'],
].map(([first, last, stage], i) => ({
	contact_id: `demo-${i + 1}`,
	first_name: first,
	last_name: last,
	phone: `+1415555${String(100 + i)}`,
	email: `${first.toLowerCase()}@example.com`,
	lifecycle_stage: stage,
	sync_error: '',
	synced: false,
}));

/**
 * The tables the examples name (their nodes' "From list" choice), by name.
 * @type {Record<string, TableSpec>}
 */
const TABLES = {
	// datatable-contacts-sync.json: reads the contacts not yet synced, marks them or keeps their error.
	contacts: {
		columns: [
			...textColumns([
				'contact_id',
				'first_name',
				'last_name',
				'phone',
				'email',
				'lifecycle_stage',
				'sync_error',
			]),
			{ name: 'synced', type: 'boolean' },
		],
		rows: CONTACTS,
	},
	// crm-check-dry-run.json: one row per invalid contact, written by "Save the problems".
	crm_check_problems: { columns: textColumns(['contact_id', 'problems']), rows: [] },
};

/**
 * The workflow's Data Table nodes with no table picked.
 * @param {Workflow} workflow
 */
const unpickedNodes = (workflow) =>
	workflow.nodes.filter(
		(node) => node.type === DATA_TABLE_NODE && !node.parameters.dataTableId?.value,
	);

/**
 * The name of the table a Data Table node expects (the one it shows before a table is picked).
 * @param {WorkflowNode} node
 * @returns {string}
 */
const tableNameOf = (node) => node.parameters.dataTableId?.cachedResultName ?? '';

/**
 * The project's table of that name, created (with its sample rows) if it has none.
 * @param {import('../tools/n8n').EditorApi} api
 * @param {string} projectId
 * @param {string} name
 * @param {(line: string) => void} log
 * @returns {Promise<DataTable>}
 */
async function ensureTable(api, projectId, name, log) {
	const tablesPath = `/rest/projects/${projectId}/data-tables`;
	const listed = await api.send('GET', tablesPath);
	if (listed.status === 404) throw new Error('this n8n has no Data Tables (n8n 1.123 and later)');
	/** @type {DataTable[]} */
	const tables = listed.body.data?.data ?? [];
	const found = tables.find((candidate) => candidate.name === name);
	if (found) return found;
	const spec = TABLES[name];
	if (!spec) throw new Error(`no Data Table "${name}" to create: pick a table in the workflow`);
	/** @type {DataTable} */
	const table = await api.call('POST', tablesPath, { name, columns: spec.columns });
	if (spec.rows.length)
		await api.call('POST', `${tablesPath}/${table.id}/insert`, {
			data: spec.rows,
			returnType: 'count',
		});
	log(
		`Created the Data Table "${name}" (${spec.columns.map((column) => column.name).join(', ')})${spec.rows.length ? ` with ${spec.rows.length} sample rows` : ''}`,
	);
	return table;
}

/**
 * Makes a saved workflow's Data Table nodes ready to run: each node with no table picked gets
 * the table it names, created if the project has none of that name. Returns the tables the
 * workflow's unpicked nodes now point at (none when every node had its table).
 * @param {import('../tools/n8n').EditorApi} api
 * @param {string} workflowId
 * @param {(line: string) => void} log
 * @returns {Promise<DataTable[]>}
 */
async function prepareDataTables(api, workflowId, log) {
	/** @type {Workflow & { versionId: string }} */
	const workflow = await api.call('GET', `/rest/workflows/${workflowId}`);
	const unpicked = unpickedNodes(workflow);
	if (!unpicked.length) return [];
	const projectId = (await api.call('GET', '/rest/projects/personal')).id;
	/** @type {Map<string, DataTable>} */
	const tables = new Map();
	for (const node of unpicked) {
		const name = tableNameOf(node);
		if (!tables.has(name)) tables.set(name, await ensureTable(api, projectId, name, log));
		const table = /** @type {DataTable} */ (tables.get(name));
		node.parameters.dataTableId = {
			__rl: true,
			mode: 'id',
			value: table.id,
			cachedResultName: table.name,
		};
	}
	await api.call('PATCH', `/rest/workflows/${workflowId}`, {
		nodes: workflow.nodes,
		versionId: workflow.versionId,
	});
	log(`Picked ${[...tables.keys()].map((name) => `"${name}"`).join(', ')} in "${workflow.name}"`);
	return [...tables.values()];
}

/**
 * A table's rows (up to 1,000), in the order they were inserted.
 * @param {import('../tools/n8n').EditorApi} api
 * @param {DataTable} table
 * @returns {Promise<Array<Record<string, unknown>>>}
 */
async function tableRows(api, table) {
	const projectId = (await api.call('GET', '/rest/projects/personal')).id;
	const answer = await api.call(
		'GET',
		`/rest/projects/${projectId}/data-tables/${table.id}/rows?take=1000`,
	);
	/** @type {Array<Record<string, unknown>>} */
	const rows = answer.data;
	return rows.sort((a, b) => Number(a.id) - Number(b.id));
}

module.exports = { TABLES, prepareDataTables, tableNameOf, tableRows, unpickedNodes };
