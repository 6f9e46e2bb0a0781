/** Types of workflow-pictures.js (plain CommonJS, like editor-check.js). */
export const CHROMIUM: string;
export function workflowPictures(options: {
	url: string;
	cookie: string;
	outDir: string;
	workflows: Array<{ id: string; file: string }>;
	log?: (line: string) => void;
}): Promise<string[]>;
