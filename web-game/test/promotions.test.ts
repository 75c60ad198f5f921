/**
 * Promotions on the game page (issue 30, docs/promotions.md): a running tournament's leaderboard
 * (top 10 by masked display name, the player's own rank below them, the time left, the prizes) at
 * 1280 px and 360 px, in the four languages without a missing key; a prize drop won by the
 * player's bet shows a notice, and once the drop is over the in-browser verifier recomputes its
 * awards from the revealed seed. Screenshots in docs/screenshots/promo-*.png.
 */
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { adminHeaders } from '../../services/provider/test/helpers/app.js';
import { DESKTOP, expectNoProblems, launchBrowser, MOBILE, newPage, screenshot } from './helpers/browser.js';
import { startStack, type Stack } from './helpers/stack.js';

let browser: Browser;
let stack: Stack;
const OP = 'web-promo';
const NAMES = [
  'Alice Martin',
  'Bruno Costa',
  'Chen Wei',
  'Dana Kowalski',
  'Emre Yilmaz',
  'Fatima Zahra',
  'Gustav Berg',
  'Hana Sato',
  'Ivan Petrov',
  'Julia Rossi',
  'Kwame Mensah',
  'Lena Vogel',
];
let myToken = '';
let mySession = '';

async function inject(method: 'GET' | 'POST', url: string, payload?: Record<string, unknown>) {
  const res = await stack.t.app.inject({ method, url, headers: adminHeaders, ...(payload ? { payload } : {}) });
  expect(res.statusCode, res.body).toBeLessThan(300);
  return res.json();
}

async function playerWithBets(ref: string, displayName: string, stakes: number[]): Promise<{ token: string; sessionId: string }> {
  stack.casino.createPlayer({ playerRef: ref, displayName, balance: '1000', currency: 'USD' });
  const token = stack.casino.issueLaunchToken(ref, { operatorId: OP });
  const session = await inject('POST', '/api/sessions', { operatorId: OP, launchToken: token, gameType: 'dice', launchMode: 'lobby' });
  for (const [i, amount] of stakes.entries())
    await inject('POST', '/api/bets', {
      sessionId: session.sessionId,
      gameType: 'dice',
      amount,
      idempotencyKey: `${ref}-${i}`,
      params: { target: 50, direction: 'over' },
    });
  return { token, sessionId: session.sessionId as string };
}

beforeAll(async () => {
  [browser, stack] = await Promise.all([launchBrowser(), startStack([{ operatorId: OP }])]);
  stack.t.services.config.promotions.graceSeconds = 0;
  stack.t.services.config.promotions.leaderboardCacheMs = 0;
  await inject('POST', '/api/admin/promotions', {
    kind: 'tournament',
    operatorId: OP,
    name: 'Weekend Dice Race',
    games: ['dice'],
    scoring: 'wagered',
    prizes: [100, 50, 25, 10, 5],
    endsAt: new Date(Date.now() + 26 * 3_600_000 + 15 * 60_000).toISOString(),
  });
  for (const [i, name] of NAMES.entries()) await playerWithBets(`bot-${i}`, name, [i + 1, 0.5]);
  const me = await playerWithBets('me', 'Maria Silva', [1.6]);
  myToken = me.token;
  mySession = me.sessionId;
});
afterAll(async () => {
  await browser?.close();
  await stack?.close();
});

async function openGame(viewport: typeof DESKTOP, lang = 'en'): Promise<Page & { problems: string[] }> {
  const page = await newPage(browser, viewport);
  await page.goto(stack.launchUrl({ operatorId: OP, game: 'dice', token: myToken, lang }));
  await page.locator('[data-testid=game-dice]').waitFor();
  await page.locator('[data-testid=tournament]').waitFor();
  return page;
}

describe('the leaderboard panel', () => {
  it('shows the top 10 by masked name, the player below them, the time left and the prizes (1280 px and 360 px)', async () => {
    for (const [viewport, name] of [
      [DESKTOP, 'promo-leaderboard-desktop'],
      [MOBILE, 'promo-leaderboard-mobile'],
    ] as const) {
      const page = await openGame(viewport);
      expect(await page.locator('[data-testid=tournament-you]').textContent()).toBe('You: #12 of 13');
      expect(await page.locator('[data-testid=tournament-time]').textContent()).toMatch(/^1 days left$|^26h \d\dm left$|^\d+ days left$/);
      await page.locator('[data-testid=tournament-toggle]').click();
      const rows = page.locator('[data-testid=leaderboard-row]');
      await expect.poll(() => rows.count()).toBe(10);
      expect(await rows.first().textContent()).toContain('L***l'); // Lena Vogel wagered the most (12.50)
      expect(await rows.first().textContent()).toContain('100.00 USD');
      const you = page.locator('[data-testid=leaderboard-you]');
      expect(await you.getAttribute('data-rank')).toBe('12');
      expect(await you.textContent()).toContain('Maria Silva (you)');
      // no playerRef reaches the page
      expect(await page.locator('[data-testid=promotions]').textContent()).not.toContain('bot-');
      // the panel fits: no horizontal scroll at this width
      expect(await page.evaluate(() => document.documentElement.scrollWidth <= window.innerWidth)).toBe(true);
      await screenshot(page, name);
      expectNoProblems(page);
      await page.close();
    }
  });

  it('speaks the four languages without a missing key', async () => {
    const expected: Record<string, string> = { en: 'You: #12 of 13', es: 'Tú: #12 de 13', 'pt-BR': 'Você: #12 de 13', de: 'Du: Platz 12 von 13' };
    for (const [lang, text] of Object.entries(expected)) {
      const page = await openGame(MOBILE, lang);
      expect(await page.locator('[data-testid=tournament-you]').textContent()).toBe(text);
      await page.locator('[data-testid=tournament-toggle]').click();
      await page.locator('[data-testid=leaderboard]').waitFor();
      expect(await page.evaluate(() => (window as unknown as { __gpMissingKeys?: string[] }).__gpMissingKeys)).toEqual([]);
      if (lang === 'de') await screenshot(page, 'promo-leaderboard-de-mobile');
      await page.close();
    }
  });
});

describe('a won prize drop', () => {
  it('shows the win, and the verifier recomputes the drop once its seed is revealed', async () => {
    const drop = await inject('POST', '/api/admin/promotions', {
      kind: 'prize_drop',
      operatorId: OP,
      name: 'Drop & Win',
      games: ['dice'],
      prizes: [20, 10, 5],
      oneIn: 1,
      endsAt: new Date(Date.now() + 3_600_000).toISOString(),
    });
    const page = await openGame(MOBILE);
    await page.locator('[data-testid=drop]').waitFor();
    expect(await page.locator('[data-testid=drop-left]').textContent()).toBe('3 of 3 prizes left');
    await inject('POST', '/api/bets', {
      sessionId: mySession,
      gameType: 'dice',
      amount: 1,
      idempotencyKey: 'me-drop-1',
      params: { target: 50, direction: 'over' },
    });
    await stack.t.services.promotions.tick();
    const win = page.locator('[data-testid=promo-win]');
    await expect.poll(() => win.count(), { timeout: 15_000 }).toBe(1);
    expect(await win.textContent()).toContain('You won 20.00 USD in a prize drop!');
    expect(stack.casino.transactions().filter((tx) => tx.idempotencyKey === `${drop.promoId}:prize:0`)).toHaveLength(1);
    await screenshot(page, 'promo-drop-won-mobile');

    // while the drop runs the verifier shows the committed hash only
    await page.locator('[data-testid=promo-verify]').click();
    await expect.poll(() => page.locator('[data-testid=drop-check]').getAttribute('data-state')).toBe('secret');
    await page.locator('[data-testid=promo-verify]').click();

    // the drop ends: its last draw, the seed revealed, the awards recomputed in the browser
    await stack.t.services.db('promotions').where({ promo_id: drop.promoId }).update({ ends_at: stack.t.services.db.fn.now() });
    await stack.t.services.promotions.tick();
    await page.setViewportSize(DESKTOP);
    await page.locator('[data-testid=promo-verify]').click();
    await expect.poll(() => page.locator('[data-testid=drop-check]').getAttribute('data-state')).toBe('verified');
    expect(await page.locator('[data-testid=drop-verified]').textContent()).toContain('Drop verified ✓ prizes recomputed: 1 · bets drawn: 1');
    await screenshot(page, 'promo-drop-verified-desktop');
    expectNoProblems(page);
    await page.close();
  });
});
