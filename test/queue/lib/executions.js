'use strict';

/**
 * Reading n8n's executions straight from its PostgreSQL database (queue mode has no
 * `n8n execute` output to read): their status and timing, their run data, and the history the
 * Remove Duplicates node keeps.
 */

const crypto = require('crypto');
const { sleep } = require('../../../tools/processes');

const FINISHED = ['success', 'error', 'crashed', 'canceled'];

/**
 * n8n stores run data in the `flatted` format: a JSON array whose first entry is the root, in
 * which every string inside an object or array is the index of the entry holding the value.
 */
function unflatten(text) {
	const entries = JSON.parse(text);
	const revived = new Map();
	const revive = (index) => {
		if (revived.has(index)) return revived.get(index);
		const value = entries[index];
		if (typeof value !== 'object' || value === null) return value;
		const copy = Array.isArray(value) ? [] : {};
		revived.set(index, copy);
		for (const [key, entry] of Object.entries(value)) copy[key] = typeof entry === 'string' ? revive(Number(entry)) : entry;
		return copy;
	};
	return revive(0);
}

/** @param {{ query: (db: string, sql: string) => Promise<string[][]> }} postgres */
function executionsOf(postgres, database) {
	const query = (sql) => postgres.query(database, sql);

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
		/** Waits until `count` executions newer than `afterId` exist (any status); returns them. */
		async waitForNew(afterId, count, { timeoutMs = 120_000 } = {}) {
			const deadline = Date.now() + timeoutMs;
			for (;;) {
				const rows = await list(afterId);
				if (rows.length >= count) return rows.slice(0, count);
				if (Date.now() > deadline) throw new Error(`${rows.length} of ${count} executions after #${afterId} appeared within ${timeoutMs / 1000} s`);
				await sleep(250);
			}
		},
		/** Waits until the executions have finished (success, error, crashed or canceled); returns them. */
		async waitForFinished(ids, { timeoutMs = 600_000 } = {}) {
			const deadline = Date.now() + timeoutMs;
			for (;;) {
				const rows = (await list(Math.min(...ids.map(Number)) - 1)).filter((row) => ids.includes(row.id));
				if (rows.length === ids.length && rows.every((row) => FINISHED.includes(row.status))) return rows;
				if (Date.now() > deadline) {
					throw new Error(`executions not finished within ${timeoutMs / 1000} s: ${JSON.stringify(rows.map(({ id, status }) => ({ id, status })))}`);
				}
				await sleep(1_000);
			}
		},
		/** What n8n saved of an execution's run, shaped like `n8n execute`'s output ({ data: { resultData } }), or undefined. */
		async run(id) {
			const rows = await query(`select data from execution_data where "executionId" = ${Number(id)}`);
			return rows.length ? { data: unflatten(rows[0][0]) } : undefined;
		},
		/** The key hashes Remove Duplicates keeps for a workflow (its "processed_data" rows). */
		async processedKeys(workflowId) {
			const rows = await query(`select value from processed_data where "workflowId" = '${workflowId}'`);
			return rows.flatMap(([value]) => JSON.parse(value).data ?? []);
		},
	};
}

/** How Remove Duplicates stores a key in its history (n8n's DeduplicationHelper.createValueHash). */
const processedKeyHash = (value) => crypto.createHash('md5').update(String(value)).digest('base64');

module.exports = { FINISHED, executionsOf, processedKeyHash, unflatten };
