/** Contact updates mapped from input rows by id, run in n8n's engine against a test's simulator. */
import type { INodeExecutionData, INodeParameters } from 'n8n-workflow';
import type { Simulator } from '../simulator';
import { API_KEY, segmentContactParameters } from './fixtures';
import { runNode, type RunOptions } from './runNode';

/** Input rows `c-0`, `c-1`, …: one contact each. */
export const rows = (count: number): INodeExecutionData[] =>
	Array.from({ length: count }, (_, i) => ({ json: { id: `c-${i}` } }));

/** Input rows `contact-0`, `contact-1`, …, each with a last name `L0`, `L1`, …. */
export const namedRows = (count: number): INodeExecutionData[] =>
	Array.from({ length: count }, (_, i) => ({ json: { id: `contact-${i}`, last_name: `L${i}` } }));

/** Segment Contact → Update of each named row: its id and its last name. */
export const byColumns: INodeParameters = {
	...segmentContactParameters,
	contactId: '={{ $json.id }}',
	contactLastName: '={{ $json.last_name }}',
};

/** Segment Contact → Update of each row's id, with these Options. */
export const contacts = (options: INodeParameters = {}): INodeParameters => ({
	...segmentContactParameters,
	contactId: '={{ $json.id }}',
	options,
});

/** Runs the node on `items` with the test credential pointing at `sim()`. */
export const runAgainst =
	(sim: () => Simulator) =>
	async (
		parameters: INodeParameters,
		items: INodeExecutionData[],
		more: Partial<RunOptions> = {},
	) =>
		await runNode({
			parameters,
			items,
			credentials: { apiKey: API_KEY, baseUrl: sim().url },
			...more,
		});
