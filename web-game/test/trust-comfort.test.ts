/**
 * The player's comfort on the game page (issue 12, item 7): autobet stops on profit, on loss, on
 * an error, on a currency switch (and when the page is hidden if the operator asks), each bet
 * with its own idempotency key and the stake rules applied; every language renders with no
 * missing key and its own number format; live stats with the profit chart; Space bets and can
 * be turned off; sound and hotkeys are remembered per player. Outcomes are made certain by
 * choosing the client seed (the shield's own field) against the player's committed server seed,
 * read from the database by the test.
 */
import type { Browser, Frame, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { floats } from '@gp/game-core/fairness';
import { DESKTOP, expectNoProblems, launchBrowser, MOBILE, newPage, screenshot, shownMinor } from './helpers/browser.js';
import { startCasinoPage, startStack, type CasinoPage, type Stack } from './helpers/stack.js';

let browser: Browser;
let stack: Stack;
let casinoPage: CasinoPage;

beforeAll(async () => {
  [browser, stack, casinoPage] = await Promise.all([
    launchBrowser(),
    startStack([
      { operatorId: 'auto-usd', tenantId: 'casino-c' },
      { operatorId: 'auto-eur', currency: 'EUR', tenantId: 'casino-c' },
      { operatorId: 'auto-hide', tenantId: 'casino-h', autobetStopOnHidden: true },
    ]),
    startCasinoPage(),
  ]);
});
afterAll(async () => {
  await browser?.close();
  await Promise.all([stack?.close(), casinoPage?.close()]);
});

type Target = Page | Frame;

async function dice(playerRef: string, operatorId = 'auto-usd', q: Record<string, string> = {}, viewport = DESKTOP) {
  const token = stack.player(playerRef, operatorId, '1000');
  const page = await newPage(browser, viewport);
  await page.goto(stack.launchUrl({ operatorId, game: 'dice', token, ...q }));
  await page.locator('[data-testid=game-dice]').waitFor();
  return page;
}

/** A client seed under which the player's next dice rolls (over 50.50) win or lose as wanted. */
async function clientSeedFor(operatorId: string, playerRef: string, wins: boolean[]): Promise<string> {
  const pair = await stack.t.services.db('seed_pairs').where({ operator_id: operatorId, player_ref: playerRef, revealed: false }).first();
  for (let i = 0; ; i++) {
    const seed = `auto-${i}`;
    const ok = wins.every((win, k) => Math.floor(floats(pair.server_seed, seed, BigInt(pair.next_nonce) + BigInt(k), 1)[0]! * 10001) > 5050 === win);
    if (ok) return seed;
  }
}

async function setClientSeed(target: Target, seed: string) {
  await target.locator('[data-testid=shield]').click();
  await target.locator('[data-testid=client-seed-input]').fill(seed);
  await target.locator('[data-testid=client-seed-save]').click();
  await target.locator('[data-testid=shield]').click();
}

async function setStake(target: Target, amount: string) {
  await target.locator('[data-testid=amount-input]').fill(amount);
  await target.locator('[data-testid=amount-input]').blur();
}

async function autobet(target: Target, o: { count?: string; onWin?: string; onLoss?: string; profit?: string; loss?: string }) {
  await target.locator('[data-testid=autobet-tab-auto]').click();
  await target.locator('[data-testid=autobet-count]').fill(o.count ?? '0');
  if (o.onWin) {
    await target.locator('[data-testid=autobet-win-increase]').click();
    await target.locator('[data-testid=autobet-win-pct]').fill(o.onWin);
  }
  if (o.onLoss) {
    await target.locator('[data-testid=autobet-loss-increase]').click();
    await target.locator('[data-testid=autobet-loss-pct]').fill(o.onLoss);
  }
  if (o.profit) await target.locator('[data-testid=autobet-stop-profit]').fill(o.profit);
  if (o.loss) await target.locator('[data-testid=autobet-stop-loss]').fill(o.loss);
  await target.locator('[data-testid=autobet-start]').click();
}

const stoppedWith = async (target: Target) => {
  const status = target.locator('[data-testid=autobet-status][data-state=stopped]');
  await status.waitFor({ timeout: 45_000 });
  return { reason: await status.getAttribute('data-reason'), bets: Number(await status.getAttribute('data-bets')) };
};

const roundsOf = (operatorId: string, playerRef: string) =>
  stack.t.services
    .db('rounds')
    .where({ operator_id: operatorId, player_ref: playerRef })
    .orderBy('created_at', 'asc')
    .select('round_id', 'amount', 'status', 'session_id', 'created_at', 'client_seed');

describe('autobet', () => {
  it('stops on profit: three certain wins of 1.00 at 2× reach a 2.50 target; every bet has its own idempotency key', async () => {
    const page = await dice('a-profit');
    const keys: string[] = [];
    page.on('request', (r) => {
      if (r.method() === 'POST' && r.url().endsWith('/api/bets')) keys.push(JSON.parse(r.postData() ?? '{}').idempotencyKey);
    });
    await setClientSeed(page, await clientSeedFor('auto-usd', 'a-profit', [true, true, true, false]));
    await setStake(page, '1.00');
    await autobet(page, { count: '0', profit: '2.50' });
    expect(await stoppedWith(page)).toEqual({ reason: 'profit', bets: 3 });
    const rounds = await roundsOf('auto-usd', 'a-profit');
    expect(rounds.map((r) => String(r.amount))).toEqual(['100', '100', '100']); // reset on win
    expect(rounds.every((r) => r.status === 'settled')).toBe(true);
    expect(new Set(keys).size).toBe(3);
    expect(keys).toHaveLength(3);
    expect(await shownMinor(page, 2)).toBe(stack.casinoBalance('a-profit', 'auto-usd'));
    await screenshot(page, 'autobet-desktop');
    expectNoProblems(page);
    await page.close();
  });

  it('stops on loss, doubling the stake after each loss (1.00, then 2.00: 3.00 lost reaches 2.50)', async () => {
    const page = await dice('a-loss');
    await setClientSeed(page, await clientSeedFor('auto-usd', 'a-loss', [false, false, false]));
    await setStake(page, '1.00');
    await autobet(page, { count: '10', onLoss: '100', loss: '2.50' });
    expect(await stoppedWith(page)).toEqual({ reason: 'loss', bets: 2 });
    expect((await roundsOf('auto-usd', 'a-loss')).map((r) => String(r.amount))).toEqual(['100', '200']);
    expect(await page.locator('[data-testid=amount-input]').inputValue()).toBe('2.00');
    expectNoProblems(page);
    await page.close();
  });

  it('stops after the number of bets asked for', async () => {
    const page = await dice('a-count');
    await setStake(page, '0.50');
    await autobet(page, { count: '3' });
    expect(await stoppedWith(page)).toEqual({ reason: 'count', bets: 3 });
    expect(await roundsOf('auto-usd', 'a-count')).toHaveLength(3);
    await page.close();
  });

  it('stops on an error and says why (the casino refuses a debit)', async () => {
    const page = await dice('a-error');
    await setStake(page, '1.00');
    const faults = async (rules: unknown[]) =>
      fetch(`${stack.casino.url}/_control/faults`, { method: 'PUT', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ rules }) });
    await faults([{ path: '/wallet/debit', kind: 'refuse', code: 'INSUFFICIENT_FUNDS', operatorId: 'auto-usd', times: 1 }]);
    try {
      await autobet(page, { count: '0' });
      expect(await stoppedWith(page)).toEqual({ reason: 'error', bets: 0 });
      expect(await page.locator('[data-testid=notice]').textContent()).toBe('Your balance is too low for this bet.');
    } finally {
      await faults([]);
    }
    expectNoProblems(page);
    await page.close();
  });

  it('stops before a currency switch: the bet in flight settles, the switch answers ok, no bet follows on either currency', async () => {
    const token = stack.player('a-switch', 'auto-usd', '1000');
    const eurToken = stack.player('a-switch', 'auto-eur', '300');
    const page = await newPage(browser);
    await page.goto(casinoPage.url(stack.launchUrl({ operatorId: 'auto-usd', game: 'dice', token, embed: '1' })));
    await page.waitForFunction(() => document.getElementById('game') !== null);
    const frame = (await (await page.locator('#game').elementHandle())!.contentFrame())!;
    await frame.locator('[data-testid=game-dice]').waitFor();
    await page.waitForFunction(() => (window as unknown as { messages: { data: { type: string } }[] }).messages.some((m) => m.data?.type === 'PROVIDER_READY'));
    await setStake(frame, '0.10');
    await autobet(frame, { count: '0' });
    await frame.locator('[data-testid=autobet-status][data-state=running]:not([data-bets="0"]):not([data-bets="1"])').waitFor();
    await page.evaluate(({ message, origin }) => (document.getElementById('game') as HTMLIFrameElement).contentWindow!.postMessage(message, origin), {
      message: { type: 'PROVIDER_SWITCH_CURRENCY', requestId: 'sw-auto', operatorId: 'auto-eur', launchToken: eurToken, game: 'dice', launchMode: 'single' },
      origin: stack.base,
    });
    await page.waitForFunction(() =>
      (window as unknown as { messages: { data: { type: string; requestId?: string } }[] }).messages.some((m) => m.data?.requestId === 'sw-auto'),
    );
    const answer = await page.evaluate(
      () => (window as unknown as { messages: { data: { requestId?: string } }[] }).messages.find((m) => m.data?.requestId === 'sw-auto')!.data,
    );
    expect(answer).toMatchObject({ ok: true, session: { operatorId: 'auto-eur', currency: 'EUR' } });
    await frame.locator('[data-testid=autobet-stopped][data-reason=switch]').waitFor();
    expect(await frame.locator('[data-testid=autobet-stopped]').textContent()).toContain('Autobet stopped for the currency switch.');
    // The new profile's game is idle in manual mode; every USD round settled before the EUR session began.
    expect(await frame.locator('[data-testid=autobet-tab-manual]').getAttribute('aria-selected')).toBe('true');
    const usd = await roundsOf('auto-usd', 'a-switch');
    expect(usd.length).toBeGreaterThanOrEqual(2);
    expect(usd.every((r) => r.status === 'settled')).toBe(true);
    const eurSession = await stack.t.services.db('sessions').where({ operator_id: 'auto-eur', player_ref: 'a-switch' }).first();
    for (const r of usd) expect(new Date(r.created_at).getTime()).toBeLessThanOrEqual(new Date(eurSession.created_at).getTime());
    expect(await roundsOf('auto-eur', 'a-switch')).toEqual([]);
    expect(await shownMinor(frame, 2)).toBe(30_000n);
    await page.close();
  });

  it('stops when the page is hidden, when the operator asks for it', async () => {
    const page = await dice('a-hidden', 'auto-hide');
    await setStake(page, '0.10');
    await autobet(page, { count: '0' });
    await page.locator('[data-testid=autobet-status][data-state=running]:not([data-bets="0"])').waitFor();
    await page.evaluate(() => {
      Object.defineProperty(document, 'visibilityState', { configurable: true, get: () => 'hidden' });
      document.dispatchEvent(new Event('visibilitychange'));
    });
    expect((await stoppedWith(page)).reason).toBe('hidden');
    await page.close();
  });
});

describe('languages', () => {
  const KEY_TEXT =
    /\b(app|games|bet|dice|limbo|plinko|keno|mines|blackjack|shield|verify|bets|status|replay|autobet|stats|settings|errors|screens|risk)\.[a-zA-Z_]+/;
  const cases = [
    ['en', 'en', '1,000.00', 'Bet'],
    ['es', 'es', '1.000,00', 'Apostar'],
    ['pt-BR', 'pt-BR', '1.000,00', 'Apostar'],
    ['de', 'de', '1.000,00', 'Setzen'],
    ['fr', 'en', '1,000.00', 'Bet'],
  ] as const;
  for (const [lang, shown, balance, betLabel] of cases) {
    it(`lang=${lang} renders in ${shown} with no missing key and its own number format`, async () => {
      const page = await dice(`l-${lang}`, 'auto-usd', { lang }, lang === 'pt-BR' ? MOBILE : DESKTOP);
      expect(await page.evaluate(() => document.documentElement.lang)).toBe(shown);
      expect(await page.locator('[data-testid=balance-value]').textContent()).toBe(balance);
      // the label, then the stake as the page understood it (issue 29)
      expect(await page.locator('[data-testid=bet-button]').textContent()).toBe(`${betLabel}${balance === '1,000.00' ? '10.00' : '10,00'} USD`);
      if (lang === 'de') {
        // German amounts are typed and shown with a decimal comma
        expect(await page.locator('[data-testid=amount-input]').inputValue()).toBe('10,00');
        await setStake(page, '1,5');
        expect(await page.locator('[data-testid=profit-on-win]').textContent()).toBe('1,50 USD');
      }
      const texts: string[] = [await page.locator('body').innerText()];
      await page.locator('[data-testid=autobet-tab-auto]').click();
      texts.push(await page.locator('body').innerText());
      await page.locator('[data-testid=stats-button]').click();
      texts.push(await page.locator('body').innerText());
      await page.locator('[data-testid=settings-button]').click();
      texts.push(await page.locator('body').innerText());
      await page.locator('[data-testid=settings-button]').click();
      for (const tab of ['seeds', 'verify', 'bets'] as const) {
        if ((await page.locator('[data-testid=side-panel]').count()) === 0) await page.locator('[data-testid=shield]').click();
        await page.locator(`[data-testid=shield-tab-${tab}]`).click();
        if (tab === 'verify') await page.locator('[data-testid=verifier]').waitFor();
        if (tab === 'bets') await page.locator('[data-testid=bets-empty]').waitFor();
        texts.push(await page.locator('body').innerText());
      }
      for (const text of texts) expect(text).not.toMatch(KEY_TEXT);
      expect(await page.evaluate(() => (window as unknown as { __gpMissingKeys?: string[] }).__gpMissingKeys)).toEqual([]);
      if (lang !== 'fr') await screenshot(page, `lang-${lang}-${lang === 'pt-BR' ? 'mobile' : 'desktop'}`);
      expectNoProblems(page);
      await page.close();
    });
  }
});

describe('live stats, hotkeys, sound', () => {
  it('Space bets; the stats count the bets with a profit chart; hotkeys and sound stay as the player set them', async () => {
    const page = await dice('h-sam');
    await setStake(page, '1.00');
    await page.locator('body').click({ position: { x: 5, y: 300 } });
    for (let i = 1; i <= 3; i++) {
      await Promise.all([page.waitForResponse((r) => r.url().endsWith('/api/bets')), page.keyboard.press('Space')]);
      await page.locator('[data-testid=bet-button]:not([disabled])').waitFor();
    }
    await expect.poll(async () => (await roundsOf('auto-usd', 'h-sam')).length).toBe(3);
    await page.locator('[data-testid=stats-button]').click();
    const minor = async (id: string) => BigInt((await page.locator(`[data-testid=${id}]`).getAttribute('data-minor')) ?? '0');
    await expect.poll(() => minor('stats-wagered')).toBe(300n);
    const wins = Number(await page.locator('[data-testid=stats-wins]').textContent());
    const losses = Number(await page.locator('[data-testid=stats-losses]').textContent());
    expect(wins + losses).toBe(3);
    expect(await minor('stats-profit')).toBe(BigInt(wins) * 100n - BigInt(losses) * 100n);
    expect(await page.locator('[data-testid=stats-chart]').getAttribute('data-points')).toBe('4');
    await screenshot(page, 'stats-desktop');

    await page.locator('[data-testid=settings-button]').click();
    await page.locator('[data-testid=setting-hotkeys]').uncheck();
    await page.locator('[data-testid=setting-sound]').uncheck();
    await page.reload();
    await page.locator('[data-testid=game-dice]').waitFor();
    await page.locator('[data-testid=settings-button]').click();
    expect(await page.locator('[data-testid=setting-hotkeys]').isChecked()).toBe(false);
    expect(await page.locator('[data-testid=setting-sound]').isChecked()).toBe(false);
    await page.locator('[data-testid=settings-button]').click();
    await page.locator('body').click({ position: { x: 5, y: 300 } });
    await page.keyboard.press('Space');
    await Promise.all([page.waitForResponse((r) => r.url().endsWith('/api/bets')), page.locator('[data-testid=bet-button]').click()]);
    await expect.poll(async () => (await roundsOf('auto-usd', 'h-sam')).length).toBe(4); // the click only
    expectNoProblems(page);
    await page.close();
  });
});
