'use strict';

/**
 * The demo's starting point: an n8n Data Table "contacts" with sample rows, and the Data Table
 * recipe (examples/datatable-contacts-sync.json) pointed at it, so the recipe runs with one click
 * and no database. Created once; a table or a recipe the user changed is left as it is.
 */

const TABLE = 'contacts';
const RECIPE_ID = 'vaExDataTblSync1';
const COLUMNS = [
	...[
		'contact_id',
		'first_name',
		'last_name',
		'phone',
		'email',
		'lifecycle_stage',
		'sync_error',
	].map((name) => ({ name, type: 'string' })),
	{ name: 'synced', type: 'boolean' },
];
const SAMPLE = [
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
 * Returns the recipe's id when it is ready to run, undefined when this n8n has no Data Tables.
 * @param {import('../tools/n8n').EditorApi} api
 * @param {(line: string) => void} log
 */
async function prepareDataTableRecipe(api, log) {
	const projectId = (await api.call('GET', '/rest/projects/personal')).id;
	const listed = await api.send('GET', `/rest/projects/${projectId}/data-tables`);
	if (listed.status === 404) return undefined; // an n8n without Data Tables
	/** @type {Array<{ id: string, name: string }>} */
	const tables = listed.body.data?.data ?? [];
	let table = tables.find((candidate) => candidate.name === TABLE);
	if (!table) {
		table = /** @type {{ id: string, name: string }} */ (
			await api.call('POST', `/rest/projects/${projectId}/data-tables`, {
				name: TABLE,
				columns: COLUMNS,
			})
		);
		await api.call('POST', `/rest/projects/${projectId}/data-tables/${table.id}/insert`, {
			data: SAMPLE,
			returnType: 'count',
		});
		log(`Created the Data Table "${TABLE}" with ${SAMPLE.length} sample contacts`);
	}
	/** @type {import('../tools/workflows').Workflow & { versionId: string }} */
	const recipe = await api.call('GET', `/rest/workflows/${RECIPE_ID}`);
	const unset = recipe.nodes.filter(
		(node) => node.type === 'n8n-nodes-base.dataTable' && !node.parameters.dataTableId?.value,
	);
	if (unset.length) {
		for (const node of unset)
			node.parameters.dataTableId = {
				__rl: true,
				mode: 'id',
				value: table.id,
				cachedResultName: TABLE,
			};
		await api.call('PATCH', `/rest/workflows/${RECIPE_ID}`, {
			nodes: recipe.nodes,
			versionId: recipe.versionId,
		});
		log(`Pointed "${recipe.name}" at it`);
	}
	return RECIPE_ID;
}

module.exports = { prepareDataTableRecipe };
