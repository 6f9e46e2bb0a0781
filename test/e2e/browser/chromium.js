'use strict';

/**
 * Debian's Chromium, driven by playwright-core (no browser is ever downloaded), for the editor
 * checks and the workflow pictures: headless, a fresh profile, reaching only this machine, logged
 * in to n8n with the session cookie.
 */

const fs = require('fs');
const os = require('os');
const path = require('path');

const CHROMIUM = '/usr/bin/chromium';
const CHROMIUM_ARGS = [
	...['--headless', '--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run'],
	...['--disable-background-networking', '--disable-component-update', '--disable-sync'],
];

/**
 * @param {{ url: string, cookie: string, viewport: { width: number, height: number } }} options
 * @returns {Promise<{ context: import('playwright-core').BrowserContext, close: () => Promise<void> }>} close also removes the profile
 */
async function openLoopbackBrowser({ url, cookie, viewport }) {
	if (!fs.existsSync(CHROMIUM))
		throw new Error(`${CHROMIUM} is missing: apt-get install -y chromium`);
	const { chromium } = require('playwright-core');
	const userDataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'va-chromium-'));
	const context = await chromium.launchPersistentContext(userDataDir, {
		executablePath: CHROMIUM,
		args: CHROMIUM_ARGS,
		viewport,
		timeout: 60_000,
	});
	// Loopback only: whatever the editor would fetch elsewhere (fonts, banners) is refused.
	await context.route('**/*', (route) => {
		const { hostname } = new URL(route.request().url());
		return ['127.0.0.1', 'localhost'].includes(hostname) ? route.continue() : route.abort();
	});
	const [name, ...value] = cookie.split('=');
	await context.addCookies([{ name, value: value.join('='), url }]);
	const close = async () => {
		await context.close();
		fs.rmSync(userDataDir, { recursive: true, force: true });
	};
	return { context, close };
}

module.exports = { CHROMIUM, openLoopbackBrowser };
