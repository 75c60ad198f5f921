/** One Chromium per test file (Debian's, no download), pages with a fixed viewport, screenshots under docs/screenshots/. */
import { mkdirSync } from 'node:fs';
import path from 'node:path';
import { chromium, type Browser, type Frame, type Page } from 'playwright-core';
import { expect } from 'vitest';
import { SCREENSHOT_DIR } from './paths.js';

export const CHROMIUM = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';

export function launchBrowser(): Promise<Browser> {
  return chromium.launch({
    executablePath: CHROMIUM,
    args: [
      '--headless',
      '--no-sandbox',
      '--disable-gpu',
      '--disable-background-networking',
      '--disable-component-update',
      '--no-first-run',
      '--disable-dev-shm-usage',
    ],
  });
}

export const DESKTOP = { width: 1280, height: 800 };
export const MOBILE = { width: 360, height: 740 };

/** A page that fails the test on any uncaught error or CSP violation. */
export async function newPage(browser: Browser, viewport = DESKTOP): Promise<Page & { problems: string[] }> {
  const page = (await browser.newPage({ viewport, reducedMotion: 'no-preference' })) as Page & { problems: string[] };
  page.problems = [];
  page.on('pageerror', (e) => page.problems.push(`pageerror: ${e.message}`));
  page.on('console', (m) => {
    if (m.type() === 'error' && /Content Security Policy|Refused to/i.test(m.text())) page.problems.push(`csp: ${m.text()}`);
  });
  return page;
}

export function expectNoProblems(page: { problems: string[] }): void {
  expect(page.problems).toEqual([]);
}

/** Saves docs/screenshots/<name>.png (deterministic names; the README shows them). */
export async function screenshot(page: Page, name: string): Promise<void> {
  mkdirSync(SCREENSHOT_DIR, { recursive: true });
  await page.screenshot({ path: path.join(SCREENSHOT_DIR, `${name}.png`), fullPage: true, animations: 'disabled' });
}

/** The balance the page (or a frame of it) shows, in minor units. */
export async function shownMinor(target: Page | Frame, decimals: number): Promise<bigint> {
  const text = (await target.locator('[data-testid=balance-value]').textContent()) ?? '';
  const [int = '0', frac = ''] = text.replace(/,/g, '').trim().split('.');
  return BigInt(int + frac.padEnd(decimals, '0').slice(0, decimals));
}

/** An element's box in page coordinates (scrolling does not change it). */
export function pageBox(page: Page, selector: string): Promise<{ x: number; y: number; width: number; height: number }> {
  return page.locator(selector).evaluate((el) => {
    const r = el.getBoundingClientRect();
    return { x: r.x + window.scrollX, y: r.y + window.scrollY, width: r.width, height: r.height };
  });
}
