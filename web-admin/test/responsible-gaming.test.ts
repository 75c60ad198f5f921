/**
 * The console's responsible-gaming fields (issue 27) in Chromium against the provider: a preset
 * (UK Gambling Commission RTS) fills the fields, an override per jurisdiction is added as JSON,
 * the API stores exactly that; a JSON mistake is said in the form before any request; the
 * "None" preset clears the rules. Screenshot docs/screenshots/admin-responsible-gaming.png.
 */
import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { adminHeaders, createTestApp, type TestApp } from '../../services/provider/test/helpers/app.js';
import { createAccount } from '../../services/provider/src/staff/staff.js';
import { RESPONSIBLE_GAMING_PRESETS } from '../../services/provider/src/operators/responsible-gaming.js';
import { launchBrowser, newPage, screenshot, signIn } from './helpers/browser.js';

const PASSWORD = 'console-password-0123';
let t: TestApp;
let browser: Browser;

beforeAll(async () => {
  t = await createTestApp({
    listen: true,
    config: { rateLimits: { authFailuresPerMinute: 1000, sessionPerMinute: 1_000_000, ipPerMinute: 1_000_000, loginPerMinute: 1000 } },
  });
  const res = await t.app.inject({
    method: 'PUT',
    url: '/api/admin/operators/rg-gbp',
    headers: adminHeaders,
    payload: {
      currency: 'GBP',
      callbackBaseUrl: 'sandbox://demo-casino',
      sharedSecret: 'shared-secret-0123456789abcdef',
      minBet: 0.1,
      stakeStep: 0.01,
      maxPayout: 10_000,
      tenantId: 'casino-uk',
    },
  });
  if (res.statusCode !== 201) throw new Error(res.body);
  await createAccount(t.services.db, { email: 'root@provider.test', password: PASSWORD, role: 'platform_admin', tenantId: null });
  browser = await launchBrowser();
});
afterAll(async () => {
  await browser?.close();
  await t?.close();
});

const stored = async () => (await t.app.inject({ method: 'GET', url: '/api/admin/operators/rg-gbp', headers: adminHeaders })).json().responsibleGaming;

describe('responsible gaming in the profile form', () => {
  it('fills the fields from the UKGC preset, saves an override per jurisdiction, refuses bad JSON in the form, and clears the rules with None', async () => {
    const page = await newPage(browser);
    await signIn(page, t.url, 'root@provider.test', PASSWORD);
    await page.goto(`${t.url}/admin/operators/rg-gbp/edit`);
    await page.getByTestId('rg-fieldset').waitFor();
    expect(await page.getByTestId('f-rg-on').isChecked()).toBe(false);
    await page.getByTestId('f-rg-preset').selectOption('ukgc');
    expect(await page.getByTestId('f-rg-on').isChecked()).toBe(true);
    expect(await page.getByTestId('f-rg-autobet').inputValue()).toBe('limited');
    expect(await page.getByTestId('f-rg-interval').inputValue()).toBe('2500');
    expect(await page.getByTestId('f-rg-reality').inputValue()).toBe('60');
    await page.getByTestId('f-rg-jurisdictions').fill('{"MT": {"minRoundIntervalMs": 0}, "CA-ON": ');
    await page.getByTestId('profile-submit').click();
    await expect.poll(() => page.getByTestId('profile-form').textContent()).toContain('Write a JSON object');
    expect(await stored()).toBeNull();
    await page.getByTestId('f-rg-jurisdictions').fill('{"MT": {"minRoundIntervalMs": 0}, "ca-on": {"autobet": "disabled"}}');
    await screenshot(page, 'admin-responsible-gaming');
    await page.getByTestId('profile-submit').click();
    await expect
      .poll(stored)
      .toEqual({ ...RESPONSIBLE_GAMING_PRESETS.ukgc.value, jurisdictions: { MT: { minRoundIntervalMs: 0 }, 'CA-ON': { autobet: 'disabled' } } });

    await page.goto(`${t.url}/admin/operators/rg-gbp/edit`);
    await page.getByTestId('rg-fieldset').waitFor();
    expect(await page.getByTestId('f-rg-interval').inputValue()).toBe('2500');
    await page.getByTestId('f-rg-interval').fill('70000');
    await page.getByTestId('profile-submit').click();
    await expect.poll(() => page.getByTestId('profile-form').textContent()).toMatch(/60000/);
    await page.getByTestId('f-rg-preset').selectOption('none');
    expect(await page.getByTestId('f-rg-on').isChecked()).toBe(false);
    await page.getByTestId('profile-submit').click();
    await expect.poll(stored).toBeNull();
    expect(page.problems).toEqual([]);
    await page.context().close();
  });
});
