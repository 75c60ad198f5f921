/**
 * The player's trust on the game page (issue 12, item 7): the shield's in-browser verifier on a
 * round of every game — its result equals the stored round — and on pasted third-party inputs
 * (the published check value of CONTRACT.md §9); rotation shows the revealed seed and is refused
 * politely while a Mines round is open; My bets lists only the player's own rounds; the replay of
 * a Mines and a Blackjack round without a session, never showing a seed not yet revealed.
 * Screenshots of the shield, my bets and a replay go to docs/screenshots/.
 */
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DESKTOP, expectNoProblems, launchBrowser, MOBILE, newPage, screenshot } from './helpers/browser.js';
import { playRound } from './helpers/play.js';
import { startStack, type Stack } from './helpers/stack.js';

const GAMES = ['dice', 'limbo', 'plinko', 'keno', 'mines', 'blackjack'] as const;
let browser: Browser;
let stack: Stack;

beforeAll(async () => {
  [browser, stack] = await Promise.all([launchBrowser(), startStack([{ operatorId: 'trust-usd', tenantId: 'casino-t' }])]);
});
afterAll(async () => {
  await browser?.close();
  await stack?.close();
});

async function lobby(playerRef: string, viewport = DESKTOP, balance = '1000'): Promise<Page & { problems: string[] }> {
  const token = stack.player(playerRef, 'trust-usd', balance);
  const page = await newPage(browser, viewport);
  await page.goto(stack.launchUrl({ operatorId: 'trust-usd', token, mode: 'lobby' }));
  await page.locator('[data-testid=game-dice]').waitFor();
  return page;
}

async function openGame(page: Page, game: string) {
  await page.locator(`[data-testid=game-switcher] [data-game=${game}]`).click();
  await page.locator(`[data-testid=game-${game}]`).waitFor();
}

async function openShield(page: Page, tab: 'seeds' | 'verify' | 'bets') {
  if ((await page.locator('[data-testid=side-panel]').count()) === 0) await page.locator('[data-testid=shield]').click();
  await page.locator(`[data-testid=shield-tab-${tab}]`).click();
}

const playerRounds = (playerRef: string): Promise<{ round_id: string; game_type: string; status: string }[]> =>
  stack.t.services
    .db('rounds')
    .where({ operator_id: 'trust-usd', player_ref: playerRef })
    .orderBy('created_at', 'desc')
    .select('round_id', 'game_type', 'status');

describe('the shield', () => {
  it('verifies a round of every game in the browser after rotation: the recomputed result equals the stored round', async () => {
    const page = await lobby('t-vera');
    const played: Record<string, string> = {};
    for (const game of GAMES) {
      await openGame(page, game);
      played[game] = (await playRound(page, game)).roundId;
    }
    // Before rotation the seed is secret: My bets says so, no "verified" yet.
    await openShield(page, 'bets');
    await page.locator('[data-testid=bet-row]').first().waitFor();
    await page.locator(`[data-testid=bet-row][data-round="${played.dice}"]`).click();
    await page.locator('[data-testid=proof-secret]').waitFor();
    await page.locator('[data-testid=bet-back]').click();

    // Rotate: the previous server seed is revealed and shown.
    await openShield(page, 'seeds');
    const hashBefore = await page.locator('[data-testid=shield-hash]').textContent();
    await page.locator('[data-testid=rotate]').click();
    await page.locator('[data-testid=rotation]').waitFor();
    const revealed = (await page.locator('[data-testid=previous-seed]').textContent()) ?? '';
    const stored = await stack.t.services.db('seed_pairs').where({ operator_id: 'trust-usd', player_ref: 't-vera', revealed: true }).first();
    expect(revealed).toBe(stored.server_seed);
    expect(stored.server_seed_hash).toBe(hashBefore);
    await expect.poll(() => page.locator('[data-testid=shield-hash]').textContent()).not.toBe(hashBefore);
    await screenshot(page, 'shield-seeds-desktop');

    // Every game's round: "verified ✓" computed in the browser, and the verifier shows the stored outcome.
    await openShield(page, 'bets');
    for (const game of GAMES) {
      await page.locator(`[data-testid=bet-row][data-round="${played[game]}"]`).click();
      await page.locator(`[data-testid=bet-detail][data-round="${played[game]}"]`).waitFor();
      await page.locator('[data-testid=proof-verified]').waitFor();
      expect(await page.locator('[data-testid=proof]').getAttribute('data-verified')).toBe('true');
      expect(await page.locator('[data-testid=proof-seed]').textContent()).toBe(revealed);
      if (game === 'mines') await screenshot(page, 'my-bets-detail-desktop');
      await page.locator('[data-testid=bet-open-verifier]').click();
      await page.locator('[data-testid=verify-result]').waitFor();
      const outcome = (await page.locator('[data-testid=verify-outcome]').textContent()) ?? '';
      const round = await stack.t.app.inject({ method: 'GET', url: `/api/bets/${played[game]}` });
      const result = round.json().result;
      if (game === 'dice') expect(outcome).toContain(Number(result.roll).toFixed(2));
      if (game === 'limbo') expect(outcome).toContain(Number(result.result).toFixed(2));
      if (game === 'plinko') expect(outcome).toContain(`Bin ${result.bin}`);
      if (game === 'keno') expect(outcome).toContain(result.drawn.join(', '));
      if (game === 'mines') expect(outcome).toContain(result.mines.join(', '));
      if (game === 'blackjack') expect(outcome).toContain(result.cards.slice(0, 6).join(', '));
      expect(await page.locator('[data-testid=verify-hash-status]').getAttribute('data-ok')).toBe('true');
      await openShield(page, 'bets');
    }
    await screenshot(page, 'my-bets-desktop');
    expectNoProblems(page);
    await page.close();
  });

  it('verifies pasted third-party inputs (the published check value) and shows the HMAC inputs and floats step by step', async () => {
    const page = await lobby('t-paste', MOBILE);
    await openShield(page, 'verify');
    const fill = async (id: string, value: string) => page.locator(`[data-testid=verify-${id}]`).fill(value);
    await fill('serverSeed', '18e93f4a7b5b58d2569765766d1b6c3296bbd8430d6f20249044d72f14720159');
    await fill('clientSeed', 'bb62964774');
    await fill('nonce', '1');
    await fill('params', '{"target": 50, "direction": "over"}');
    await page.locator('[data-testid=verify-run]').click();
    expect(await page.locator('[data-testid=verify-outcome]').textContent()).toBe('Roll 77.18');
    expect(await page.locator('[data-testid=verify-multiplier]').textContent()).toBe('1.9800×');
    await page.locator('[data-testid=verify-steps] summary').click();
    expect(await page.locator('[data-testid=verify-digest]').first().textContent()).toBe('c590d171e39b70404ee1fff2ce09c3e1090688e1320a9cd27f58b1ac3dfa8c92');
    expect(await page.locator('[data-testid=verify-float-0]').textContent()).toContain('0.771740999306');
    expect(await page.locator('[data-testid=verify-steps]').textContent()).toContain('bb62964774:1:0');
    await screenshot(page, 'shield-verifier-mobile');

    await page.locator('[data-testid=verify-gameType]').selectOption('limbo');
    await fill('params', '{"target": 1.2}');
    await page.locator('[data-testid=verify-run]').click();
    await expect.poll(() => page.locator('[data-testid=verify-outcome]').textContent()).toBe('Result 1.28×');
    // A pasted hash that is not the seed's: said so.
    await fill('serverSeedHash', 'a'.repeat(64));
    await page.locator('[data-testid=verify-run]').click();
    expect(await page.locator('[data-testid=verify-hash-status]').getAttribute('data-ok')).toBe('false');
    // Bad settings: a sentence, no crash.
    await fill('params', '{"target": ');
    await page.locator('[data-testid=verify-run]').click();
    await page.locator('[data-testid=verify-error]').waitFor();
    expectNoProblems(page);
    await page.close();
  });

  it('refuses rotation politely while a Mines round is open; the client seed set in the shield is used by the next bet', async () => {
    const page = await lobby('t-rosa');
    await openShield(page, 'seeds');
    await page.locator('[data-testid=client-seed-input]').fill('my lucky seed');
    await page.locator('[data-testid=client-seed-save]').click();
    await page.locator('[data-testid=shield] ').click();
    await openGame(page, 'mines');
    const start = await Promise.all([page.waitForResponse((r) => r.url().endsWith('/api/mines/rounds')), page.locator('[data-testid=bet-button]').click()]);
    expect(JSON.parse(start[0].request().postData() ?? '{}').clientSeed).toBe('my lucky seed');
    expect((await start[0].json()).fairness.clientSeed).toBe('my lucky seed');
    await openShield(page, 'seeds');
    await page.locator('[data-testid=rotate]').click();
    await page.locator('[data-testid=rotate-problem]').waitFor();
    expect(await page.locator('[data-testid=rotate-problem]').textContent()).toMatch(/Finish your open Mines or Blackjack round first/);
    expect(await stack.t.services.db('seed_pairs').where({ operator_id: 'trust-usd', player_ref: 't-rosa', revealed: true }).first()).toBeUndefined();
    expectNoProblems(page);
    await page.close();
  });
});

describe('my bets', () => {
  it('lists only the player’s own rounds, newest first, with game, amount, multiplier, payout and time', async () => {
    const bob = await lobby('t-bob');
    await playRound(bob, 'dice');
    const page = await lobby('t-alice');
    await playRound(page, 'dice');
    await openGame(page, 'limbo');
    await playRound(page, 'limbo');
    await openShield(page, 'bets');
    await expect.poll(() => page.locator('[data-testid=bet-row]').count()).toBe(2);
    const shown = await page.locator('[data-testid=bet-row]').evaluateAll((rows) => rows.map((r) => r.getAttribute('data-round')));
    expect(shown).toEqual((await playerRounds('t-alice')).map((r) => r.round_id));
    const bobRounds = (await playerRounds('t-bob')).map((r) => r.round_id);
    for (const id of bobRounds) expect(shown).not.toContain(id);
    const cells = await page.locator('[data-testid=bet-row]').first().locator('td').allTextContents();
    expect(cells[0]).toBe('Limbo');
    expect(cells[1]).toMatch(/^\d+\.\d{2} USD$/);
    expect(cells[2]).toMatch(/×$/);
    expect(cells[3]).toMatch(/USD$/);
    expectNoProblems(page);
    await Promise.all([page.close(), bob.close()]);
  });
});

describe('replay for disputes', () => {
  async function replay(roundId: string, viewport = DESKTOP) {
    const page = await newPage(browser, viewport);
    await page.goto(`${stack.base}/game.html?replay=${roundId}`);
    await page.locator('[data-testid=replay]').waitFor();
    return page;
  }

  it('shows a Mines and a Blackjack round as played, read-only and without a session; the seed only once revealed', async () => {
    const page = await lobby('t-replay');
    await openGame(page, 'mines');
    const mines = await playRound(page, 'mines');
    await openGame(page, 'blackjack');
    const bj = await playRound(page, 'blackjack');
    const pair = await stack.t.services.db('seed_pairs').where({ operator_id: 'trust-usd', player_ref: 't-replay', revealed: false }).first();

    // Not rotated yet: the proof waits, and the secret seed is nowhere in the page.
    const early = await replay(mines.roundId);
    await early.locator('[data-testid=proof-secret]').waitFor();
    expect(await early.content()).not.toContain(pair.server_seed);
    expect(await early.locator('[data-testid=bet-button], [data-testid=tile-0]').count()).toBe(0); // read-only
    await early.close();

    await openShield(page, 'seeds');
    await page.locator('[data-testid=rotate]').click();
    await page.locator('[data-testid=rotation]').waitFor();

    const stored = (await stack.t.app.inject({ method: 'GET', url: `/api/bets/${mines.roundId}` })).json();
    const m = await replay(mines.roundId);
    expect(await m.locator('[data-testid=replay]').getAttribute('data-game')).toBe('mines');
    const states = await m.locator('[data-testid=rb-mines] > span').evaluateAll((tiles) => tiles.map((t) => t.getAttribute('data-state')));
    const mineTiles = states.flatMap((s, i) => (s === 'mine' || s === 'boom' ? [i] : []));
    expect(mineTiles).toEqual(stored.result.mines);
    for (const tile of stored.result.revealed) expect(['gem', 'boom']).toContain(states[tile]);
    expect(await m.locator('[data-testid=round-id]').textContent()).toBe(mines.roundId);
    await m.locator('[data-testid=proof-verified]').waitFor();
    await screenshot(m, 'replay-mines-desktop');
    expectNoProblems(m);
    await m.close();

    const bjStored = (await stack.t.app.inject({ method: 'GET', url: `/api/bets/${bj.roundId}` })).json();
    const b = await replay(bj.roundId, MOBILE);
    const dealer = await b.locator('[data-testid^=rb-dealer-]').evaluateAll((cards) => cards.map((c) => c.getAttribute('data-card')));
    expect(dealer).toEqual(bjStored.result.dealer.cards);
    for (const [i, hand] of (bjStored.result.hands as { cards: string[] }[]).entries()) {
      expect(await b.locator(`[data-testid=rb-hand-${i}] [data-card]`).evaluateAll((cards) => cards.map((c) => c.getAttribute('data-card')))).toEqual(
        hand.cards,
      );
    }
    await b.locator('[data-testid=proof-verified]').waitFor();
    await screenshot(b, 'replay-blackjack-mobile');
    expectNoProblems(b);
    await b.close();
    await page.close();
  });

  it('an open Mines round replays without its mines; an unknown id says so', async () => {
    const page = await lobby('t-open');
    await openGame(page, 'mines');
    const [resp] = await Promise.all([page.waitForResponse((r) => r.url().endsWith('/api/mines/rounds')), page.locator('[data-testid=bet-button]').click()]);
    const roundId = (await resp.json()).roundId as string;
    const r = await replay(roundId);
    await r.locator('[data-testid=replay-in-play]').waitFor();
    const states = await r.locator('[data-testid=rb-mines] > span').evaluateAll((tiles) => tiles.map((t) => t.getAttribute('data-state')));
    expect(states.filter((s) => s === 'mine' || s === 'boom')).toEqual([]);
    await r.close();

    const missing = await newPage(browser);
    await missing.goto(`${stack.base}/game.html?replay=00000000-0000-4000-8000-000000000000`);
    await missing.locator('[data-testid=replay-error][data-kind=notFound]').waitFor();
    await missing.close();
    await page.close();
  });
});
