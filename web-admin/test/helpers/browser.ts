/** Chromium (Debian's, no download) with pages that record uncaught errors and CSP refusals; screenshots under docs/screenshots/. */
import { mkdirSync } from 'node:fs';
import path from 'node:path';
import { chromium, type Browser, type Page } from 'playwright-core';
import { CHROMIUM, SCREENSHOT_DIR } from './built.js';

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

export type WatchedPage = Page & { problems: string[] };

export async function newPage(browser: Browser): Promise<WatchedPage> {
  const context = await browser.newContext({ viewport: { width: 1440, height: 900 }, acceptDownloads: true });
  const page = (await context.newPage()) as WatchedPage;
  page.problems = [];
  page.on('pageerror', (e) => page.problems.push(`pageerror: ${e.message}`));
  page.on('console', (m) => {
    if (m.type() === 'error' && /Content Security Policy|Refused to/i.test(m.text())) page.problems.push(`csp: ${m.text()}`);
  });
  return page;
}

export async function screenshot(page: Page, name: string): Promise<void> {
  mkdirSync(SCREENSHOT_DIR, { recursive: true });
  await page.screenshot({ path: path.join(SCREENSHOT_DIR, `${name}.png`), fullPage: true, animations: 'disabled' });
}

export async function signIn(page: Page, base: string, email: string, password: string): Promise<void> {
  await page.goto(`${base}/admin/login`);
  await page.getByTestId('login-email').fill(email);
  await page.getByTestId('login-password').fill(password);
  await page.getByTestId('login-submit').click();
  await page.getByTestId('user-email').waitFor();
}

/** An API call from inside the page, as the console makes it (session cookie + CSRF token). */
export function apiFromPage(page: Page, method: string, url: string, body?: unknown): Promise<{ status: number; code?: string }> {
  return page.evaluate(
    async ([m, u, b]) => {
      const token = ((await (await fetch('/api/admin/auth/csrf')).json()) as { csrfToken: string }).csrfToken;
      const res = await fetch(u as string, {
        method: m as string,
        headers: { 'content-type': 'application/json', 'x-csrf-token': token },
        body: b === undefined ? undefined : JSON.stringify(b),
      });
      const json = (await res.json().catch(() => ({}))) as { code?: string };
      return { status: res.status, code: json.code };
    },
    [method, url, body] as const,
  );
}
