'use strict';

/**
 * Reading n8n's executions straight from its PostgreSQL database (in queue mode the workers run
 * them, and the tests follow them without asking main): their status and timing, their run
 * data, and the history the Remove Duplicates node keeps.
 */

const crypto = require('crypto');
const { FINISHED, unflatten } = require('../../../tools/n8n');
const { poll } = require('../../../tools/processes');

/** @typedef {{ id: string, status: string, workflowId: string, startedAt?: number, stoppedAt?: number }} ExecutionRow */

/**
 * @param {import('../../../tools/services').Postgres} postgres
 * @param {string} database
 */
function executionsOf(postgres, database) {
	/** @param {string} sql */
	const query = (sql) => postgres.query(database, sql);

	/**
	 * The executions after `afterId`, of one workflow when given, oldest first.
	 * @param {number | string} afterId
	 * @param {string} [workflowId]
	 * @returns {Promise<ExecutionRow[]>}
	 */
	async function list(afterId, workflowId) {
		const rows = await query(
			`select id, status, "workflowId", floor(extract(epoch from "startedAt") * 1000), floor(extract(epoch from "stoppedAt") * 1000)
			 from execution_entity where id > ${Number(afterId)}${workflowId ? ` and "workflowId" = '${workflowId}'` : ''} order by id`,
		);
		return rows.map(([id, status, wf, startedAt, stoppedAt]) => ({
			id,
			status,
			workflowId: wf,
			startedAt: startedAt ? Number(startedAt) : undefined,
			stoppedAt: stoppedAt ? Number(stoppedAt) : undefined,
		}));
	}

	return {
		/** The highest execution id so far (0 when none). */
		async lastId() {
			const [[id]] = await query('select coalesce(max(id), 0) from execution_entity');
			return Number(id);
		},
		list,
		/**
		 * Waits until `count` executions newer than `afterId` exist (any status); returns them.
		 * @param {number} afterId
		 * @param {number} count
		 */
		waitForNew: (afterId, count, { timeoutMs = 120_000 } = {}) =>
			poll(
				`${count} executions after #${afterId}`,
				async () => {
					const rows = await list(afterId);
					return rows.length >= count ? rows.slice(0, count) : undefined;
				},
				{ timeoutMs },
			),
		/**
		 * Waits until the executions have finished (success, error, crashed or canceled); returns them.
		 * @param {string[]} ids
		 */
		waitForFinished: (ids, { timeoutMs = 600_000 } = {}) =>
			poll(
				`executions ${ids.join(', ')} finished`,
				async () => {
					const rows = (await list(Math.min(...ids.map(Number)) - 1)).filter((row) =>
						ids.includes(row.id),
					);
					return rows.length === ids.length && rows.every((row) => FINISHED.includes(row.status))
						? rows
						: undefined;
				},
				{ timeoutMs, everyMs: 1_000 },
			),
		/**
		 * What n8n saved of an execution's run, shaped like `n8n execute`'s output ({ data: { resultData } }), or undefined.
		 * @param {string} id
		 * @returns {Promise<import('../../../tools/n8n').N8nRun | undefined>}
		 */
		async run(id) {
			const rows = await query(
				`select data from execution_data where "executionId" = ${Number(id)}`,
			);
			return rows.length ? { data: unflatten(rows[0][0]) } : undefined;
		},
		/**
		 * The key hashes Remove Duplicates keeps for a workflow (its "processed_data" rows).
		 * @param {string} workflowId
		 * @returns {Promise<string[]>}
		 */
		async processedKeys(workflowId) {
			const rows = await query(
				`select value from processed_data where "workflowId" = '${workflowId}'`,
			);
			return rows.flatMap(([value]) => JSON.parse(value).data ?? []);
		},
	};
}

/** @typedef {ReturnType<typeof executionsOf>} Executions */

/**
 * How Remove Duplicates stores a key in its history (n8n's DeduplicationHelper.createValueHash).
 * @param {string} value
 */
const processedKeyHash = (value) => crypto.createHash('md5').update(String(value)).digest('base64');

module.exports = { executionsOf, processedKeyHash };
