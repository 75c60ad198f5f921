/**
 * The console's promotions pages (issue 30, docs/promotions.md) in Chromium, against the provider
 * and the reference casino: a casino admin creates a tournament in the form, sees its leaderboard
 * as rounds are played, and after the end each rank's promo credit, credited; a prize drop's page
 * shows its committed hash and its awards; another casino's staff cannot open either (UI and API),
 * and cancelling is an admin's. The reconciliation page shows the promo credits apart from paid
 * and free-bet money (totals columns, the "Money" filter, the CSV), pending ones too.
 * Screenshots: docs/screenshots/admin-promotion*.png, admin-reconciliation-promo.png.
 */
import { startReferenceCasino, type ReferenceCasino } from '@gp/reference-casino';
import type { Browser } from 'playwright-core';
import { readFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { adminHeaders, createTestApp, type TestApp } from '../../services/provider/test/helpers/app.js';
import { createAccount } from '../../services/provider/src/staff/staff.js';
import { apiFromPage, launchBrowser, newPage, screenshot, signIn } from './helpers/browser.js';

const PASSWORD = 'console-password-0123';
const secretOf = (id: string) => `secret-of-${id}-0123456789abcdef`;
const OPS = [
  { id: 'promo-a-usd', tenant: 'promo-a' },
  { id: 'promo-b-usd', tenant: 'promo-b' },
];

let t: TestApp;
let casino: ReferenceCasino;
let browser: Browser;
let base = '';

async function play(operatorId: string, playerRef: string, displayName: string, stakes: number[]): Promise<void> {
  casino.createPlayer({ playerRef, displayName, balance: '1000', currency: 'USD' });
  const token = casino.issueLaunchToken(playerRef, { operatorId });
  const session = (await t.app.inject({ method: 'POST', url: '/api/sessions', payload: { operatorId, launchToken: token } })).json();
  for (const [i, amount] of stakes.entries()) {
    const res = await t.app.inject({
      method: 'POST',
      url: '/api/bets',
      payload: {
        sessionId: session.sessionId,
        gameType: 'dice',
        amount,
        idempotencyKey: `${playerRef}-${i}-${Date.now()}`,
        params: { target: 50.5, direction: 'over' },
      },
    });
    expect(res.statusCode, res.body).toBe(200);
  }
}

beforeAll(async () => {
  casino = await startReferenceCasino({ operators: Object.fromEntries(OPS.map((o) => [o.id, { secret: secretOf(o.id), currency: 'USD', decimals: 2 }])) });
  t = await createTestApp({
    listen: true,
    config: { rateLimits: { authFailuresPerMinute: 1000, sessionPerMinute: 1_000_000, ipPerMinute: 1_000_000, loginPerMinute: 1000 } },
  });
  t.services.config.promotions.graceSeconds = 0;
  t.services.config.promotions.leaderboardCacheMs = 0;
  base = t.url;
  for (const o of OPS) {
    const res = await t.app.inject({
      method: 'PUT',
      url: `/api/admin/operators/${o.id}`,
      headers: adminHeaders,
      payload: {
        currency: 'USD',
        callbackBaseUrl: casino.url,
        sharedSecret: secretOf(o.id),
        minBet: 0.1,
        maxBet: 100,
        stakeStep: 0.01,
        maxPayout: 10_000,
        tenantId: o.tenant,
      },
    });
    expect(res.statusCode, res.body).toBe(201);
  }
  await createAccount(t.services.db, { email: 'ops@promo-a.test', password: PASSWORD, role: 'admin', tenantId: 'promo-a' });
  await createAccount(t.services.db, { email: 'viewer@promo-a.test', password: PASSWORD, role: 'viewer', tenantId: 'promo-a' });
  await createAccount(t.services.db, { email: 'ops@promo-b.test', password: PASSWORD, role: 'admin', tenantId: 'promo-b' });
  browser = await launchBrowser();
});
afterAll(async () => {
  await browser?.close();
  await t?.close();
  await casino?.close();
});

describe('the promotions pages', () => {
  it('a casino admin creates a tournament, watches its leaderboard, and sees each rank credited after the end', async () => {
    const page = await newPage(browser);
    await signIn(page, base, 'ops@promo-a.test', PASSWORD);
    await page.goto(`${base}/admin/promotions`);
    await page.getByTestId('promo-new').click();
    await page.getByTestId('promo-name').fill('Weekend Dice Race');
    await page.getByTestId('promo-prizes').fill('100, 50, 25');
    await page.getByTestId('promo-create').click();
    await page.getByTestId('promo-leaderboard').waitFor();
    const promoId = page.url().split('/').pop()!;

    await play('promo-a-usd', 'alice', 'Alice Martin', [5, 4]);
    await play('promo-a-usd', 'bruno', 'Bruno Costa', [3]);
    await play('promo-a-usd', 'chen', 'Chen Wei', [2, 1.5]);
    await page.reload();
    await expect.poll(() => page.getByTestId('promo-leaderboard').locator('tbody tr').count()).toBe(3);
    expect(await page.getByTestId('promo-leaderboard').locator('tbody tr').first().textContent()).toContain('alice');
    await screenshot(page, 'admin-promotion-tournament');

    await t.services.db('promotions').where({ promo_id: promoId }).update({ ends_at: t.services.db.fn.now() });
    await t.services.promotions.tick();
    await page.reload();
    await expect.poll(() => page.getByTestId('promo-awarded').textContent()).toContain('3 / 3');
    const awards = page.getByTestId('promo-awards').locator('tbody tr');
    expect(await awards.count()).toBe(3);
    for (let i = 0; i < 3; i++) expect(await awards.nth(i).textContent()).toContain('credited');
    expect(casino.transactions().filter((tx) => tx.idempotencyKey.startsWith(`${promoId}:prize:`))).toHaveLength(3);
    await screenshot(page, 'admin-promotion-awards');

    // a prize drop, and the list
    const drop = await apiFromPage(page, 'POST', '/api/admin/promotions', {
      kind: 'prize_drop',
      operatorId: 'promo-a-usd',
      name: 'Drop & Win',
      prizes: [20, 10, 5],
      oneIn: 1,
      endsAt: new Date(Date.now() + 3_600_000).toISOString(),
    });
    expect(drop.status).toBe(201);
    await play('promo-a-usd', 'dana', 'Dana K', [1]);
    await t.services.promotions.tick();
    await page.goto(`${base}/admin/promotions`);
    await expect.poll(() => page.getByTestId('promo-table').locator('tbody tr').count()).toBe(2);
    await screenshot(page, 'admin-promotions');
    await page.getByTestId('promo-table').getByText('Drop & Win').click();
    await expect.poll(() => page.getByTestId('promo-awarded').textContent()).toContain('1 / 3');
    expect(await page.getByText('committed seed hash').count()).toBe(1);
    await screenshot(page, 'admin-promotion-drop');
    expect(page.problems).toEqual([]);

    // another casino's staff: not in their list, refused by the API
    const other = await newPage(browser);
    await signIn(other, base, 'ops@promo-b.test', PASSWORD);
    await other.goto(`${base}/admin/promotions`);
    await other.getByTestId('promo-table').waitFor();
    expect(await other.getByTestId('promo-table').textContent()).not.toContain('Weekend Dice Race');
    expect(await apiFromPage(other, 'GET', `/api/admin/promotions/${promoId}`)).toMatchObject({ status: 403, code: 'FORBIDDEN' });
    expect(await apiFromPage(other, 'GET', `/api/admin/promotions/${promoId}/awards`)).toMatchObject({ status: 403, code: 'FORBIDDEN' });
    await other.close();

    // a viewer reads but cannot create or cancel
    const viewer = await newPage(browser);
    await signIn(viewer, base, 'viewer@promo-a.test', PASSWORD);
    await viewer.goto(`${base}/admin/promotions`);
    await viewer.getByTestId('promo-table').waitFor();
    expect(await viewer.getByTestId('promo-new').count()).toBe(0);
    expect(
      await apiFromPage(viewer, 'POST', `/api/admin/promotions/${String((drop as unknown as { promoId?: string }).promoId ?? promoId)}/cancel`),
    ).toMatchObject({ status: 403 });
    await viewer.close();
    await page.close();
  });

  it('the reconciliation page shows promo credits apart from paid money, confirmed and pending, and exports them', async () => {
    // after the first test: the tournament's 3 prizes (100 + 50 + 25) and the drop's first (20) credited.
    // One more bet: it wins the running drop's next prize (10, oneIn 1) and a new drop's only one (7);
    // the casino answers 503 to both credits: they stay pending.
    const extra = await t.app.inject({
      method: 'POST',
      url: '/api/admin/promotions',
      headers: adminHeaders,
      payload: {
        kind: 'prize_drop',
        operatorId: 'promo-a-usd',
        name: 'Lucky 7',
        prizes: [7],
        oneIn: 1,
        endsAt: new Date(Date.now() + 3_600_000).toISOString(),
      },
    });
    expect(extra.statusCode, extra.body).toBe(201);
    await play('promo-a-usd', 'erin', 'Erin Shaw', [1]);
    casino.setFaults([{ path: '/wallet/credit', kind: 'status', status: 503 }]);
    await t.services.promotions.tick();
    casino.clearFaults();
    const pendingKeys = (await t.services.db('promotion_awards').where({ operator_id: 'promo-a-usd', callback_status: 'pending' })).map(
      (a: { idempotency_key: string }) => a.idempotency_key,
    );
    expect(pendingKeys).toHaveLength(2);

    const page = await newPage(browser);
    await signIn(page, base, 'ops@promo-a.test', PASSWORD);
    await page.getByRole('link', { name: 'Reconciliation' }).click();
    // the totals: the paid money, and the promo credits in their own columns (never in payouts or GGR)
    await page.getByTestId('totals-table').locator('tbody tr').first().waitFor();
    const totalsRow = page.getByTestId('totals-table').locator('tbody tr').filter({ hasText: 'promo-a-usd' }).first();
    await expect.poll(() => totalsRow.getByTestId('promo-credits').textContent()).toBe('195.00');
    expect(await totalsRow.getByTestId('promo-pending').textContent()).toMatch(/^17\.00\s*2$/);
    expect(await page.getByTestId('promo-pending-note').textContent()).toContain('2 promo credits not confirmed yet');
    const totals = (await t.app.inject({ method: 'GET', url: '/api/admin/reconciliation/totals?operatorId=promo-a-usd', headers: adminHeaders })).json()
      .totals as Record<string, unknown>[];
    expect(totals).toHaveLength(1);
    expect(totals[0]).toMatchObject({ promoCredits: 195, promoPending: 17, promoPendingCount: 2, freeBetPayouts: 0 });
    expect(Number(totals[0]!.ggr)).toBeCloseTo(Number(totals[0]!.stakes) - Number(totals[0]!.payouts) - Number(totals[0]!.rollbacks), 6);
    // the rows: rounds by default (no promo credit among them), the promo credits with their filter
    await page.getByTestId('recon-table').locator('tbody tr').first().waitFor();
    expect(new Set(await page.getByTestId('recon-table').locator('tbody tr td:nth-child(5)').allTextContents())).toEqual(new Set(['Paid']));
    await page.getByTestId('recon-money').selectOption('promo');
    await page.getByTestId('recon-apply').click();
    await expect.poll(() => page.getByTestId('recon-table').locator('tbody tr').count()).toBe(6);
    expect(new Set(await page.getByTestId('recon-table').locator('tbody tr td:nth-child(5)').allTextContents())).toEqual(new Set(['Promo']));
    expect(await page.getByTestId('recon-table').locator('tbody tr').filter({ hasText: 'Credit pending' }).count()).toBe(2);
    expect(await page.getByTestId('recon-table').textContent()).toContain('prize 1');
    await screenshot(page, 'admin-reconciliation-promo');
    // the CSV follows the filter: one line per promo credit, its kind, promotion and prize
    const [download] = await Promise.all([page.waitForEvent('download'), page.getByTestId('export-csv').click()]);
    const csv = readFileSync((await download.path())!, 'utf8')
      .trim()
      .split('\r\n');
    expect(csv[0]).toBe(
      'createdAt,type,status,operatorId,roundId,playerRef,gameType,amount,currency,casinoTransactionId,idempotencyKey,money,campaignId,promoId,prize,sourceRoundId',
    );
    expect(csv).toHaveLength(1 + 6);
    for (const line of csv.slice(1)) expect(line).toMatch(/,promo,,[0-9a-f-]{36},\d+,/);
    expect(
      csv
        .filter((l) => l.includes(',credit_pending,pending,'))
        .map((l) => l.split(',')[10])
        .sort(),
    ).toEqual([...pendingKeys].sort());
    expect(page.problems).toEqual([]);
    await page.close();
  });
});
