/**
 * The CRM recipes of the README, as the workflows in examples/ (started by hand instead of by
 * their schedule, as `n8n execute` needs), in real n8n with real parts:
 * - PostgreSQL (Debian's server, started here on 127.0.0.1 with throwaway data, as the queue
 *   suite does: tools/services.js): changed rows → Segment Contact → Update → successes marked
 *   synced, failures kept in `sync_errors`;
 * - n8n's own Data Table: the same recipe without a database server;
 * - a CRM export file (CSV) read from disk, mapped with Edit Fields;
 * - HubSpot, Salesforce and Pipedrive contact lists, as their n8n nodes output them, mapped
 *   with Edit Fields.
 * Every request is checked against the spec as the simulator reads it.
 */
import fs from 'fs';
import path from 'path';
import {
	CONTACT_PATH,
	EXAMPLES_DIR,
	outputOf,
	pairedIndex,
	simulatorCredential,
	startedManually,
	useImportedN8n,
	useSimulatorProcess,
	type Workflow,
} from './helpers';
import type { RecordedRequest } from '../simulator';
import { executeWorkflow, n8nBin, requestedVersions } from '../../tools/n8n';
import { postgresMissing, startPostgres, type Postgres } from '../../tools/services';

const sim = useSimulatorProcess();
const readExample = (file: string) => JSON.parse(fs.readFileSync(path.join(EXAMPLES_DIR, file), 'utf8')) as Workflow;
const contactUpdates = (list: RecordedRequest[]) => list.filter((request) => request.method === 'PUT' && request.path === CONTACT_PATH);
const sentById = (list: RecordedRequest[]) => Object.fromEntries(contactUpdates(list).map((request) => [request.query.id, JSON.parse(request.rawBody)]));

// ---------------------------------------------------------------------------------------------
// PostgreSQL
// ---------------------------------------------------------------------------------------------

const PG_EXAMPLE = 'postgres-contacts-sync.json';
const PG_WORKFLOW = 'vaE2ePgSync';
const PG_CREDENTIAL = { id: 'vaPostgresCrm01', name: 'Postgres (CRM)' };
const pgMissing = postgresMissing();
const pgSkipped = pgMissing ? ` (SKIPPED: ${pgMissing})` : '';
if (pgMissing) process.stdout.write(`[e2e] PostgreSQL recipe${pgSkipped}\n`);

/** The tables, as the example's sticky note gives them to the user. */
function exampleSchema(example: Workflow): string {
	const note = example.nodes.find((node) => node.type === 'n8n-nodes-base.stickyNote')?.parameters.content as string;
	const sql = /```sql\n([\s\S]*?)```/.exec(note ?? '')?.[1];
	if (!sql) throw new Error(`${PG_EXAMPLE} has no SQL block in its note`);
	return sql;
}

const CONTACT_COUNT = 20;
const pgContact = (i: number) => ({
	id: `pg-${String(i).padStart(3, '0')}`,
	first_name: `First${i}`,
	last_name: `Last${i}`,
	phone: `+1415555${String(1000 + i)}`,
	email: i % 4 === 0 ? null : `contact-${i}@example.com`,
	lifecycle_stage: i % 2 ? 'lead' : 'customer',
});
const sqlText = (value: string | null) => (value === null ? 'NULL' : `'${value.replace(/'/g, "''")}'`);

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

describe.each(requestedVersions())('n8n %s', (version) => {
	const bin = n8nBin(version);

	describeWithPostgres(`PostgreSQL: changed rows → Segment Contact → Update → marked synced or kept in sync_errors${pgSkipped}`, () => {
		const database = `recipes_${version.replace(/\W/g, '_')}`;
		const example = readExample(PG_EXAMPLE);
		const copy = startedManually(example, PG_WORKFLOW, 'Every 15 minutes', [{ timestamp: '2026-01-05T02:00:00.000+00:00' }]);
		const installed = useImportedN8n(sim, `recipes-pg-${version}`, bin, () => ({
			credentials: [
				simulatorCredential(sim().url),
				{
					...PG_CREDENTIAL,
					type: 'postgres',
					data: { host: postgres?.host, port: postgres?.port, database, user: postgres?.user, password: postgres?.password, ssl: 'disable' },
				},
			],
			workflows: [copy],
		}));
		const query = (sql: string) => (postgres as Postgres).query(database, sql);

		beforeAll(async () => {
			await (postgres as Postgres).createDatabase(database);
			await query(exampleSchema(example));
			const rows = Array.from({ length: CONTACT_COUNT }, (_, i) => pgContact(i + 1));
			const values = rows.map((row) => `(${[row.id, row.first_name, row.last_name, row.phone, row.email, row.lifecycle_stage].map(sqlText).join(', ')})`);
			await query(`INSERT INTO contacts (id, first_name, last_name, phone, email, lifecycle_stage) VALUES ${values.join(',\n')}`);
		});

		/** The CRM changes rows: new values and a new updated_at, as a CRM writes them. */
		const change = (id: string, set: string) => query(`UPDATE contacts SET ${set}, updated_at = clock_timestamp() WHERE id = '${id}'`);
		/** Which rows are synced (synced_version = updated_at) and which have an error row. */
		async function state() {
			const synced = (await query('SELECT id FROM contacts WHERE synced_version = updated_at ORDER BY id')).map(([id]) => id);
			const unsynced = (await query('SELECT id FROM contacts WHERE synced_version IS DISTINCT FROM updated_at ORDER BY id')).map(([id]) => id);
			const errors = Object.fromEntries(
				(await query('SELECT e.contact_id, e.message, e.version = c.updated_at FROM sync_errors e JOIN contacts c ON c.id = e.contact_id ORDER BY 1')).map(
					([id, message, current]) => [id, { message, current: current === 't' }],
				),
			);
			return { synced, unsynced, errors };
		}
		let seen = 0;
		async function run() {
			const result = await executeWorkflow(bin, PG_WORKFLOW, installed.userFolder());
			expect(result.run.data.resultData.error).toBeUndefined();
			expect(result.code).toBe(0);
			const all = await installed.requests();
			const received = all.slice(seen);
			seen = all.length;
			return { ...result, received, sent: sentById(received) };
		}
		/** Every row the run read ends in exactly one place: synced, or in sync_errors with this version. */
		function expectEachRowOnce(input: string[], after: Awaited<ReturnType<typeof state>>, failed: string[]) {
			for (const id of input) {
				const synced = after.synced.includes(id);
				const error = after.errors[id];
				expect([id, synced, !!error?.current]).toEqual([id, !failed.includes(id), failed.includes(id)]);
			}
		}

		test('first run sends every row, second run 0, then exactly the 3 changed rows; an invalid and a refused row land in sync_errors, the rest apply; fixed, they go through', async () => {
			const allIds = Array.from({ length: CONTACT_COUNT }, (_, i) => pgContact(i + 1).id);

			// 1. Every row is new: all sent, all marked synced.
			const first = await run();
			expect(outputOf(first.run, 'Contacts changed since last sync')).toHaveLength(CONTACT_COUNT);
			expect(Object.keys(first.sent).sort()).toEqual(allIds);
			expect(first.received).toHaveLength(CONTACT_COUNT);
			const { id: _id, email: _email, ...withoutEmail } = pgContact(4);
			expect(first.sent['pg-004']).toStrictEqual(withoutEmail); // NULL columns are not sent
			const { id: _id7, ...seven } = pgContact(7);
			expect(first.sent['pg-007']).toStrictEqual(seven);
			let now = await state();
			expect(now.synced).toEqual(allIds);
			expect(now.errors).toEqual({});

			// 2. Nothing changed: nothing sent, the update node does not even run.
			const second = await run();
			expect(second.received).toHaveLength(0);
			expect(second.run.data.resultData.runData['Update segment contact']).toBeUndefined();

			// 3. The CRM changed 3 rows: exactly those 3, with their new values.
			await change('pg-002', "phone = '+14155559002'");
			await change('pg-011', "email = 'new-11@example.com', lifecycle_stage = 'customer'");
			await change('pg-019', "last_name = 'Nineteen'");
			const third = await run();
			expect(Object.keys(third.sent).sort()).toEqual(['pg-002', 'pg-011', 'pg-019']);
			expect(third.received).toHaveLength(3);
			expect(third.sent['pg-002']).toMatchObject({ phone: '+14155559002' });
			expect(third.sent['pg-011']).toMatchObject({ email: 'new-11@example.com', lifecycle_stage: 'customer' });
			expect(third.sent['pg-019']).toMatchObject({ last_name: 'Nineteen', first_name: 'First19' });
			now = await state();
			expect(now.synced).toEqual(allIds);

			// 4. One row lost its first name (invalid: never sent), one is refused by the service, one is fine.
			await change('pg-005', "first_name = ''");
			await change('pg-006', "phone = '+14155559006'");
			await change('pg-008', "phone = '+14155559008'");
			await sim().failNext({ status: 422, method: 'PUT', path: CONTACT_PATH, id: 'pg-008', body: { message: 'phone number is not reachable' } });
			const fourth = await run();
			const input = outputOf(fourth.run, 'Contacts changed since last sync').map((item) => item.json.id as string);
			expect(input.sort()).toEqual(['pg-005', 'pg-006', 'pg-008']);
			expect(fourth.received.map((request) => request.query.id).sort()).toEqual(['pg-006', 'pg-008']);
			now = await state();
			expectEachRowOnce(input, now, ['pg-005', 'pg-008']);
			expect(now.errors['pg-005'].message).toMatch(/^Invalid input: "first_name" \(First Name\) .*\[item \d\]$/);
			expect(now.errors['pg-008'].message).toBe('The service rejected the request (HTTP 422): phone number is not reachable');
			expect(now.unsynced).toEqual(['pg-005', 'pg-008']);
			const [success, failure] = fourth.run.data.resultData.runData['Update segment contact'][0].data?.main ?? [];
			expect(success.map((item) => item.json)).toEqual([{ id: 'pg-006', message: 'Contact updated successfully.' }]);
			// Each failed item carries its own row (paired with it) and the reason.
			expect(failure.map((item) => [input[pairedIndex(item) as number], item.json.id, typeof item.json.error]).sort()).toEqual([
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

			const ledger = await sim().ledger();
			expect(ledger.applied.map((entry) => entry.id).sort()).toEqual(
				[...allIds, 'pg-002', 'pg-011', 'pg-019', 'pg-006', 'pg-005', 'pg-008'].sort(),
			);
		});
	});
});

