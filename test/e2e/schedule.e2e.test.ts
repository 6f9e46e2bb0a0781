/**
 * A schedule that fires by itself: examples/scheduled-contact-update.json, its Schedule Trigger
 * set to every few seconds, activated in a running `n8n start` as the editor's toggle does.
 * n8n then runs it on its own (nothing asks it to): each execution is saved in trigger mode,
 * its contacts reach the simulator, and n8n's log holds the node's summary line. Deactivated,
 * it fires no more.
 */
import {
	API_KEY,
	CONTACT_PATH,
	outputOf,
	readExamples,
	requestedVersions,
	simulatorCredential,
	specProblems,
	useSimulatorProcess,
	type Workflow,
} from './helpers';
import { useN8n } from './session';
import type { ExecutionSummary } from '../../tools/n8n';
import { poll, sleep } from '../../tools/processes';

const EXAMPLE_ID = 'vaExContactsSync';
const WORKFLOW_ID = 'vaE2eScheduled';
const TRIGGER = 'Every morning at 7';
const UPDATE = 'Update segment contact';
const EVERY_SECONDS = 3;

const sim = useSimulatorProcess();

/** The example as shipped, but firing every few seconds instead of every morning at 7. */
function everyFewSeconds(): Workflow {
	const example = readExamples().find((candidate) => candidate.id === EXAMPLE_ID);
	if (!example) throw new Error(`no example with id ${EXAMPLE_ID}`);
	const copy: Workflow = JSON.parse(JSON.stringify(example));
	copy.id = WORKFLOW_ID;
	copy.name = `${example.name} (every ${EVERY_SECONDS} s)`;
	const trigger = copy.nodes.find((node) => node.name === TRIGGER);
	if (!trigger || trigger.type !== 'n8n-nodes-base.scheduleTrigger')
		throw new Error(`the example has no Schedule Trigger "${TRIGGER}"`);
	trigger.parameters = {
		rule: { interval: [{ field: 'seconds', secondsInterval: EVERY_SECONDS }] },
	};
	return copy;
}

/** The contacts the example's CRM stand-in returns (read from its Code node by running it). */
function exampleContacts(workflow: Workflow): Array<Record<string, string>> {
	const code = workflow.nodes.find((node) => node.name === 'Contacts from your CRM')?.parameters
		.jsCode as string;
	return (new Function(code)() as Array<{ json: Record<string, string> }>).map((item) => item.json);
}

describe.each(requestedVersions())('n8n %s', (version) => {
	const n8n = useN8n(version);
	let workflowId: string;

	beforeAll(async () => {
		await n8n().saveCredentials([simulatorCredential(sim().url)]);
		workflowId = await n8n().saveWorkflow(everyFewSeconds());
	});

	test(`an active Schedule Trigger (every ${EVERY_SECONDS} s) fires on its own: executions saved in trigger mode, contacts sent, summary logged; none after deactivation`, async () => {
		await sim().reset();
		const { api } = n8n();
		expect(await api.executions(workflowId)).toEqual([]);
		await api.activate(workflowId);

		// n8n fires it by itself: wait for two finished executions, then switch it off.
		const finished = (rows: ExecutionSummary[]) =>
			rows.filter((row) => row.status !== 'running' && row.status !== 'new');
		await poll(
			'two scheduled executions',
			async () => {
				const rows = finished(await api.executions(workflowId));
				return rows.length >= 2 ? rows : undefined;
			},
			{ timeoutMs: 90_000, everyMs: 500 },
		);
		await api.deactivate(workflowId);
		// An execution the trigger started just before may still run: wait until none does.
		const rows = await poll(
			'the last execution to finish',
			async () => {
				const all = await api.executions(workflowId);
				return all.every((row) => finished([row]).length) ? all : undefined;
			},
			{ timeoutMs: 60_000, everyMs: 500 },
		);
		await sleep(EVERY_SECONDS * 1000 * 2 + 500);
		expect((await api.executions(workflowId)).length).toBe(rows.length);

		expect(rows.length).toBeGreaterThanOrEqual(2);
		for (const row of rows) expect([row.mode, row.status]).toEqual(['trigger', 'success']);
		// Every execution ran the whole example: the trigger, the CRM stand-in, the update.
		const first = await api.finished(rows[0].id);
		const runData = first.data.resultData.runData;
		expect(Object.keys(runData).sort()).toEqual(['Contacts from your CRM', TRIGGER, UPDATE].sort());
		const contacts = exampleContacts(everyFewSeconds());
		const updated = outputOf(first, UPDATE).map((item) => item.json);
		expect(updated).toEqual(
			contacts.map((contact) => ({ id: contact.id, message: 'Contact updated successfully.' })),
		);

		// Each execution sent each contact once.
		const received = await sim().requests();
		expect(received.flatMap(specProblems)).toEqual([]);
		expect(
			received.every((request) => request.method === 'PUT' && request.path === CONTACT_PATH),
		).toBe(true);
		expect(received).toHaveLength(contacts.length * rows.length);
		const counts: Record<string, number> = {};
		for (const request of received) counts[request.query.id] = (counts[request.query.id] ?? 0) + 1;
		expect(counts).toEqual(
			Object.fromEntries(contacts.map((contact) => [contact.id, rows.length])),
		);

		// n8n's log has the node's summary line for each execution, never the key.
		const summaries = n8n()
			.log()
			.match(
				new RegExp(
					`Voice Assistant "${UPDATE}": done: ${contacts.length} items in [0-9.]+ s: ${contacts.length} succeeded, 0 failed`,
					'g',
				),
			);
		expect(summaries?.length).toBe(rows.length);
		expect(n8n().log()).not.toContain(API_KEY);
	});
});
