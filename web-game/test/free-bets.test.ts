/**
 * Free bets on the game page (docs/free-bets.md): "N free bets left" for the game on screen and a
 * button that uses one — a dice free bet settles with a credit only (the casino's ledger has no
 * debit) and the count goes down; a free Mines round opens and the board continues it.
 */
import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { adminHeaders } from '../../services/provider/test/helpers/app.js';
import { expectNoProblems, launchBrowser, newPage, shownMinor } from './helpers/browser.js';
import { startStack, type Stack } from './helpers/stack.js';

let browser: Browser;
let stack: Stack;
beforeAll(async () => {
  [browser, stack] = await Promise.all([launchBrowser(), startStack([{ operatorId: 'web-fb' }])]);
});
afterAll(async () => {
  await browser?.close();
  await stack?.close();
});

async function campaign(body: Record<string, unknown>): Promise<string> {
  const res = await stack.t.app.inject({
    method: 'POST',
    url: '/api/admin/free-bet-campaigns',
    headers: adminHeaders,
    payload: { operatorId: 'web-fb', amount: 1, betsPerPlayer: 2, expiresAt: new Date(Date.now() + 3_600_000).toISOString(), ...body },
  });
  expect(res.statusCode, res.body).toBe(201);
  return res.json().campaignId as string;
}

describe('free bets on the game page', () => {
  it('shows the free bets left for the game and plays one with no debit', async () => {
    const token = stack.player('web-fb-dice', 'web-fb', '5');
    await campaign({ gameType: 'dice', params: { target: 50, direction: 'over' }, playerRefs: ['web-fb-dice'] });
    await campaign({ gameType: 'limbo', params: { target: 2 }, playerRefs: ['web-fb-dice'] });
    const page = await newPage(browser);
    await page.goto(stack.launchUrl({ operatorId: 'web-fb', game: 'dice', token }));
    await page.locator('[data-testid=game-dice]').waitFor();
    const left = page.locator('[data-testid=free-bets-left]');
    await expect.poll(() => left.getAttribute('data-left')).toBe('2');
    expect(await left.textContent()).toContain('2 free bets left');

    const [resp] = await Promise.all([
      page.waitForResponse((r) => r.url().endsWith('/api/bets') && r.request().method() === 'POST'),
      page.locator('[data-testid=free-bet-use]').click(),
    ]);
    const answer = (await resp.json()) as { roundId: string; roundStatus: string; bet: { freeBetCampaignId?: string } };
    expect(answer.roundStatus).toBe('settled');
    expect(answer.bet.freeBetCampaignId).toBeTruthy();
    await page.locator('[data-testid=free-bet-message]').waitFor();
    await expect.poll(() => left.getAttribute('data-left')).toBe('1');

    const txs = stack.casino.transactions().filter((tx) => tx.roundId === answer.roundId);
    expect(txs.map((tx) => tx.type)).toEqual(['credit']);
    expect(txs[0]!.freeBet).toBe(true);
    expect(await shownMinor(page, 2)).toBe(stack.casinoBalance('web-fb-dice', 'web-fb'));
    expectNoProblems(page);
    await page.close();
  });

  it('a free Mines round opens on the board and the free bets run out', async () => {
    const token = stack.player('web-fb-mines', 'web-fb');
    await campaign({ gameType: 'mines', params: { mineCount: 3 }, betsPerPlayer: 1, playerRefs: ['web-fb-mines'] });
    const page = await newPage(browser);
    await page.goto(stack.launchUrl({ operatorId: 'web-fb', game: 'mines', token }));
    await page.locator('[data-testid=game-mines]').waitFor();
    await expect.poll(() => page.locator('[data-testid=free-bets-left]').getAttribute('data-left')).toBe('1');
    await page.locator('[data-testid=free-bet-use]').click();
    await expect.poll(() => page.locator('[data-testid=free-bets]').count()).toBe(0);
    await expect.poll(() => page.locator('[data-testid=tile-12]').isEnabled()).toBe(true);
    const row = await stack.t.services.db('rounds').where({ player_ref: 'web-fb-mines' }).first();
    expect(row.status).toBe('active');
    expect(row.free_bet_campaign_id).toBeTruthy();
    expect(stack.casino.transactions().filter((tx) => tx.playerRef === 'web-fb-mines')).toEqual([]);
    expectNoProblems(page);
    await page.close();
  });
});
