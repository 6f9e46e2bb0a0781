import type { BrowserContext } from 'playwright-core';

export const CHROMIUM: string;
export function openLoopbackBrowser(options: { url: string; cookie: string; viewport: { width: number; height: number } }): Promise<{ context: BrowserContext; close: () => Promise<void> }>;
