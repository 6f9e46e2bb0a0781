/**
 * "Send only what changed" (examples/sync-changed-contacts.json) in real n8n: Remove Duplicates
 * keyed on a hash of each contact's fields before Segment Contact → Update. The same 1,000
 * contacts twice, then 3 of them changed; the CRM stand-in is saved again between runs, as a
 * CRM's data changes between nightly runs. Also checks the node's summary line in n8n's log.
 */
import type { RecordedRequest } from '../simulator';
import {
	CONTACT_PATH,
	readExamples,
	requestedVersions,
	simulatorCredential,
	startedManually,
	expectSuccess,
	useImportedN8n,
	useSimulatorProcess,
	type Workflow,
} from './helpers';

const EXAMPLE_ID = 'vaExSyncChanged1';
const TRIGGER = 'Every night at 2';
const CRM = 'Contacts from your CRM';
const UPDATE = 'Update changed contacts';
const COUNT = 1_000;
const CHANGED: Record<string, Record<string, string>> = {
	'sync-0007': { phone: '+14155559007' },
	'sync-0500': { email: 'new-0500@example.com' },
	'sync-0999': { lead_status: 'connected', job_title: 'Head of Sales' },
};

const sim = useSimulatorProcess();

/** The 1,000 contacts of the CRM stand-in, with `changes` applied by id. */
function contacts(
	changes: Record<string, Record<string, string>> = {},
): Array<Record<string, string>> {
	return Array.from({ length: COUNT }, (_, i) => {
		const id = `sync-${String(i).padStart(4, '0')}`;
		const contact = {
			id,
			first_name: `First${i}`,
			last_name: `Last${i}`,
			phone: `+1415555${String(i).padStart(4, '0')}`,
			email: `contact-${i}@example.com`,
			job_title: 'Buyer',
			lifecycle_stage: 'lead',
			lead_status: 'new',
		};
		return { ...contact, ...changes[id] };
	});
}

/** The example, started by hand, its CRM stand-in returning `list`. */
function syncWorkflow(list: object[]): Workflow {
	const example = readExamples().find((candidate) => candidate.id === EXAMPLE_ID);
	if (!example) throw new Error(`no example with id ${EXAMPLE_ID}`);
	const copy = startedManually(example, 'vaE2eSyncChanged', TRIGGER, [
		{ timestamp: '2026-01-05T02:00:00.000+00:00' },
	]);
	const crm = copy.nodes.find((node) => node.name === CRM);
	if (!crm) throw new Error(`the example has no node "${CRM}"`);
	crm.parameters = { jsCode: `return ${JSON.stringify(list)}.map((json) => ({ json }));` };
	return copy;
}

/** What Map Automatically sends for a contact: every field but the id (which goes in the query). */
const bodyOf = (contact: Record<string, string>) =>
	Object.fromEntries(Object.entries(contact).filter(([key]) => key !== 'id'));

describe.each(requestedVersions())('n8n %s', (version) => {
	const { n8n, execute, requests } = useImportedN8n(sim, version, () => ({
		credentials: [simulatorCredential(sim().url)],
		workflows: [syncWorkflow(contacts())],
	}));
	const contactUpdates = (list: RecordedRequest[]) =>
		list.filter((request) => request.method === 'PUT' && request.path === CONTACT_PATH);

	test('send only what changed: 1,000 contacts twice → 1,000 updates then 0; 3 changed → exactly those 3', async () => {
		const run = async () => {
			const seenBefore = (await sim().requests()).length;
			const result = expectSuccess(await execute('vaE2eSyncChanged'));
			return { ...result, received: (await requests()).slice(seenBefore) };
		};

		const first = await run();
		expect(contactUpdates(first.received)).toHaveLength(COUNT);
		expect(first.received).toHaveLength(COUNT);
		const firstIds = first.received.map((request) => request.query.id).sort();
		expect(firstIds).toEqual(contacts().map((contact) => contact.id));
		const byId = new Map(
			first.received.map((request) => [request.query.id, JSON.parse(request.rawBody)]),
		);
		expect(byId.get('sync-0042')).toStrictEqual(bodyOf(contacts()[42]));
		// The node's summary line in n8n's log (never the key).
		expect(first.log).toMatch(
			new RegExp(
				`Voice Assistant "${UPDATE}": done: ${COUNT} items in [0-9.]+ s: ${COUNT} succeeded, 0 failed, \\d+ retries, up to \\d+ requests in flight`,
			),
		);

		const second = await run();
		expect(second.received).toHaveLength(0);
		expect(second.run.data.resultData.runData[UPDATE]).toBeUndefined();

		await n8n().saveWorkflow(syncWorkflow(contacts(CHANGED)));
		const third = await run();
		expect(contactUpdates(third.received)).toHaveLength(3);
		expect(third.received).toHaveLength(3);
		const sent = Object.fromEntries(
			third.received.map((request) => [request.query.id, JSON.parse(request.rawBody)]),
		);
		const changed = contacts(CHANGED).filter((contact) => contact.id in CHANGED);
		expect(sent).toStrictEqual(
			Object.fromEntries(changed.map((contact) => [contact.id, bodyOf(contact)])),
		);

		const ledger = await sim().ledger();
		expect(ledger.applied).toHaveLength(COUNT + 3);
	});
});
