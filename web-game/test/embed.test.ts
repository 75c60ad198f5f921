/**
 * The page in a casino's iframe (issue 11 items 3, 4, 6, 7; SPEC.md "Launch URL", "Embedded
 * currency switch"; CONTRACT.md §14): embed parameters, PROVIDER_READY / PROVIDER_RESIZE, the
 * currency switch from a casino page on another origin, origins that are ignored, the tenant rule,
 * and the page's security headers.
 */
import type { Browser, Frame, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DESKTOP, expectNoProblems, launchBrowser, MOBILE, newPage, screenshot, shownMinor } from './helpers/browser.js';
import { playRound } from './helpers/play.js';
import { startCasinoPage, startStack, type CasinoPage, type Stack } from './helpers/stack.js';

let browser: Browser;
let stack: Stack;
let casinoA: CasinoPage; // allowed by every profile
let casinoB: CasinoPage; // allowed by the USD profile only
let attacker: CasinoPage; // allowed by none

interface Msg {
  origin: string;
  data: { type: string; requestId?: string; ok?: boolean; code?: string; message?: string; height?: number; session?: Record<string, unknown> };
}

beforeAll(async () => {
  [browser, casinoA, casinoB, attacker] = await Promise.all([launchBrowser(), startCasinoPage(), startCasinoPage(), startCasinoPage()]);
  stack = await startStack([
    { operatorId: 'emb-usd', tenantId: 'acme', allowedEmbedOrigins: [casinoA.origin, casinoB.origin] },
    { operatorId: 'emb-eur', currency: 'EUR', tenantId: 'acme', allowedEmbedOrigins: [casinoA.origin] },
    {
      operatorId: 'emb-btc',
      currency: 'BTC',
      decimals: 8,
      tenantId: 'other-casino',
      allowedEmbedOrigins: [casinoA.origin],
      minBet: 0.00001,
      stakeStep: 0.00000001,
      maxBet: 1,
    },
    { operatorId: 'emb-quiet', tenantId: 'acme', showBalanceInEmbed: false },
  ]);
});
afterAll(async () => {
  await browser?.close();
  await Promise.all([stack?.close(), casinoA?.close(), casinoB?.close(), attacker?.close()]);
});

const messages = (page: Page): Promise<Msg[]> => page.evaluate(() => (window as unknown as { messages: Msg[] }).messages);
const gameFrame = async (page: Page): Promise<Frame> => {
  await page.waitForFunction(() => document.getElementById('game') !== null);
  const handle = await page.locator('#game').elementHandle();
  const frame = await handle!.contentFrame();
  return frame!;
};
const waitForMessage = (page: Page, type: string, extra: { requestId?: string; count?: number } = {}) =>
  page.waitForFunction(
    ({ type, requestId, count }) =>
      (window as unknown as { messages: Msg[] }).messages.filter((m) => m.data?.type === type && (!requestId || m.data.requestId === requestId)).length >=
      count,
    { type, requestId: extra.requestId, count: extra.count ?? 1 },
  );
const postSwitch = (page: Page, message: Record<string, unknown>) =>
  page.evaluate(({ message, origin }) => (document.getElementById('game') as HTMLIFrameElement).contentWindow!.postMessage(message, origin), {
    message,
    origin: stack.base,
  });

/** A casino page on `casino` framing the game of `operatorId` for `playerRef`. */
async function framed(casino: CasinoPage, operatorId: string, playerRef: string, q: Record<string, string> = {}, height = 0, viewport = DESKTOP) {
  const token = stack.player(playerRef, operatorId);
  const page = await newPage(browser, viewport);
  await page.goto(casino.url(stack.launchUrl({ operatorId, game: 'dice', token, embed: '1', ...q }), { height }));
  const frame = await gameFrame(page);
  await waitForMessage(page, 'PROVIDER_READY');
  return { page, frame, token };
}

describe('embed=1 in a casino page on another origin', () => {
  it('hides the demo header, seed line and operator link; compact balance; PROVIDER_READY to the casino origin; PROVIDER_RESIZE whenever the height changes', async () => {
    const { page, frame } = await framed(casinoA, 'emb-usd', 'emb-ann', { mode: 'lobby' }, 0, MOBILE);
    await frame.locator('[data-testid=game-dice]').waitFor();
    expect(await frame.locator('[data-testid=demo-header]').count()).toBe(0);
    expect(await frame.locator('[data-testid=seed-hash-line]').count()).toBe(0);
    expect(await frame.locator('[data-testid=operator-link]').count()).toBe(0);
    expect(await frame.locator('[data-testid=balance].is-compact').count()).toBe(1);
    expect(await shownMinor(frame, 2)).toBe(stack.casinoBalance('emb-ann', 'emb-usd'));

    const ready = (await messages(page)).find((m) => m.data.type === 'PROVIDER_READY')!;
    expect(ready.origin).toBe(stack.base);
    expect(ready.data.session).toMatchObject({ operatorId: 'emb-usd', currency: 'USD', balance: 1000, game: null });

    // Natural height: the casino sizes the iframe from PROVIDER_RESIZE.
    await waitForMessage(page, 'PROVIDER_RESIZE');
    const contentHeight = () => frame.evaluate(() => Math.ceil(document.querySelector('.gp-app')!.getBoundingClientRect().height));
    await expect.poll(async () => (await messages(page)).filter((m) => m.data.type === 'PROVIDER_RESIZE').at(-1)?.data.height).toBe(await contentHeight());
    const first = (await messages(page)).filter((m) => m.data.type === 'PROVIDER_RESIZE').at(-1)!.data.height!;
    expect(Number.isInteger(first)).toBe(true);
    await frame.locator('[data-testid=game-switcher] [data-game=blackjack]').click();
    await frame.locator('[data-testid=game-blackjack]').waitFor();
    await expect.poll(async () => (await messages(page)).filter((m) => m.data.type === 'PROVIDER_RESIZE').at(-1)?.data.height).toBe(await contentHeight());
    expect(await contentHeight()).not.toBe(first);
    await expect
      .poll(() => page.evaluate(() => (document.getElementById('game') as HTMLIFrameElement).getBoundingClientRect().height))
      .toBe(await contentHeight());
    expectNoProblems(page);
    await page.close();
  });

  it('fill=1 fills the iframe viewport and posts no PROVIDER_RESIZE', async () => {
    const { page, frame } = await framed(casinoA, 'emb-usd', 'emb-fill', { fill: '1' }, 620);
    await frame.locator('[data-testid=game-dice]').waitFor();
    expect(await frame.evaluate(() => document.querySelector('.gp-app')!.getBoundingClientRect().height)).toBe(620);
    expect((await messages(page)).filter((m) => m.data.type === 'PROVIDER_RESIZE')).toEqual([]);
    await page.close();
  });

  it('compact embed at 360 px in a casino page (screenshot)', async () => {
    const token = stack.player('emb-small', 'emb-usd');
    const page = await newPage(browser, MOBILE);
    await page.goto(casinoA.url(stack.launchUrl({ operatorId: 'emb-usd', game: 'limbo', token, embed: '1' })));
    const frame = await gameFrame(page);
    await frame.locator('[data-testid=game-limbo]').waitFor();
    await playRound(page, 'limbo', frame);
    await expect.poll(() => page.evaluate(() => (document.getElementById('game') as HTMLIFrameElement).getBoundingClientRect().height)).toBeGreaterThan(500);
    await screenshot(page, 'embed-compact-mobile');
    await page.close();
  });
});

describe('showBalance and theme.showBalanceInEmbed (SPEC.md Launch URL)', () => {
  let page: Page;
  beforeAll(async () => {
    page = await newPage(browser);
  });
  afterAll(() => page.close());
  const balanceShown = async (operatorId: string, q: Record<string, string>) => {
    const token = stack.player(`sb-${operatorId}`, operatorId);
    await page.goto(stack.launchUrl({ operatorId, game: 'dice', token, ...q }));
    await page.locator('[data-testid=game-dice]').waitFor();
    return (await page.locator('[data-testid=balance]').count()) === 1;
  };
  it('shows the balance in an embed by default and hides it for every false value', async () => {
    expect(await balanceShown('emb-usd', { embed: '1' })).toBe(true);
    for (const v of ['0', 'false', 'no', 'off', 'OFF']) expect(await balanceShown('emb-usd', { embed: '1', showBalance: v })).toBe(false);
  });
  it('hides it when the operator theme says showBalanceInEmbed false, unless a true value overrides', async () => {
    expect(await balanceShown('emb-quiet', { embed: '1' })).toBe(false);
    for (const v of ['1', 'true', 'yes', 'on']) expect(await balanceShown('emb-quiet', { embed: '1', showBalance: v })).toBe(true);
    expect(await balanceShown('emb-quiet', { embed: '1', showBalance: 'maybe' })).toBe(false);
  });
  it('a standalone launch shows the demo header, the seed-hash line and the operator link', async () => {
    const token = stack.player('sb-standalone', 'emb-usd');
    await page.goto(stack.launchUrl({ operatorId: 'emb-usd', game: 'dice', token }));
    await page.locator('[data-testid=game-dice]').waitFor();
    await expect.poll(() => page.locator('[data-testid=seed-hash-line] code').textContent()).toMatch(/^[0-9a-f]{64}$/);
    expect(await page.locator('[data-testid=operator-link]').getAttribute('href')).toBe('/admin/');
    expect(await page.locator('[data-testid=balance]:not(.is-compact)').count()).toBe(1);
    // The shield control holds the fairness details.
    await page.locator('[data-testid=shield]').press('Enter');
    expect(await page.locator('[data-testid=shield-hash]').textContent()).toBe(await page.locator('[data-testid=seed-hash-line] code').textContent());
    await screenshot(page, 'shield-panel-desktop');
  });
});

describe('currency switch by window messages (CONTRACT.md §14)', () => {
  it('an allowed casino origin switches to the EUR profile: new session, casino-validated currency, READY again, bets in EUR', async () => {
    const { page, frame } = await framed(casinoA, 'emb-usd', 'sw-bob');
    const eurToken = stack.player('sw-bob', 'emb-eur', '250.5');
    await postSwitch(page, {
      type: 'PROVIDER_SWITCH_CURRENCY',
      requestId: 'req-1',
      operatorId: 'emb-eur',
      launchToken: eurToken,
      game: 'dice',
      launchMode: 'single',
    });
    await waitForMessage(page, 'PROVIDER_SWITCH_CURRENCY_RESULT', { requestId: 'req-1' });
    const result = (await messages(page)).find((m) => m.data.requestId === 'req-1')!;
    expect(result.origin).toBe(stack.base);
    expect(result.data).toMatchObject({ ok: true, session: { operatorId: 'emb-eur', currency: 'EUR', balance: 250.5, game: 'dice' } });
    await waitForMessage(page, 'PROVIDER_READY', { count: 2 });
    const ready = (await messages(page)).filter((m) => m.data.type === 'PROVIDER_READY').at(-1)!;
    expect(ready.data.session).toEqual(result.data.session);

    await expect.poll(() => frame.locator('[data-testid=balance] .gp-currency').textContent()).toBe('EUR');
    expect(await shownMinor(frame, 2)).toBe(25_050n);
    expect(await frame.locator('[data-testid=amount-hint]').textContent()).toContain('0.10');
    const played = await playRound(page, 'dice', frame);
    const stored = await stack.round(played.roundId);
    expect(stored.session_id).toBe(result.data.session!.sessionId);
    expect(await shownMinor(frame, 2)).toBe(stack.casinoBalance('sw-bob', 'emb-eur'));
    expectNoProblems(page);
    await page.close();
  });

  it('answers ok:false INVALID_SESSION for a bad token and keeps the current session', async () => {
    const { page, frame } = await framed(casinoA, 'emb-usd', 'sw-carl');
    await postSwitch(page, {
      type: 'PROVIDER_SWITCH_CURRENCY',
      requestId: 'bad-1',
      operatorId: 'emb-eur',
      launchToken: 'not-a-token',
      game: 'dice',
      launchMode: 'single',
    });
    await waitForMessage(page, 'PROVIDER_SWITCH_CURRENCY_RESULT', { requestId: 'bad-1' });
    const result = (await messages(page)).find((m) => m.data.requestId === 'bad-1')!;
    expect(result.data).toMatchObject({ type: 'PROVIDER_SWITCH_CURRENCY_RESULT', ok: false, code: 'INVALID_SESSION' });
    expect(typeof result.data.message).toBe('string');
    expect(await frame.locator('[data-testid=balance] .gp-currency').textContent()).toBe('USD');
    await playRound(page, 'dice', frame);
    expect(await shownMinor(frame, 2)).toBe(stack.casinoBalance('sw-carl', 'emb-usd'));
    await page.close();
  });

  it('refuses a profile of another tenant with FORBIDDEN before any casino call', async () => {
    const { page } = await framed(casinoA, 'emb-usd', 'sw-dora');
    const btcToken = stack.player('sw-dora', 'emb-btc', '1');
    const before = stack.casino.requests().filter((r) => r.operatorId === 'emb-btc').length;
    await postSwitch(page, {
      type: 'PROVIDER_SWITCH_CURRENCY',
      requestId: 'other-1',
      operatorId: 'emb-btc',
      launchToken: btcToken,
      game: 'dice',
      launchMode: 'single',
    });
    await waitForMessage(page, 'PROVIDER_SWITCH_CURRENCY_RESULT', { requestId: 'other-1' });
    expect((await messages(page)).find((m) => m.data.requestId === 'other-1')!.data).toMatchObject({ ok: false, code: 'FORBIDDEN' });
    expect(stack.casino.requests().filter((r) => r.operatorId === 'emb-btc').length).toBe(before);
    await page.close();
  });

  it('ignores a message from an origin not in the list: no answer, no switch', async () => {
    const token = stack.player('sw-eve', 'emb-usd');
    const eurToken = stack.player('sw-eve', 'emb-eur');
    const page = await newPage(browser);
    await page.goto(casinoA.url(stack.launchUrl({ operatorId: 'emb-usd', game: 'dice', token, embed: '1' }), { attacker: `${attacker.origin}/attacker.html` }));
    const frame = await gameFrame(page);
    await waitForMessage(page, 'PROVIDER_READY');
    // A frame of another origin inside the casino page posts a switch to the game.
    const attackerFrame = page.frames().find((f) => f.url().startsWith(attacker.origin))!;
    await attackerFrame.evaluate((message) => window.postMessage({ cmd: 'post', message }, '*'), {
      type: 'PROVIDER_SWITCH_CURRENCY',
      requestId: 'evil-1',
      operatorId: 'emb-eur',
      launchToken: eurToken,
      game: 'dice',
      launchMode: 'single',
    });
    // Then the casino asks something the page answers: messages are handled in order.
    await postSwitch(page, {
      type: 'PROVIDER_SWITCH_CURRENCY',
      requestId: 'after-1',
      operatorId: 'emb-usd',
      launchToken: stack.token('sw-eve', 'emb-usd'),
      game: 'dice',
      launchMode: 'single',
    });
    await waitForMessage(page, 'PROVIDER_SWITCH_CURRENCY_RESULT', { requestId: 'after-1' });
    expect((await messages(page)).filter((m) => m.data.requestId === 'evil-1')).toEqual([]);
    expect(await attackerFrame.evaluate(() => (window as unknown as { received: unknown[] }).received)).toEqual([]);
    expect(await frame.locator('[data-testid=balance] .gp-currency').textContent()).toBe('USD');
    await page.close();
  });

  it('the list of the profile the page now holds governs: after a switch to EUR, the casino origin only USD allows is ignored', async () => {
    const { page, frame } = await framed(casinoB, 'emb-usd', 'sw-finn');
    await postSwitch(page, {
      type: 'PROVIDER_SWITCH_CURRENCY',
      requestId: 'b-1',
      operatorId: 'emb-eur',
      launchToken: stack.player('sw-finn', 'emb-eur'),
      game: 'dice',
      launchMode: 'single',
    });
    await waitForMessage(page, 'PROVIDER_SWITCH_CURRENCY_RESULT', { requestId: 'b-1' });
    expect((await messages(page)).find((m) => m.data.requestId === 'b-1')!.data.ok).toBe(true);
    await postSwitch(page, {
      type: 'PROVIDER_SWITCH_CURRENCY',
      requestId: 'b-2',
      operatorId: 'emb-usd',
      launchToken: stack.token('sw-finn', 'emb-usd'),
      game: 'dice',
      launchMode: 'single',
    });
    // Nothing will come back: give the page the time a switch takes, then look.
    await frame.waitForTimeout(1500);
    expect((await messages(page)).filter((m) => m.data.requestId === 'b-2')).toEqual([]);
    expect(await frame.locator('[data-testid=balance] .gp-currency').textContent()).toBe('EUR');
    await page.close();
  });

  it('waits for a settling round before switching', async () => {
    const { page, frame } = await framed(casinoA, 'emb-usd', 'sw-gina');
    const eurToken = stack.player('sw-gina', 'emb-eur');
    const order: string[] = [];
    page.on('request', (r) => r.method() === 'POST' && order.push(`request ${new URL(r.url()).pathname}`));
    page.on('response', (r) => r.request().method() === 'POST' && order.push(`answer ${new URL(r.url()).pathname}`));
    stack.casino.setFaults([{ path: '/wallet/debit', operatorId: 'emb-usd', kind: 'delay', ms: 1200, times: 1 }]);
    const betAnswer = page.waitForResponse((r) => r.url().endsWith('/api/bets'));
    await frame.locator('[data-testid=bet-button]').click();
    await page.waitForFunction(() => true);
    await postSwitch(page, {
      type: 'PROVIDER_SWITCH_CURRENCY',
      requestId: 'settle-1',
      operatorId: 'emb-eur',
      launchToken: eurToken,
      game: 'dice',
      launchMode: 'single',
    });
    await waitForMessage(page, 'PROVIDER_SWITCH_CURRENCY_RESULT', { requestId: 'settle-1' });
    await betAnswer;
    stack.casino.clearFaults();
    expect((await messages(page)).find((m) => m.data.requestId === 'settle-1')!.data.ok).toBe(true);
    expect(order.indexOf('answer /api/bets')).toBeGreaterThan(-1);
    expect(order.indexOf('answer /api/bets')).toBeLessThan(order.indexOf('request /api/sessions'));
    await page.close();
  });
});

describe('security headers of /game.html (CONTRACT.md §14)', () => {
  const headersOf = async (query: string) => {
    const res = await fetch(`${stack.base}/game.html${query}`);
    return {
      status: res.status,
      csp: res.headers.get('content-security-policy') ?? '',
      nosniff: res.headers.get('x-content-type-options'),
      body: await res.text(),
    };
  };
  it('frame-ancestors lists exactly the operator’s allowed origins; no inline script; nosniff', async () => {
    const h = await headersOf('?operatorId=emb-usd');
    expect(h.status).toBe(200);
    expect(h.csp).toContain(`frame-ancestors ${casinoA.origin} ${casinoB.origin}`);
    expect(h.csp).toMatch(/frame-ancestors [^;]*$/);
    expect(h.csp).toContain("script-src 'self'");
    expect(h.csp).not.toContain('unsafe-inline');
    expect(h.nosniff).toBe('nosniff');
    expect(h.body).not.toMatch(/<script(?![^>]*\bsrc=)[^>]*>/);
  });
  it('an empty list is any origin outside production; an unknown operator still gets the page, with frame-ancestors none', async () => {
    expect((await headersOf('?operatorId=emb-quiet')).csp).toContain('frame-ancestors *');
    const unknown = await headersOf('?operatorId=nobody');
    expect(unknown.status).toBe(200);
    expect(unknown.csp).toContain("frame-ancestors 'none'");
  });
  it('a casino origin outside the list cannot frame the page', async () => {
    const token = stack.player('csp-hal', 'emb-eur');
    const page = await newPage(browser);
    await page.goto(casinoB.url(stack.launchUrl({ operatorId: 'emb-eur', game: 'dice', token, embed: '1' })));
    const frame = await gameFrame(page);
    await expect.poll(() => frame.url()).not.toBe('about:blank');
    expect(await frame.locator('#root').count()).toBe(0);
    await page.close();
  });
});
