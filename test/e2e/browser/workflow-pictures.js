'use strict';

/**
 * Pictures of saved workflows on n8n's canvas, in a real browser (Debian's Chromium, driven by
 * playwright-core, as editor-check.js does; nothing is downloaded and the browser reaches only
 * this machine). For each workflow it opens the editor, fits the workflow to the view and saves
 * a PNG of the canvas. The README's recipe pictures are made this way by the recipe suite.
 */

const fs = require('fs');
const os = require('os');
const path = require('path');

const CHROMIUM = '/usr/bin/chromium';
const CHROMIUM_ARGS = [
	...['--headless', '--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run'],
	...['--disable-background-networking', '--disable-component-update', '--disable-sync'],
];
const VIEWPORT = { width: 1400, height: 800 };

/**
 * @param {{ url: string, cookie: string, outDir: string, workflows: Array<{ id: string, file: string }>, log?: (line: string) => void }} options
 * @returns {Promise<string[]>} the PNG files written
 */
async function workflowPictures({ url, cookie, outDir, workflows, log = () => {} }) {
	if (!fs.existsSync(CHROMIUM)) throw new Error(`${CHROMIUM} is missing: apt-get install -y chromium`);
	fs.mkdirSync(outDir, { recursive: true });
	const { chromium } = require('playwright-core');
	const userDataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'va-chromium-'));
	const context = await chromium.launchPersistentContext(userDataDir, {
		executablePath: CHROMIUM,
		args: CHROMIUM_ARGS,
		viewport: VIEWPORT,
		timeout: 60_000,
	});
	const written = [];
	try {
		await context.route('**/*', (route) => {
			const { hostname } = new URL(route.request().url());
			return ['127.0.0.1', 'localhost'].includes(hostname) ? route.continue() : route.abort();
		});
		const [name, ...value] = cookie.split('=');
		await context.addCookies([{ name, value: value.join('='), url }]);
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
				.evaluateAll((buttons) => buttons.forEach((button) => (button.style.visibility = 'hidden')));
			await page.waitForTimeout(800);
			const canvas = page.locator('[data-test-id="canvas-wrapper"], [data-test-id="canvas"]').first();
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
		await context.close();
		fs.rmSync(userDataDir, { recursive: true, force: true });
	}
	return written;
}

module.exports = { CHROMIUM, workflowPictures };
