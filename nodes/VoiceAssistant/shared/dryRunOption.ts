/** The Dry Run switch every operation shows, and the notice the editor shows while it is on. */
import type { INodeProperties } from 'n8n-workflow';

export const DRY_RUN_PARAMETER = 'dryRun';

export const dryRunProperties: INodeProperties[] = [
	{
		displayName: 'Dry Run',
		name: DRY_RUN_PARAMETER,
		type: 'boolean',
		noDataExpression: true,
		default: false,
		description:
			'Whether to send nothing and output, for each input item, the request a real run would send (method, URL with query, JSON body; never the API key), or every problem found in the item. An invalid item does not stop a dry run; an item whose expression fails does, as n8n stops its own loop there (on n8n 2.39.4 and later, with On Error: Continue, that item gets the error from n8n and the others go on).',
	},
	{
		displayName:
			'Dry Run: nothing is sent. Each item comes out as the request it would make, or with every problem found in it.',
		name: 'dryRunNotice',
		type: 'notice',
		default: '',
		displayOptions: { show: { [DRY_RUN_PARAMETER]: [true] } },
	},
];
