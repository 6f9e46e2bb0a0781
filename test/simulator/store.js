'use strict';

/**
 * The simulator's data, optionally persisted to a JSON file so the demo keeps
 * what it created across runs.
 */

const fs = require('fs');
const path = require('path');
const { defaultAssistants, defaultKnowledgeBases } = require('./seed');

/**
 * @typedef {{ title: string, language: string, data: Array<{question: string, answer: string}> }} KnowledgeBase
 * @typedef {{
 *   assistants: Array<Record<string, unknown>>,
 *   knowledgeBases: Record<string, KnowledgeBase>,
 *   contacts: Record<string, Record<string, unknown>>,
 *   calls: Array<Record<string, unknown>>,
 * }} Data
 */

/** @param {string} file @returns {Partial<Data> | undefined} */
function load(file) {
	if (!fs.existsSync(file)) return undefined;
	try {
		return JSON.parse(fs.readFileSync(file, 'utf8'));
	} catch (error) {
		throw new Error(`Cannot read simulator data file ${file}: ${error.message}`);
	}
}

/** Writes through a temporary file so a crash never leaves half a file. @param {string} file @param {Data} data */
function save(file, data) {
	fs.mkdirSync(path.dirname(file), { recursive: true });
	const tmp = `${file}.${process.pid}.tmp`;
	fs.writeFileSync(tmp, JSON.stringify(data, null, 2) + '\n');
	fs.renameSync(tmp, file);
}

/**
 * @param {{ assistants?: Array<Record<string, unknown>>, dataFile?: string, saveDelayMs?: number }} options
 *   An explicit `assistants` list wins over the file's; everything else comes
 *   from the file when it exists, else from the seed.
 */
function createStore({ assistants, dataFile, saveDelayMs = 200 }) {
	const saved = dataFile ? load(dataFile) : undefined;
	/** @type {Data} */
	const data = {
		assistants: assistants ?? saved?.assistants ?? defaultAssistants(),
		knowledgeBases: saved?.knowledgeBases ?? defaultKnowledgeBases(),
		contacts: saved?.contacts ?? {},
		calls: saved?.calls ?? [],
	};

	/** @type {NodeJS.Timeout | undefined} */
	let timer;

	function flush() {
		clearTimeout(timer);
		timer = undefined;
		if (dataFile) save(dataFile, data);
	}

	/** Saves soon: at most one write per saveDelayMs, even under constant load. */
	function changed() {
		if (!dataFile || timer) return;
		timer = setTimeout(flush, saveDelayMs);
		timer.unref();
	}

	return { data, changed, flush };
}

module.exports = { createStore };
