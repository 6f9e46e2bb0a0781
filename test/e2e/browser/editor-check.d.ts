/** Types of editor-check.js (plain CommonJS so that it runs without a build, e.g. against the demo). */
export interface EditorPanel {
	file: string;
	node: string;
	parameters: Record<string, unknown>;
	labels: string[];
	picker?: boolean;
}

export interface EditorReport {
	credential: { test?: string; labels?: string[] };
	/** The actions the nodes panel lists for the node. */
	actions: string[];
	panels: Array<{ node: string; labels: string[]; missing: string[]; items: number }>;
	/** What the Assistant picker (From List) listed. */
	assistants: string[];
	pictures: string[];
	/** Empty when every check passed. */
	problems: string[];
}

export const ACTIONS: string[];
export const PANELS: EditorPanel[];
export const PICTURES: string[];
export function checkEditor(options: {
	url: string;
	email: string;
	password: string;
	outDir: string;
	only?: string[];
	assistants?: string[];
	expectLabels?: Record<string, string[]>;
	log?: (line: string) => void;
}): Promise<EditorReport>;
