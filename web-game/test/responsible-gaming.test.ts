/**
 * Responsible gaming on the game page (issue 27), in Chromium against the provider and the
 * reference casino over HTTP: a GB player's limited autobet (a number of rounds up to the
 * maximum and a loss limit, each bet sent with `autobet: true`, paced), autobet hidden where it is
 * disabled, net position and time played in the header, the reality check (betting paused, an
 * autobet run stopped, Continue and Leave with PROVIDER_REALITY_CHECK and PROVIDER_EXIT to the
 * casino page), Space following the pacing rule, and a casino's own loss-limit text shown verbatim
 * (as text, never HTML) in each of the four languages. Screenshots under docs/screenshots/rg-*.png.
 */
import type { Browser, Frame, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DESKTOP, expectNoProblems, launchBrowser, MOBILE, newPage, screenshot } from './helpers/browser.js';
import { startCasinoPage, startStack, type CasinoPage, type Stack } from './helpers/stack.js';

const OP = 'rg-page';
const GB = {
  autobet: 'limited',
  autobetMaxRounds: 5,
  autobetRequiresLossLimit: true,
  minRoundIntervalMs: 1000,
  realityCheckMinutes: 30,
  showNetPosition: true,
  showElapsedTime: true,
};

let browser: Browser;
let stack: Stack;
let casinoPage: CasinoPage;

beforeAll(async () => {
  [browser, stack, casinoPage] = await Promise.all([launchBrowser(), startStack([{ operatorId: OP }]), startCasinoPage()]);
  await stack.put({
    operatorId: OP,
    allowedEmbedOrigins: [casinoPage.origin],
    responsibleGaming: { jurisdictions: { GB, FR: { autobet: 'disabled' }, MT: { minRoundIntervalMs: 60_000 } } },
  });
});
afterAll(async () => {
  await browser?.close();
  await Promise.all([stack?.close(), casinoPage?.close()]);
});

/** A casino player (with the casino's settings: jurisdiction, refusals) and a launch token. */
function casinoPlayer(playerRef: string, responsibleGaming: Record<string, unknown> = {}): string {
  stack.casino.createPlayer({ playerRef, displayName: playerRef, balance: '1000', currency: 'USD', responsibleGaming });
  return stack.casino.issueLaunchToken(playerRef, { operatorId: OP });
}

async function dicePage(token: string, q: Record<string, string> = {}, viewport = DESKTOP) {
  const page = await newPage(browser, viewport);
  await page.goto(stack.launchUrl({ operatorId: OP, game: 'dice', token, ...q }));
  await page.locator('[data-testid=game-dice]').waitFor();
  return page;
}

async function setStake(target: Page | Frame, amount: string) {
  await target.locator('[data-testid=amount-input]').fill(amount);
  await target.locator('[data-testid=amount-input]').blur();
}

/** Every POST /api/bets body the page sends. */
function betBodies(page: Page): Record<string, unknown>[] {
  const bodies: Record<string, unknown>[] = [];
  page.on('request', (r) => {
    if (r.method() === 'POST' && r.url().endsWith('/api/bets')) bodies.push(JSON.parse(r.postData() ?? '{}'));
  });
  return bodies;
}

/** The net the casino's ledger says (credits − debits) for a player, in minor units. */
function ledgerNet(playerRef: string): bigint {
  return stack.casino
    .transactions()
    .filter((tx) => tx.playerRef === playerRef)
    .reduce((sum, tx) => sum + (tx.type === 'debit' ? -tx.amount : tx.type === 'credit' ? tx.amount : 0n), 0n);
}

describe('the rules on the page', () => {
  it('a GB player: limited autobet (1 to 5 bets, a loss limit required), each bet sent with autobet: true; net position and time played in the header', async () => {
    const page = await dicePage(casinoPlayer('gb-ann', { jurisdiction: 'GB' }));
    const bodies = betBodies(page);
    await expect.poll(() => page.locator('[data-testid=rg-net]').isVisible()).toBe(true);
    await expect(page.locator('[data-testid=rg-elapsed]').textContent()).resolves.toMatch(/\d+:\d\d/);
    await setStake(page, '1.00');
    await page.locator('[data-testid=autobet-tab-auto]').click();
    const start = page.locator('[data-testid=autobet-start]');
    await page.locator('[data-testid=autobet-count]').fill('10');
    expect(await page.locator('[data-testid=autobet-count-help]').textContent()).toBe('Choose 1 to 5 bets.');
    expect(await start.isDisabled()).toBe(true);
    await page.locator('[data-testid=autobet-count]').fill('0');
    expect(await start.isDisabled()).toBe(true);
    await page.locator('[data-testid=autobet-count]').fill('3');
    expect(await page.locator('[data-testid=autobet-count-help]').textContent()).toBe('1 to 5 bets');
    expect(await page.locator('[data-testid=autobet-loss-required]').isVisible()).toBe(true);
    expect(await start.isDisabled()).toBe(true);
    await page.locator('[data-testid=autobet-stop-loss]').fill('50');
    expect(await page.locator('[data-testid=autobet-loss-required]').count()).toBe(0);
    await screenshot(page, 'rg-gb-limited-autobet-form');
    await start.click();
    const status = page.locator('[data-testid=autobet-status]');
    await expect.poll(() => status.getAttribute('data-state'), { timeout: 20_000 }).toBe('stopped');
    // all three ran, none refused ROUND_TOO_FAST: the page waited out the 1 s pacing between them
    expect(await status.getAttribute('data-reason')).toBe('count');
    expect(await status.getAttribute('data-bets')).toBe('3');
    expect(bodies).toHaveLength(3);
    for (const b of bodies) expect(b.autobet).toBe(true);
    // a bet by hand is not an autobet
    await page.locator('[data-testid=autobet-tab-manual]').click();
    await page.waitForTimeout(1100); // the pacing interval, so the manual bet is not refused
    await Promise.all([page.waitForResponse((r) => r.url().endsWith('/api/bets')), page.locator('[data-testid=bet-button]').click()]);
    expect(bodies).toHaveLength(4);
    expect(bodies[3]!.autobet).toBeUndefined();
    // the header's net position is the casino ledger's (credits − debits) for this session
    await expect.poll(async () => BigInt((await page.locator('[data-testid=rg-net]').getAttribute('data-minor')) ?? 'x')).toBe(ledgerNet('gb-ann'));
    await screenshot(page, 'rg-gb-net-position');
    expectNoProblems(page);
    await page.close();
  });

  it('where autobet is disabled (FR) the page has no autobet, and without a jurisdiction nothing is shown', async () => {
    const fr = await dicePage(casinoPlayer('fr-bea', { jurisdiction: 'FR' }));
    await fr.locator('[data-testid=bet-button]').waitFor();
    expect(await fr.locator('[data-testid=autobet-tab-auto]').count()).toBe(0);
    expect(await fr.locator('[data-testid=rg-summary]').count()).toBe(0);
    await fr.close();
    const plain = await dicePage(casinoPlayer('no-where'));
    expect(await plain.locator('[data-testid=autobet-tab-auto]').count()).toBe(1);
    expect(await plain.locator('[data-testid=rg-summary]').count()).toBe(0);
    await plain.close();
  });

  it('autobet keeps the pace when a round start is slow to reach the server: the next one waits from its answer, not its sending', async () => {
    const page = await dicePage(casinoPlayer('gb-slow', { jurisdiction: 'GB' }));
    const bodies = betBodies(page);
    // the first bet is held 700 ms on its way (a slow network): counted from its sending, the
    // page's 1 s pace and 100 ms margin would send the second bet 400 ms after the server saw the first
    let held = 0;
    await page.route('**/api/bets', async (route) => {
      if (held++ === 0) await new Promise((r) => setTimeout(r, 700));
      await route.continue();
    });
    await setStake(page, '1.00');
    await page.locator('[data-testid=autobet-tab-auto]').click();
    await page.locator('[data-testid=autobet-count]').fill('2');
    await page.locator('[data-testid=autobet-stop-loss]').fill('50');
    await page.locator('[data-testid=autobet-start]').click();
    const status = page.locator('[data-testid=autobet-status]');
    await expect.poll(() => status.getAttribute('data-state'), { timeout: 20_000 }).toBe('stopped');
    expect(await status.getAttribute('data-reason')).toBe('count');
    expect(await status.getAttribute('data-bets')).toBe('2');
    expect(bodies).toHaveLength(2);
    await page.close();
  });

  it('Space follows the pacing rule: a second press within minRoundIntervalMs places no bet', async () => {
    const page = await dicePage(casinoPlayer('mt-cal', { jurisdiction: 'MT' }));
    const bodies = betBodies(page);
    await setStake(page, '1.00');
    await page.locator('body').click({ position: { x: 5, y: 300 } });
    await Promise.all([page.waitForResponse((r) => r.url().endsWith('/api/bets')), page.keyboard.press('Space')]);
    await page.locator('[data-testid=bet-button]:not([disabled])').waitFor();
    await page.keyboard.press('Space');
    await page.keyboard.press('Space');
    await page.waitForTimeout(300);
    expect(bodies).toHaveLength(1);
    // a click is sent, and the server holds the rule: ROUND_TOO_FAST, shown in words
    await Promise.all([page.waitForResponse((r) => r.url().endsWith('/api/bets')), page.locator('[data-testid=bet-button]').click()]);
    await expect.poll(() => page.locator('[data-testid=notice]').textContent()).toBe('Slow down: the next round can start in a moment.');
    await page.close();
  });
});

describe('the reality check', () => {
  it('pauses betting and stops an autobet run; Continue plays on; Leave closes the game; the casino page hears both', async () => {
    const token = casinoPlayer('gb-dan', { jurisdiction: 'GB' });
    const page = await newPage(browser, DESKTOP);
    await page.clock.install();
    const src = stack.launchUrl({ operatorId: OP, game: 'dice', token, embed: '1', fill: '1' });
    await page.goto(casinoPage.url(src, { height: 760 }));
    const frame = page.frameLocator('#game');
    await frame.locator('[data-testid=game-dice]').waitFor();
    await frame.locator('[data-testid=amount-input]').fill('1.00');
    await frame.locator('[data-testid=autobet-tab-auto]').click();
    await frame.locator('[data-testid=autobet-count]').fill('5');
    await frame.locator('[data-testid=autobet-stop-loss]').fill('100');
    await frame.locator('[data-testid=autobet-start]').click();
    await expect.poll(async () => Number(await frame.locator('[data-testid=autobet-status]').getAttribute('data-bets'))).toBeGreaterThanOrEqual(1);
    await page.clock.fastForward('30:00');
    const dialog = frame.locator('[data-testid=reality-check]');
    await dialog.waitFor();
    const status = frame.locator('[data-testid=autobet-status]');
    await expect.poll(() => status.getAttribute('data-reason'), { timeout: 15_000 }).toBe('realityCheck');
    const played = Number(await status.getAttribute('data-bets'));
    expect(played).toBeLessThan(5);
    expect(await frame.locator('[data-testid=reality-elapsed]').textContent()).toMatch(/^You have been playing for 30:\d\d\.$/);
    const net = await frame.locator('[data-testid=rg-net]').getAttribute('data-minor');
    expect(net).toBe(ledgerNet('gb-dan').toString());
    const messages = async () =>
      (await page.evaluate(() => (window as unknown as { messages: { origin: string; data: { type?: string } }[] }).messages)).map((m) => m.data);
    await expect.poll(async () => (await messages()).filter((m) => m.type === 'PROVIDER_REALITY_CHECK')).toHaveLength(1);
    const check = (await messages()).find((m) => m.type === 'PROVIDER_REALITY_CHECK') as Record<string, unknown>;
    expect(check).toMatchObject({ elapsedMinutes: 30, currency: 'USD' });
    expect(BigInt(Math.round(Number(check.netPosition) * 100))).toBe(BigInt(net!));
    await screenshot(page, 'rg-reality-check');
    // paused: the bet button does nothing while the dialog is open
    expect(stack.casino.transactions().filter((tx) => tx.playerRef === 'gb-dan' && tx.type === 'debit')).toHaveLength(played);
    await frame.locator('[data-testid=reality-continue]').click();
    await dialog.waitFor({ state: 'detached' });
    await frame.locator('[data-testid=autobet-tab-manual]').click();
    await page.clock.fastForward(2000);
    await Promise.all([page.waitForResponse((r) => r.url().endsWith('/api/bets')), frame.locator('[data-testid=bet-button]').click()]);
    // thirty more minutes: the check again; Leave
    await page.clock.fastForward('30:00');
    await dialog.waitFor();
    await frame.locator('[data-testid=reality-leave]').click();
    await frame.locator('[data-testid=left-screen]').waitFor();
    await expect.poll(async () => (await messages()).filter((m) => m.type === 'PROVIDER_EXIT')).toHaveLength(1);
    expect((await messages()).find((m) => m.type === 'PROVIDER_EXIT')).toMatchObject({ reason: 'reality_check' });
    await screenshot(page, 'rg-left');
    await page.close();
  });
});

describe("the casino's own words", () => {
  const MESSAGES: Record<string, string> = {
    en: 'You have reached your daily loss limit of $50. It resets at midnight. <img src=x onerror="document.title=1">',
    es: 'Has alcanzado tu límite diario de pérdidas de 50 $. Se restablece a medianoche.',
    'pt-BR': 'Você atingiu seu limite diário de perdas de US$ 50. Ele é renovado à meia-noite.',
    de: 'Du hast dein tägliches Verlustlimit von 50 $ erreicht. Es wird um Mitternacht zurückgesetzt.',
  };
  for (const [lang, message] of Object.entries(MESSAGES)) {
    it(`a loss-limit refusal shows the casino's text verbatim, as text, on the ${lang} page`, async () => {
      const token = casinoPlayer(`limit-${lang}`, { refusals: { debit: { code: 'LOSS_LIMIT_REACHED', message } } });
      const page = await dicePage(token, { lang }, lang === 'de' ? MOBILE : DESKTOP);
      await setStake(page, '1');
      await Promise.all([page.waitForResponse((r) => r.url().endsWith('/api/bets')), page.locator('[data-testid=bet-button]').click()]);
      const notice = page.locator('[data-testid=notice]');
      await expect.poll(() => notice.textContent()).toBe(message);
      expect(await notice.locator('img').count()).toBe(0);
      expect(await page.title()).not.toBe('1');
      await screenshot(page, `rg-casino-loss-limit-${lang}`);
      expectNoProblems(page);
      await page.close();
    });
  }

  it("a self-excluded player's launch shows the casino's words on the error screen", async () => {
    const token = casinoPlayer('excluded', {
      refusals: { 'validate-session': { status: 403, code: 'SELF_EXCLUDED', message: 'Your account is self-excluded until 1 March 2027.' } },
    });
    const page = await newPage(browser, DESKTOP);
    await page.goto(stack.launchUrl({ operatorId: OP, game: 'dice', token }));
    await page.locator('[data-testid=error-screen]').waitFor();
    expect(await page.locator('[data-testid=casino-message]').textContent()).toBe('Your account is self-excluded until 1 March 2027.');
    await screenshot(page, 'rg-self-excluded');
    await page.close();
  });
});
