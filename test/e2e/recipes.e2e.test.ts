/**
 * The CRM recipes of the README, as the workflows in examples/, in the version's `n8n start`,
 * each run as the editor's "Execute workflow" runs it (from its trigger, pinned data used), with
 * real parts:
 * - PostgreSQL (Debian's server, started here on 127.0.0.1 with throwaway data, as the queue
 *   suite does: tools/services.js): changed rows → Segment Contact → Update → successes marked
 *   synced, failures kept in `sync_errors`;
 * - n8n's own Data Table: the same recipe without a database server;
 * - a CRM export file (CSV) read from disk, mapped with Edit Fields;
 * - HubSpot, Salesforce and Pipedrive contact lists, as their n8n nodes output them, mapped
 *   with Edit Fields.
 * Every request is checked against the spec as the simulator reads it. And the Dry Run recipe
 * through `npm run example` (scripts/run-example.js) as a newcomer runs it: its own n8n,
 * simulator and Data Table (made and picked as the demo does, demo/dataTable.js).
 */
import fs from 'fs';
import path from 'path';
import {
	CONTACT_PATH,
	pairedIndex,
	readExample,
	requestedVersions,
	simulatorCredential,
	specProblems,
	useSimulatorProcess,
	type Workflow,
	type WorkflowNode,
} from './helpers';
import type { RecordedRequest } from '../simulator';
import { useN8n } from './session';
import { CHROMIUM, workflowPictures } from './browser/workflow-pictures';
import { NODE20_VERSION } from '../../tools/n8n';
import { cleanEnv, poll, runProcess } from '../../tools/processes';
import { REPO_ROOT } from '../../tools/repo';
import { postgresMissing, startPostgres, type Postgres } from '../../tools/services';

const sim = useSimulatorProcess();
const contactUpdates = (list: RecordedRequest[]) =>
	list.filter((request) => request.method === 'PUT' && request.path === CONTACT_PATH);
/** A copy of `object` without the given keys. */
const without = <T extends object>(object: T, ...keys: string[]) =>
	Object.fromEntries(Object.entries(object).filter(([key]) => !keys.includes(key)));
const sentById = (list: RecordedRequest[]) =>
	Object.fromEntries(
		contactUpdates(list).map((request) => [request.query.id, JSON.parse(request.rawBody)]),
	);

// ---------------------------------------------------------------------------------------------
// PostgreSQL
// ---------------------------------------------------------------------------------------------

const PG_EXAMPLE = 'postgres-contacts-sync.json';
const PAGED_EXAMPLE = 'postgres-contacts-sync-paged.json';
const PAGED_TRIGGER = 'Every night at 2';
const PG_TRIGGER = 'Every 15 minutes';
const PG_CREDENTIAL = { id: 'vaPostgresCrm01', name: 'Postgres (CRM)' };
const pgMissing = postgresMissing();
const pgSkipped = pgMissing ? ` (SKIPPED: ${pgMissing})` : '';
if (pgMissing) process.stdout.write(`[e2e] PostgreSQL recipe${pgSkipped}\n`);

/** The tables, as the example's sticky note gives them to the user. */
function exampleSchema(example: Workflow): string {
	const note = example.nodes.find((node) => node.type === 'n8n-nodes-base.stickyNote')?.parameters
		.content as string;
	const sql = /```sql\n([\s\S]*?)```/.exec(note ?? '')?.[1];
	if (!sql) throw new Error(`${PG_EXAMPLE} has no SQL block in its note`);
	return sql;
}

/** Contact i's name, and a phone number from the block starting at `phones`. */
const person = (i: number, phones: number) => ({
	first_name: `First${i}`,
	last_name: `Last${i}`,
	phone: `+1415555${String(phones + i)}`,
});

const CONTACT_COUNT = 20;
const pgContact = (i: number) => ({
	id: `pg-${String(i).padStart(3, '0')}`,
	...person(i, 1000),
	email: i % 4 === 0 ? null : `contact-${i}@example.com`,
	lifecycle_stage: i % 2 ? 'lead' : 'customer',
});
/** Starts `run` and waits until the simulator has received an update for the contact (answered or not); returns the run. */
async function whileSending<T>(
	contactId: string,
	run: () => Promise<T>,
): Promise<{ running: Promise<T> }> {
	const before = (await sim().requests()).length;
	const running = run();
	running.catch(() => undefined);
	await poll(
		`an update of ${contactId}`,
		async () =>
			(await sim().requests()).slice(before).some((request) => request.query.id === contactId),
		{
			timeoutMs: 120_000,
			everyMs: 100,
		},
	);
	return { running };
}
const sqlText = (value: string | null) =>
	value === null ? 'NULL' : `'${value.replace(/'/g, "''")}'`;

let postgres: Postgres | undefined;
if (!pgMissing) {
	beforeAll(async () => {
		postgres = await startPostgres({ logDir: process.env.VA_E2E_WORKDIR as string });
	});
	afterAll(async () => {
		await postgres?.stop();
	});
}

const describeWithPostgres = pgMissing ? describe.skip : describe;

// ---------------------------------------------------------------------------------------------
// n8n Data Table, CRM export file, CRM node shapes (the Data Table node needs `n8n start`: the
// CLI's `n8n execute` does not load n8n's modules; pinned data is used only in manual runs)
// ---------------------------------------------------------------------------------------------

const DT_EXAMPLE = 'datatable-contacts-sync.json';
const DT_TRIGGER = 'Every 15 minutes';
const DT_COUNT = 12;
const dtContact = (i: number) => ({
	contact_id: `dt-${String(i).padStart(2, '0')}`,
	...person(i, 2000),
	email: `dt-${i}@example.com`,
	lifecycle_stage: 'lead',
	sync_error: '',
	synced: false,
});

const CSV_EXAMPLE = 'crm-export-csv.json';
const CSV_TRIGGER = "When clicking 'Execute workflow'";
const CSV_ROWS = 150;
const CSV_HEADERS = [
	'Record ID',
	'First Name',
	'Last Name',
	'Phone Number',
	'Email',
	'Lifecycle Stage',
	'Create Date',
	'Contact owner',
];
const csvRow = (i: number): Record<string, string> => ({
	'Record ID': String(5000 + i),
	'First Name': i === 3 ? 'Zoë' : `First${i}`,
	'Last Name': i === 4 ? 'O"Neil, Jr.' : `Last${i}`,
	'Phone Number': `+1415557${String(i).padStart(4, '0')}`,
	Email: i % 5 === 0 ? '' : `csv-${i}@example.com`,
	'Lifecycle Stage': ['lead', 'customer', 'opportunity'][i % 3],
	'Create Date': '2026-01-05 09:00',
	'Contact owner': 'Sam Seller',
});

const CRM_EXAMPLE = 'crm-nodes-contacts.json';
/** The recipes of the README, by example file, with their names (pictures are taken of these). */
const EXAMPLE_FILES: Record<string, string> = Object.fromEntries(
	[
		'scheduled-contact-update.json',
		PG_EXAMPLE,
		PAGED_EXAMPLE,
		DT_EXAMPLE,
		CSV_EXAMPLE,
		CRM_EXAMPLE,
		'webhook-playground-call.json',
		'crm-check-dry-run.json',
	].map((file) => [file, readExample(file).name]),
);
/** The version whose editor the README's pictures come from (as the editor checks' pictures). */
const PICTURES_VERSION = NODE20_VERSION;
const CRM_TRIGGER = "When clicking 'Execute workflow'";
/** What reaches the service from the pinned CRM output, by contact id. */
const CRM_EXPECTED = {
	'101': {
		first_name: 'Ada',
		last_name: 'Lovelace',
		phone: '+14155550101',
		email: 'ada@example.com',
		lifecycle_stage: 'customer',
	},
	'102': {
		first_name: 'Grace',
		last_name: 'Hopper',
		phone: '+14155550102',
		lifecycle_stage: 'lead',
	},
	'103': {
		first_name: 'Alan',
		last_name: 'Turing',
		phone: '+14155550103',
		email: 'alan@example.com',
		lifecycle_stage: 'opportunity',
	},
	'0035g00000Ab1CdEAF': {
		first_name: 'Katherine',
		last_name: 'Johnson',
		phone: '+14155550104',
		email: 'katherine@example.com',
		job_title: 'Analyst',
	},
	'0035g00000Ab1CdEAG': { first_name: 'Dorothy', last_name: 'Vaughan', phone: '+14155550155' },
	'7': {
		first_name: 'Mary',
		last_name: 'Jackson',
		phone: '+14155550106',
		email: 'mary@example.com',
	},
	'8': { first_name: 'Linus', last_name: 'Torvalds', phone: '+14155550177' },
};

/** What `npm run example` printed: its exit code, the rows of each Data Table and the requests the simulator received. */
function exampleOutput({ code, stdout }: { code: number | null; stdout: string }) {
	const tables: Record<string, Array<Record<string, unknown>>> = {};
	for (const [, name, lines] of stdout.matchAll(
		/^The Data Table "([^"]+)" holds \d+ row\(s\):\n((?: {2}.*\n)*)/gm,
	))
		tables[name] = lines
			.split('\n')
			.filter((line) => line.trim())
			.map((line) => JSON.parse(line));
	const requests = /^The simulator received (\d+) request\(s\):/m.exec(stdout)?.[1];
	return { code, tables, requests: requests === undefined ? undefined : Number(requests) };
}

describe.each(requestedVersions())('n8n %s', (version) => {
	// `npm run example` as a newcomer runs it: its own n8n, simulator and Data Table, a manual run.
	test('npm run example -- examples/crm-check-dry-run.json: the Data Table made and picked, the invalid contacts in it, nothing sent', async () => {
		const result = await runProcess(
			process.execPath,
			['scripts/run-example.js', 'examples/crm-check-dry-run.json'],
			{
				cwd: REPO_ROOT,
				env: cleanEnv({
					N8N_EXAMPLE_VERSION: version,
					VOICE_ASSISTANT_BASE_URL: '',
					VOICE_ASSISTANT_API_KEY: '',
				}),
				timeoutMs: 300_000,
				name: 'npm-run-example',
			},
		);
		// On a failure, what it printed (toEqual does not count a missing `output` against it).
		const output =
			result.code === 0 ? undefined : `${result.stdout}\n${result.stderr}`.slice(-4000);
		expect({ ...exampleOutput(result), output }).toEqual({
			code: 0,
			tables: {
				crm_check_problems: [
					{
						contact_id: 'crm-2002',
						problems: '"first_name" (First Name) is required; "phone" (Phone) is required',
					},
					{ contact_id: '', problems: '"Contact ID" is required' },
				],
			},
			requests: 0,
		});
		expect(result.stdout).toContain('Check each contact (Dry Run): 5 item(s)');
	});

	describe('in a running n8n (n8n start), run as the editor runs them', () => {
		const n8n = useN8n(version);
		let projectId: string;
		const database = `recipes_${version.replace(/\W/g, '_')}`;
		/** Where n8n may read files (N8N_RESTRICT_FILE_ACCESS_TO). */
		const csvDir = () => n8n().instance.filesDir;

		beforeAll(async () => {
			await n8n().saveCredentials([simulatorCredential(sim().url)]);
			if (postgres) {
				await postgres.createDatabase(database);
				const { host, port, user, password } = postgres;
				await n8n().saveCredentials([
					{
						...PG_CREDENTIAL,
						type: 'postgres',
						data: { host, port, database, user, password, ssl: 'disable' },
					},
				]);
			}
			projectId = (await n8n().api.call('GET', '/rest/projects/personal')).id;
		});

		beforeEach(async () => {
			await sim().reset();
		});

		afterEach(async () => {
			expect((await sim().requests()).flatMap(specProblems)).toEqual([]);
		});

		/** The saved copy of each example, by file. */
		const saved: Record<string, string> = {};
		/** Saves a workflow through the REST API, as the editor does; returns its id. */
		async function save(workflow: Workflow): Promise<string> {
			const id = await n8n().saveWorkflow(workflow);
			const file = Object.entries(EXAMPLE_FILES).find(([, name]) => name === workflow.name)?.[0];
			if (file) saved[file] = id;
			return id;
		}

		/** A manual run from `trigger`; fails the test when the execution did not succeed. */
		async function runOnce(workflowId: string, trigger: string) {
			const execution = await n8n().api.runManually(workflowId, trigger);
			const error = execution.data?.resultData?.error;
			expect([execution.status, error?.message]).toEqual(['success', undefined]);
			expect(execution.mode).toBe('manual');
			return execution.data.resultData.runData;
		}

		describe('n8n Data Table: rows not synced → Segment Contact → Update → marked synced or their error kept', () => {
			const COLUMNS = [
				'contact_id',
				'first_name',
				'last_name',
				'phone',
				'email',
				'lifecycle_stage',
				'sync_error',
			];
			let tableId: string;
			let workflowId: string;
			const tableApi = (suffix = '') =>
				`/rest/projects/${projectId}/data-tables/${tableId}${suffix}`;

			beforeAll(async () => {
				const created = await n8n().api.call('POST', `/rest/projects/${projectId}/data-tables`, {
					name: 'contacts',
					columns: [
						...COLUMNS.map((name) => ({ name, type: 'string' })),
						{ name: 'synced', type: 'boolean' },
					],
				});
				tableId = created.id;
				const example = readExample(DT_EXAMPLE);
				for (const node of example.nodes.filter(
					(candidate) => candidate.type === 'n8n-nodes-base.dataTable',
				)) {
					node.parameters.dataTableId = { __rl: true, mode: 'id', value: tableId };
				}
				workflowId = await save(example);
				const rows = Array.from({ length: DT_COUNT }, (_, i) => dtContact(i + 1));
				await n8n().api.call('POST', tableApi('/insert'), { data: rows, returnType: 'count' });
			});

			async function rows(): Promise<Array<Record<string, any>>> {
				const answer = await n8n().api.call('GET', `${tableApi('/rows')}?take=1000`);
				return (answer.data as Array<Record<string, any>>).sort((a, b) =>
					a.contact_id.localeCompare(b.contact_id),
				);
			}
			/** The CRM changes a row: new values, and not synced any more. */
			async function change(contactId: string, data: Record<string, unknown>) {
				await n8n().api.call('PATCH', tableApi('/rows'), {
					filter: {
						type: 'and',
						filters: [{ columnName: 'contact_id', condition: 'eq', value: contactId }],
					},
					data: { ...data, synced: false },
				});
			}
			const run = () => runOnce(workflowId, DT_TRIGGER);
			const state = async () => {
				const all = await rows();
				return {
					synced: all
						.filter((row) => row.synced === true && !row.sync_error)
						.map((row) => row.contact_id),
					failed: Object.fromEntries(
						all
							.filter((row) => row.synced !== true && row.sync_error)
							.map((row) => [row.contact_id, row.sync_error]),
					),
					neither: all
						.filter((row) => row.synced !== true && !row.sync_error)
						.map((row) => row.contact_id),
				};
			};

			test('every row sent once, then 0, then the 3 changed; an invalid and a refused row keep their error and stay unsynced, the rest apply', async () => {
				const allIds = Array.from({ length: DT_COUNT }, (_, i) => dtContact(i + 1).contact_id);
				let seen = 0;
				const sent = async () => {
					const all = await sim().requests();
					const received = all.slice(seen);
					seen = all.length;
					return sentById(received);
				};

				await run();
				const first = await sent();
				expect(Object.keys(first).sort()).toEqual(allIds);
				expect(first['dt-03']).toStrictEqual(
					without(dtContact(3), 'contact_id', 'synced', 'sync_error'),
				);
				expect(await state()).toEqual({ synced: allIds, failed: {}, neither: [] });

				const second = await run();
				expect(await sent()).toEqual({});
				expect(second['Update segment contact']).toBeUndefined();

				await change('dt-02', { phone: '+14155558002' });
				await change('dt-05', { email: 'five@example.com' });
				await change('dt-09', { lifecycle_stage: 'customer' });
				await run();
				const third = await sent();
				expect(Object.keys(third).sort()).toEqual(['dt-02', 'dt-05', 'dt-09']);
				expect(third['dt-02']).toMatchObject({ phone: '+14155558002' });
				expect(third['dt-05']).toMatchObject({ email: 'five@example.com' });
				expect(third['dt-09']).toMatchObject({ lifecycle_stage: 'customer' });
				expect(await state()).toEqual({ synced: allIds, failed: {}, neither: [] });

				await change('dt-04', { first_name: '' });
				await change('dt-06', { phone: '+14155558006' });
				await change('dt-07', { phone: '+14155558007' });
				await sim().failNext({
					status: 422,
					method: 'PUT',
					path: CONTACT_PATH,
					id: 'dt-07',
					body: { message: 'phone number is not reachable' },
				});
				await run();
				const fourth = await sent();
				expect(Object.keys(fourth).sort()).toEqual(['dt-06', 'dt-07']);
				const after = await state();
				expect(after.failed).toEqual({
					'dt-04': expect.stringMatching(
						/^Invalid input: "first_name" \(First Name\) .*\[item \d\]$/,
					),
					'dt-07': 'The service rejected the request (HTTP 422): phone number is not reachable',
				});
				expect(after.neither).toEqual([]);
				expect(after.synced).toEqual(allIds.filter((id) => id !== 'dt-04' && id !== 'dt-07'));

				// A row changed while its update is on the wire stays unsynced and goes out again next run.
				await change('dt-10', { phone: '+14155558010' });
				await sim().setOptions({ latencyMs: 1500 });
				const { running: during } = await whileSending('dt-10', run);
				await change('dt-10', { phone: '+14155558110' });
				await during;
				await sim().setOptions({ latencyMs: 0 });
				expect((await sent())['dt-10']).toMatchObject({ phone: '+14155558010' });
				expect((await state()).neither).toEqual(['dt-10']);
				await run();
				const again = await sent();
				expect(again['dt-10']).toMatchObject({ phone: '+14155558110' });
				expect((await state()).synced).toContain('dt-10');
				expect((await sim().ledger()).applied).toHaveLength(DT_COUNT + 3 + 1 + 2 + 1);
			});
		});

		describeWithPostgres(
			`PostgreSQL: changed rows → Segment Contact → Update → marked synced or kept in sync_errors${pgSkipped}`,
			() => {
				const example = readExample(PG_EXAMPLE);
				let workflowId: string;
				const query = (sql: string) => (postgres as Postgres).query(database, sql);

				beforeAll(async () => {
					await query(exampleSchema(example));
					workflowId = await save(example);
					const rows = Array.from({ length: CONTACT_COUNT }, (_, i) => pgContact(i + 1));
					const values = rows.map(
						(row) =>
							`(${[row.id, row.first_name, row.last_name, row.phone, row.email, row.lifecycle_stage].map(sqlText).join(', ')})`,
					);
					await query(
						`INSERT INTO contacts (id, first_name, last_name, phone, email, lifecycle_stage) VALUES ${values.join(',\n')}`,
					);
				});

				/** The CRM changes rows: new values and a new updated_at, as a CRM writes them. */
				const change = (id: string, set: string) =>
					query(`UPDATE contacts SET ${set}, updated_at = clock_timestamp() WHERE id = '${id}'`);
				/** Which rows are synced (synced_version = updated_at) and which have an error row. */
				async function state() {
					const synced = (
						await query('SELECT id FROM contacts WHERE synced_version = updated_at ORDER BY id')
					).map(([id]) => id);
					const unsynced = (
						await query(
							'SELECT id FROM contacts WHERE synced_version IS DISTINCT FROM updated_at ORDER BY id',
						)
					).map(([id]) => id);
					const errors = Object.fromEntries(
						(
							await query(
								'SELECT e.contact_id, e.message, e.version = c.updated_at FROM sync_errors e JOIN contacts c ON c.id = e.contact_id ORDER BY 1',
							)
						).map(([id, message, current]) => [id, { message, current: current === 't' }]),
					);
					return { synced, unsynced, errors };
				}
				let seen = 0;
				async function run() {
					const runData = await runOnce(workflowId, PG_TRIGGER);
					const all = await sim().requests();
					const received = all.slice(seen);
					seen = all.length;
					return { runData, received, sent: sentById(received) };
				}
				/** Every row the run read ends in exactly one place: synced, or in sync_errors with this version. */
				function expectEachRowOnce(
					input: string[],
					after: Awaited<ReturnType<typeof state>>,
					failed: string[],
				) {
					for (const id of input) {
						const synced = after.synced.includes(id);
						const error = after.errors[id];
						expect([id, synced, !!error?.current]).toEqual([
							id,
							!failed.includes(id),
							failed.includes(id),
						]);
					}
				}

				test('first run sends every row, second run 0, then exactly the 3 changed rows; an invalid and a refused row land in sync_errors, the rest apply; fixed, they go through', async () => {
					const allIds = Array.from({ length: CONTACT_COUNT }, (_, i) => pgContact(i + 1).id);

					// 1. Every row is new: all sent, all marked synced.
					const first = await run();
					expect(first.runData['Contacts changed since last sync'][0].data?.main[0]).toHaveLength(
						CONTACT_COUNT,
					);
					expect(Object.keys(first.sent).sort()).toEqual(allIds);
					expect(first.received).toHaveLength(CONTACT_COUNT);
					expect(first.sent['pg-004']).toStrictEqual(without(pgContact(4), 'id', 'email')); // NULL columns are not sent
					expect(first.sent['pg-007']).toStrictEqual(without(pgContact(7), 'id'));
					let now = await state();
					expect(now.synced).toEqual(allIds);
					expect(now.errors).toEqual({});

					// 2. Nothing changed: nothing sent, the update node does not even run.
					const second = await run();
					expect(second.received).toHaveLength(0);
					expect(second.runData['Update segment contact']).toBeUndefined();

					// 3. The CRM changed 3 rows: exactly those 3, with their new values.
					await change('pg-002', "phone = '+14155559002'");
					await change('pg-011', "email = 'new-11@example.com', lifecycle_stage = 'customer'");
					await change('pg-019', "last_name = 'Nineteen'");
					const third = await run();
					expect(Object.keys(third.sent).sort()).toEqual(['pg-002', 'pg-011', 'pg-019']);
					expect(third.received).toHaveLength(3);
					expect(third.sent['pg-002']).toMatchObject({ phone: '+14155559002' });
					expect(third.sent['pg-011']).toMatchObject({
						email: 'new-11@example.com',
						lifecycle_stage: 'customer',
					});
					expect(third.sent['pg-019']).toMatchObject({
						last_name: 'Nineteen',
						first_name: 'First19',
					});
					now = await state();
					expect(now.synced).toEqual(allIds);

					// 4. One row lost its first name (invalid: never sent), one is refused by the service, one is fine.
					await change('pg-005', "first_name = ''");
					await change('pg-006', "phone = '+14155559006'");
					await change('pg-008', "phone = '+14155559008'");
					await sim().failNext({
						status: 422,
						method: 'PUT',
						path: CONTACT_PATH,
						id: 'pg-008',
						body: { message: 'phone number is not reachable' },
					});
					const fourth = await run();
					const input = (
						fourth.runData['Contacts changed since last sync'][0].data?.main[0] ?? []
					).map((item) => item.json.id as string);
					expect(input.sort()).toEqual(['pg-005', 'pg-006', 'pg-008']);
					expect(fourth.received.map((request) => request.query.id).sort()).toEqual([
						'pg-006',
						'pg-008',
					]);
					now = await state();
					expectEachRowOnce(input, now, ['pg-005', 'pg-008']);
					expect(now.errors['pg-005'].message).toMatch(
						/^Invalid input: "first_name" \(First Name\) .*\[item \d\]$/,
					);
					expect(now.errors['pg-008'].message).toBe(
						'The service rejected the request (HTTP 422): phone number is not reachable',
					);
					expect(now.unsynced).toEqual(['pg-005', 'pg-008']);
					const [success, failure] = fourth.runData['Update segment contact'][0].data?.main ?? [];
					expect(success.map((item) => item.json)).toEqual([
						{ id: 'pg-006', message: 'Contact updated successfully.' },
					]);
					// Each failed item carries its own row (paired with it) and the reason.
					expect(
						failure
							.map((item) => [
								input[pairedIndex(item) as number],
								item.json.id,
								typeof item.json.error,
							])
							.sort(),
					).toEqual([
						['pg-005', 'pg-005', 'string'],
						['pg-008', 'pg-008', 'string'],
					]);

					// 5. Failed rows are tried again; fixed, they go through and their errors are cleared.
					await change('pg-005', "first_name = 'Fifth'");
					const fifth = await run();
					expect(Object.keys(fifth.sent).sort()).toEqual(['pg-005', 'pg-008']);
					expect(fifth.sent['pg-005']).toMatchObject({ first_name: 'Fifth' });
					now = await state();
					expect(now.synced).toEqual(allIds);
					expect(now.errors).toEqual({});

					// 6. A row the CRM changes while its update is on the wire stays unsynced and goes out again next run.
					await change('pg-010', "phone = '+14155559010'");
					await sim().setOptions({ latencyMs: 1500 });
					const { running: during } = await whileSending('pg-010', run);
					await change('pg-010', "phone = '+14155559110'");
					const sixth = await during;
					await sim().setOptions({ latencyMs: 0 });
					expect(sixth.sent['pg-010']).toMatchObject({ phone: '+14155559010' });
					expect((await state()).unsynced).toEqual(['pg-010']);
					const seventh = await run();
					expect(Object.keys(seventh.sent)).toEqual(['pg-010']);
					expect(seventh.sent['pg-010']).toMatchObject({ phone: '+14155559110' });
					expect((await state()).synced).toEqual(allIds);

					const ledger = await sim().ledger();
					expect(ledger.applied.map((entry) => entry.id).sort()).toEqual(
						[
							...allIds,
							'pg-002',
							'pg-011',
							'pg-019',
							'pg-006',
							'pg-005',
							'pg-008',
							'pg-010',
							'pg-010',
						].sort(),
					);
				});
			},
		);

		describeWithPostgres(
			`PostgreSQL, a page at a time: each page of 1,000 rows its own execution, resumable${pgSkipped}`,
			() => {
				const query = (sql: string) => (postgres as Postgres).query(database, sql);
				const ROWS = 2_500;
				const id = (i: number) => `big-${String(i).padStart(5, '0')}`;

				test('2,500 rows in 3 page executions: each row sent once, failures kept; a run cut after 1,200 rows resumes with the other 1,300', async () => {
					// The same tables as the single-run recipe (created by its test above), emptied.
					await query('TRUNCATE sync_errors, contacts');
					await query(
						`INSERT INTO contacts (id, first_name, last_name, phone, email, lifecycle_stage)
					 SELECT 'big-' || lpad(i::text, 5, '0'), CASE WHEN i = 1500 THEN '' ELSE 'First' || i END, 'Last' || i,
					        '+1415' || lpad(i::text, 7, '0'), NULL, 'lead'
					 FROM generate_series(1, ${ROWS}) AS i`,
					);
					await sim().failNext({
						status: 422,
						method: 'PUT',
						path: CONTACT_PATH,
						id: id(2100),
						body: { message: 'phone number is not reachable' },
					});
					const workflowId = await save(readExample(PAGED_EXAMPLE));

					const runData = await runOnce(workflowId, PAGED_TRIGGER);
					const updates = contactUpdates(await sim().requests());
					expect(updates).toHaveLength(ROWS - 1); // the invalid row is never sent
					expect(new Set(updates.map((request) => request.query.id)).size).toBe(ROWS - 1);
					// 3 pages and the look-up that finds none left; each page returns one item, not its rows.
					expect(runData['Next page'].map((run) => run.data?.main[0][0].json.rows)).toEqual([
						1000, 1000, 500, 0,
					]);
					expect(
						runData['Sync this page'].map((run) => run.data?.main[0].map((item) => item.json)),
					).toEqual([[{ last_id: id(1000) }], [{ last_id: id(2000) }], [{ last_id: id(2500) }]]);
					expect(runData['Update segment contact']).toBeUndefined(); // it ran in the page executions
					const unsynced = (
						await query(
							'SELECT id FROM contacts WHERE synced_version IS DISTINCT FROM updated_at ORDER BY id',
						)
					).map(([row]) => row);
					expect(unsynced).toEqual([id(1500), id(2100)]);
					const errors = await query('SELECT contact_id, message FROM sync_errors ORDER BY 1');
					expect(errors[0]).toEqual([
						id(1500),
						expect.stringMatching(/^Invalid input: "first_name" \(First Name\)/),
					]);
					expect(errors[1]).toEqual([
						id(2100),
						'The service rejected the request (HTTP 422): phone number is not reachable',
					]);

					// A run that stopped after 1,200 rows (a restart): the next one sends only the rest.
					await query(
						`UPDATE contacts SET first_name = 'Fixed', updated_at = clock_timestamp() WHERE id = '${id(1500)}'`,
					);
					await query(`UPDATE contacts SET synced_version = NULL WHERE id > '${id(1200)}'`);
					await sim().reset();
					await runOnce(workflowId, PAGED_TRIGGER);
					const resumed = contactUpdates(await sim().requests()).map(
						(request) => request.query.id as string,
					);
					expect(resumed.sort()).toEqual(
						Array.from({ length: ROWS - 1200 }, (_, i) => id(1201 + i))
							.concat(id(1500))
							.filter((v, i, all) => all.indexOf(v) === i)
							.sort(),
					);
					expect(
						(await query('SELECT count(*) FROM contacts WHERE synced_version = updated_at'))[0][0],
					).toBe(String(ROWS));
					expect(await query('SELECT contact_id FROM sync_errors')).toEqual([]);
				});

				test('activated, as its schedule runs it: the scheduled execution calls the published workflow for each page', async () => {
					await query(`UPDATE contacts SET synced_version = NULL WHERE id <= '${id(1500)}'`);
					await sim().reset();
					const scheduled = readExample(PAGED_EXAMPLE);
					// One scheduled run: the schedule is switched off once that run has finished, long before
					// the next one (two overlapping runs would both select the rows not yet marked synced;
					// switched off mid-run, n8n 2.x stops the run at its next page: the page workflow is no
					// longer published). See the README.
					scheduled.name = `${scheduled.name} (every 30 s)`;
					(scheduled.nodes.find((node) => node.name === PAGED_TRIGGER) as WorkflowNode).parameters =
						{ rule: { interval: [{ field: 'seconds', secondsInterval: 30 }] } };
					const workflowId = await save(scheduled);
					const { api } = n8n();
					await api.activate(workflowId);
					const runs = async () =>
						(await api.executions(workflowId)).filter((row) => row.mode === 'trigger');
					await poll(
						'a finished scheduled run',
						async () => (await runs()).some((row) => !['new', 'running'].includes(row.status)),
						{ timeoutMs: 120_000 },
					);
					await api.deactivate(workflowId);
					const finished = await poll(
						'every run to finish',
						async () => {
							const all = await api.executions(workflowId);
							return all.every((row) => !['new', 'running'].includes(row.status)) ? all : undefined;
						},
						{ timeoutMs: 120_000, everyMs: 500 },
					);
					expect((await runs()).map((row) => row.status)).toEqual(['success']);
					// The pages ran as executions of their own (called, not triggered), 2 for the 1,500 rows.
					expect(finished.filter((row) => row.mode !== 'trigger').length).toBeGreaterThanOrEqual(2);
					const updates = contactUpdates(await sim().requests()).map(
						(request) => request.query.id as string,
					);
					expect(updates.sort()).toEqual(Array.from({ length: 1500 }, (_, i) => id(i + 1)));
					expect(
						(await query('SELECT count(*) FROM contacts WHERE synced_version = updated_at'))[0][0],
					).toBe(String(ROWS));
				});
			},
		);

		test('CRM export file: CSV read from disk, Extract From File, the CRM headers typed once under Input Columns, every row updated', async () => {
			const rows = Array.from({ length: CSV_ROWS }, (_, i) => csvRow(i));
			const quote = (value: string) =>
				/[",\n]/.test(value) ? `"${value.replace(/"/g, '""')}"` : value;
			const csv = [CSV_HEADERS, ...rows.map((row) => CSV_HEADERS.map((header) => row[header]))]
				.map((line) => line.map(quote).join(','))
				.join('\r\n');
			const file = path.join(csvDir(), 'crm-export.csv');
			fs.writeFileSync(file, `${csv}\r\n`);
			const example = readExample(CSV_EXAMPLE);
			const reader = example.nodes.find(
				(node) => node.type === 'n8n-nodes-base.readWriteFile',
			) as WorkflowNode;
			expect(reader.parameters.fileSelector).toBe('/home/node/.n8n-files/crm-export.csv');
			reader.parameters.fileSelector = file;
			const runData = await runOnce(await save(example), CSV_TRIGGER);

			expect(runData['Rows of the CSV'][0].data?.main[0]).toHaveLength(CSV_ROWS);
			// The CRM's headers map the fields: no Edit Fields, no expression per row.
			expect(
				example.nodes.map((node) => node.type).filter((type) => type === 'n8n-nodes-base.set'),
			).toEqual([]);
			const received = await sim().requests();
			expect(received).toHaveLength(CSV_ROWS);
			const sent = sentById(received);
			expect(Object.keys(sent).sort()).toEqual(rows.map((row) => row['Record ID']).sort());
			for (const row of rows) {
				const expected: Record<string, string> = {
					first_name: row['First Name'],
					last_name: row['Last Name'],
					phone: row['Phone Number'],
					email: row.Email,
					lifecycle_stage: row['Lifecycle Stage'],
				};
				expect([row['Record ID'], sent[row['Record ID']]]).toEqual([
					row['Record ID'],
					Object.fromEntries(Object.entries(expected).filter(([, value]) => value !== '')),
				]);
			}
		});

		test('HubSpot, Salesforce and Pipedrive contact lists (pinned node output) → Edit Fields → Segment Contact → Update', async () => {
			const example = readExample(CRM_EXAMPLE);
			const runData = await runOnce(await save(example), CRM_TRIGGER);
			const sent = sentById(await sim().requests());
			expect(sent).toStrictEqual(CRM_EXPECTED);
			// The CRM nodes ran on their pinned output, not against the CRMs.
			for (const [crm, items] of Object.entries(example.pinData ?? {})) {
				expect(runData[crm][0].data?.main[0].map((item) => item.json)).toEqual(
					(items as Array<{ json: object }>).map((item) => item.json),
				);
			}
		});

		// The README's pictures of the recipes (.github/images/recipe-*.png), when asked: about 2 minutes.
		const pictures =
			!!process.env.VA_RECIPE_PICTURES && fs.existsSync(CHROMIUM) && version === PICTURES_VERSION;
		(pictures ? test : test.skip)(
			`pictures of the recipe workflows in the editor (Chromium, n8n ${PICTURES_VERSION}; only with VA_RECIPE_PICTURES=<folder>)`,
			async () => {
				for (const file of Object.keys(EXAMPLE_FILES))
					if (!saved[file]) await save(readExample(file));
				const outDir = path.resolve(process.env.VA_RECIPE_PICTURES as string);
				const written = await workflowPictures({
					url: n8n().url,
					cookie: n8n().api.cookie,
					outDir,
					workflows: Object.keys(EXAMPLE_FILES).map((file) => ({
						id: saved[file],
						file: `recipe-${path.basename(file, '.json')}`,
					})),
					log: (line) => process.stdout.write(`[recipes ${version}] ${line}\n`),
				});
				expect(written).toHaveLength(Object.keys(EXAMPLE_FILES).length);
				for (const png of written) expect(fs.statSync(png).size).toBeGreaterThan(10_000);
			},
		);
	});
});
