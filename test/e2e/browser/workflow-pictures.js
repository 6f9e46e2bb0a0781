'use strict';

/**
 * Pictures of saved workflows on n8n's canvas, in a real browser (Debian's Chromium, driven by
 * playwright-core, as editor-check.js does; nothing is downloaded and the browser reaches only
 * this machine). For each workflow it opens the editor, fits the workflow to the view and saves
 * a PNG of the canvas. The README's recipe pictures are made this way by the recipe suite.
 */

const fs = require('fs');
const path = require('path');
const { CHROMIUM, openLoopbackBrowser } = require('./chromium');

const VIEWPORT = { width: 1400, height: 800 };

/**
 * @param {{ url: string, cookie: string, outDir: string, workflows: Array<{ id: string, file: string }>, log?: (line: string) => void }} options
 * @returns {Promise<string[]>} the PNG files written
 */
async function workflowPictures({ url, cookie, outDir, workflows, log = () => {} }) {
	fs.mkdirSync(outDir, { recursive: true });
	const { context, close } = await openLoopbackBrowser({ url, cookie, viewport: VIEWPORT });
	const written = [];
	try {
		const page = context.pages()[0] ?? (await context.newPage());
		page.setDefaultTimeout(90_000);
		// Only the workflow: no toasts, banners, canvas buttons, tabs or "Execute workflow" over it.
		const hide = [
			'.el-notification',
			'[data-test-id="banners"]',
			'[data-test-id="ask-assistant-floating-button"]',
			'.vue-flow__panel',
			'[data-test-id="execute-workflow-button"]',
			'[role="tablist"]',
		].join(', ');
		for (const { id, file } of workflows) {
			const started = Date.now();
			await page.goto(`${url}/workflow/${id}`);
			await page.locator('[data-test-id="canvas-node"]').first().waitFor();
			const fit = page.locator('[data-test-id="zoom-to-fit"]');
			if (await fit.count()) await fit.first().click();
			else await page.keyboard.press('1');
			await page.addStyleTag({ content: `${hide} { visibility: hidden !important; }` });
			await page
				.getByRole('button', { name: 'Execute workflow', exact: true })
				.evaluateAll((buttons) =>
					buttons.forEach((button) => (button.style.visibility = 'hidden')),
				);
			await page.waitForTimeout(800);
			const canvas = page
				.locator('[data-test-id="canvas-wrapper"], [data-test-id="canvas"]')
				.first();
			const png = path.join(outDir, `${file}.png`);
			// Without the tab bar above and the canvas buttons on the right edge.
			const box = (await canvas.count()) ? await canvas.boundingBox() : undefined;
			const area = box ?? { x: 0, y: 0, ...VIEWPORT };
			const clip = { x: area.x, y: area.y + 24, width: area.width - 90, height: area.height - 24 };
			await page.screenshot({ path: png, animations: 'disabled', clip });
			written.push(png);
			log(`${file}.png in ${Math.round((Date.now() - started) / 100) / 10} s`);
		}
	} finally {
		await close();
	}
	return written;
}

module.exports = { CHROMIUM, workflowPictures };
