/**
 * The lobby, active rounds continued after a reload, the bet amount rules, keyboard play and the
 * screens of a launch that cannot start (issue 11 items 1, 2, 5, 6, 7).
 */
import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { expectNoProblems, launchBrowser, MOBILE, newPage, screenshot, shownMinor } from './helpers/browser.js';
import { playRound, waitForResult } from './helpers/play.js';
import { startStack, type Stack } from './helpers/stack.js';

let browser: Browser;
let stack: Stack;
let page: Awaited<ReturnType<typeof newPage>>;

beforeAll(async () => {
  [browser, stack] = await Promise.all([
    launchBrowser(),
    startStack([
      { operatorId: 'lob-usd', tenantId: 'acme' },
      { operatorId: 'lob-few', tenantId: 'acme', enabledGames: ['limbo', 'mines', 'blackjack'] },
    ]),
  ]);
  page = await newPage(browser);
});
afterAll(async () => {
  await browser?.close();
  await stack?.close();
});

const sessionsOf = async (playerRef: string) =>
  (await stack.t.services.db('sessions').where({ player_ref: playerRef }).select('session_id', 'game_type', 'launch_mode')) as {
    session_id: string;
    game_type: string | null;
    launch_mode: string;
  }[];

describe('lobby (mode=lobby)', () => {
  it('switches among the enabled games in one session, starting with game=', async () => {
    const token = stack.player('lob-ann', 'lob-usd');
    await page.goto(stack.launchUrl({ operatorId: 'lob-usd', game: 'keno', token, mode: 'lobby' }));
    await page.locator('[data-testid=game-keno]').waitFor();
    expect(await page.locator('[data-testid=game-switcher] button').evaluateAll((b) => b.map((x) => x.getAttribute('data-game')))).toEqual([
      'dice',
      'limbo',
      'plinko',
      'keno',
      'mines',
      'blackjack',
    ]);
    expect(await page.locator('[data-testid=game-switcher] [data-game=keno]').getAttribute('aria-current')).toBe('page');
    const keno = await playRound(page, 'keno');
    await screenshot(page, 'lobby-desktop');
    await page.locator('[data-testid=game-switcher] [data-game=limbo]').click();
    await page.locator('[data-testid=game-limbo]').waitFor();
    const limbo = await playRound(page, 'limbo');
    const [a, b] = [await stack.round(keno.roundId), await stack.round(limbo.roundId)];
    expect(a.session_id).toBe(b.session_id);
    expect(await sessionsOf('lob-ann')).toEqual([{ session_id: a.session_id, game_type: null, launch_mode: 'lobby' }]);
    expect(await shownMinor(page, 2)).toBe(stack.casinoBalance('lob-ann', 'lob-usd'));
    expectNoProblems(page);
  });

  it('lists only the operator’s enabled games and starts on the first one when game= is not among them', async () => {
    const token = stack.player('lob-bea', 'lob-few');
    await page.goto(stack.launchUrl({ operatorId: 'lob-few', game: 'dice', token, mode: 'lobby' }));
    await page.locator('[data-testid=game-limbo]').waitFor();
    expect(await page.locator('[data-testid=game-switcher] button').count()).toBe(3);
  });

  it('single mode hides the switcher', async () => {
    const token = stack.player('lob-cid', 'lob-usd');
    await page.goto(stack.launchUrl({ operatorId: 'lob-usd', game: 'plinko', token }));
    await page.locator('[data-testid=game-plinko]').waitFor();
    expect(await page.locator('[data-testid=game-switcher]').count()).toBe(0);
  });

  it('looks right at 360 px', async () => {
    const small = await newPage(browser, MOBILE);
    const token = stack.player('lob-dan', 'lob-usd');
    await small.goto(stack.launchUrl({ operatorId: 'lob-usd', game: 'mines', token, mode: 'lobby' }));
    await small.locator('[data-testid=game-mines]').waitFor();
    // nothing sticks out sideways
    expect(await small.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(360);
    await screenshot(small, 'lobby-mobile');
    await small.close();
  });
});

describe('an active round is shown and continued after a reload (a new session)', () => {
  it('mines', async () => {
    const token = stack.player('act-mia', 'lob-usd');
    const url = stack.launchUrl({ operatorId: 'lob-usd', game: 'mines', token });
    await page.goto(url);
    await page.locator('[data-testid=game-mines]').waitFor();
    await page.locator('[data-testid=mines-count]').selectOption('2');
    const [start] = await Promise.all([page.waitForResponse((r) => r.url().endsWith('/api/mines/rounds')), page.locator('[data-testid=bet-button]').click()]);
    const roundId = (await start.json()).roundId as string;
    await page.locator('[data-testid=cashout-button]').waitFor();

    await page.reload();
    await page.locator('[data-testid=cashout-button]').waitFor();
    expect(await page.locator('[data-testid=notice]').textContent()).toContain('open round is back');
    await expect.poll(() => page.locator('[data-testid=mines-count]').inputValue()).toBe('2');
    expect(await page.locator('[data-testid=amount-input]').isDisabled()).toBe(true);
    expect((await sessionsOf('act-mia')).length).toBe(2);
    // Continue it: reveal, then cash out if still alive.
    const [rev] = await Promise.all([page.waitForResponse((r) => r.url().includes('/reveal')), page.locator('[data-testid=tile-0]').click()]);
    const after = await rev.json();
    expect(after.roundId).toBe(roundId);
    if (after.roundStatus === 'active') await page.locator('[data-testid=cashout-button]').click();
    await waitForResult(page);
    expect(['cashed_out', 'busted']).toContain((await stack.round(roundId)).status);
    // every mine is shown at the end
    await expect.poll(() => page.locator('[data-testid^=tile-][data-state=mine], [data-testid^=tile-][data-state=boom]').count()).toBe(2);
    expect(await shownMinor(page, 2)).toBe(stack.casinoBalance('act-mia', 'lob-usd'));
  });

  it('blackjack', async () => {
    const token = stack.player('act-ben', 'lob-usd');
    await page.goto(stack.launchUrl({ operatorId: 'lob-usd', game: 'blackjack', token }));
    await page.locator('[data-testid=game-blackjack]').waitFor();
    let roundId = '';
    for (let i = 0; i < 10 && !roundId; i++) {
      const [res] = await Promise.all([
        page.waitForResponse((r) => r.url().endsWith('/api/blackjack/rounds')),
        page.locator('[data-testid=bet-button]').click(),
      ]);
      const j = await res.json();
      if (j.roundStatus === 'active') roundId = j.roundId;
      else await waitForResult(page);
    }
    expect(roundId).not.toBe('');
    await page.reload();
    await page.locator('[data-testid=blackjack-table][data-status=active]').waitFor();
    expect(await page.locator('[data-testid=dealer-cards] [data-card=back]').count()).toBe(1);
    const decline = page.locator('[data-testid=bj-decline]');
    if (await decline.count()) {
      await Promise.all([page.waitForResponse((r) => r.url().includes('/insurance')), decline.click()]);
    }
    if (await page.locator('[data-testid=bj-stand]').count()) await page.locator('[data-testid=bj-stand]').click();
    await waitForResult(page);
    expect((await stack.round(roundId)).status).toBe('settled');
    // the hole card is turned at settlement
    expect(await page.locator('[data-testid=dealer-cards] [data-card=back]').count()).toBe(0);
    expect(await shownMinor(page, 2)).toBe(stack.casinoBalance('act-ben', 'lob-usd'));
  });
});

describe('the bet amount follows minBet, maxBet, stakeStep and the decimals', () => {
  it('½, 2×, min, max and typed amounts', async () => {
    const token = stack.player('amt-cal', 'lob-usd');
    await page.goto(stack.launchUrl({ operatorId: 'lob-usd', game: 'dice', token }));
    const input = page.locator('[data-testid=amount-input]');
    const bet = page.locator('[data-testid=bet-button]');
    await input.waitFor();
    await expect.poll(() => input.inputValue()).toBe('10.00'); // 100 × minBet
    await page.locator('[data-testid=amount-max]').click();
    await expect.poll(() => input.inputValue()).toBe('100.00');
    await page.locator('[data-testid=amount-double]').click();
    await expect.poll(() => input.inputValue()).toBe('100.00');
    await page.locator('[data-testid=amount-half]').click();
    await expect.poll(() => input.inputValue()).toBe('50.00');
    await page.locator('[data-testid=amount-min]').click();
    await expect.poll(() => input.inputValue()).toBe('0.10');
    await page.locator('[data-testid=amount-half]').click();
    await expect.poll(() => input.inputValue()).toBe('0.10');
    await page.locator('[data-testid=amount-double]').click();
    await expect.poll(() => input.inputValue()).toBe('0.20');
    await input.fill('0.125');
    await expect.poll(() => page.locator('[data-testid=amount-hint]').textContent()).toBe('USD amounts have at most 2 decimals.');
    await expect.poll(() => bet.isDisabled()).toBe(true);
    await input.fill('0.05');
    await expect.poll(() => page.locator('[data-testid=amount-hint]').textContent()).toBe('The smallest bet is 0.10 USD.');
    await expect.poll(() => bet.isDisabled()).toBe(true);
    await input.fill('150');
    await expect.poll(() => page.locator('[data-testid=amount-hint]').textContent()).toBe('The largest bet is 100.00 USD.');
    await input.fill('2.5');
    await expect.poll(() => bet.isEnabled()).toBe(true);
    const [res] = await Promise.all([page.waitForRequest((r) => r.url().endsWith('/api/bets')), bet.click()]);
    expect(res.postData()).toContain('"amount":2.50');
    await waitForResult(page);
  });
});

describe('keyboard', () => {
  it('keno tiles, the dice slider and the bet button work with the keyboard', async () => {
    const token = stack.player('kb-kim', 'lob-usd');
    await page.goto(stack.launchUrl({ operatorId: 'lob-usd', game: 'keno', token }));
    await page.locator('[data-testid=keno-7]').focus();
    await page.keyboard.press('Enter');
    await page.locator('[data-testid=keno-8]').focus();
    await page.keyboard.press('Space');
    await expect.poll(() => page.locator('[data-testid=keno-7]').getAttribute('aria-pressed')).toBe('true');
    await expect.poll(() => page.locator('[data-testid=keno-8]').getAttribute('aria-pressed')).toBe('true');
    await page.locator('[data-testid=bet-button]').focus();
    const [res] = await Promise.all([page.waitForRequest((r) => r.url().endsWith('/api/bets')), page.keyboard.press('Enter')]);
    expect(JSON.parse(res.postData()!).params.picks).toEqual([7, 8]);
    await waitForResult(page);

    await page.goto(stack.launchUrl({ operatorId: 'lob-usd', game: 'dice', token: stack.token('kb-kim', 'lob-usd') }));
    await page.locator('[data-testid=dice-slider]').focus();
    await page.keyboard.press('ArrowRight');
    await expect.poll(() => page.locator('[data-testid=dice-target]').textContent()).toBe('50.51');
    await page.locator('[data-testid=dice-direction]').press('Enter');
    await expect.poll(() => page.locator('[data-testid=dice-direction]').getAttribute('data-direction')).toBe('under');
    await expect.poll(() => page.locator('[data-testid=dice-target]').textContent()).toBe('49.49');
  });
});

describe('a launch that cannot start shows a plain screen', () => {
  const screens: [string, () => Record<string, string>, string][] = [
    ['missing token', () => ({ operatorId: 'lob-usd', game: 'dice' }), 'missingParams'],
    ['invalid token', () => ({ operatorId: 'lob-usd', game: 'dice', token: 'nonsense' }), 'invalidSession'],
    [
      'expired token',
      () => {
        const token = stack.player('err-exp', 'lob-usd');
        stack.casino.revokeLaunchToken(token);
        return { operatorId: 'lob-usd', game: 'dice', token };
      },
      'invalidSession',
    ],
    ['unknown operator', () => ({ operatorId: 'no-such-casino', game: 'dice', token: 'x' }), 'unknownOperator'],
    ['disabled game', () => ({ operatorId: 'lob-few', game: 'dice', token: stack.player('err-dis', 'lob-few') }), 'gameDisabled'],
    [
      'currency refused',
      () => {
        const token = stack.player('err-cur', 'lob-usd');
        stack.casino.setTokenCurrency(token, 'EUR');
        return { operatorId: 'lob-usd', game: 'dice', token };
      },
      'currencyRefused',
    ],
    ['unknown game', () => ({ operatorId: 'lob-usd', game: 'roulette', token: 'x' }), 'unknownGame'],
  ];
  for (const [label, query, kind] of screens) {
    it(label, async () => {
      await page.goto(stack.launchUrl(query()));
      const screen = page.locator('[data-testid=error-screen]');
      await screen.waitFor();
      expect(await screen.getAttribute('data-kind')).toBe(kind);
      const text = (await screen.textContent()) ?? '';
      expect(text).not.toMatch(/[A-Z]{3,}_[A-Z_]+/);
      expect(text.length).toBeGreaterThan(30);
      await screenshot(page, `error-${kind}`);
    });
  }
});
