/**
 * Layouts that fit every iframe (issue 29, defects 1–4): the page in a casino's iframe on another
 * origin (casino on http://127.0.0.1, game on http://localhost) at 320×480, 360×740, 768×1024 and
 * 1280×600, with `fill=1` (the iframe is the viewport) and without (the casino sizes the iframe from
 * PROVIDER_RESIZE). For every game the bet button and, once a round is open, its action controls
 * (Mines' tiles and cash-out, Blackjack's actions) must lie inside the viewport and receive the
 * click: `document.elementFromPoint` at their centre is the control. Under `fill=1` nothing may be
 * scrolled; without it the casino page may be scrolled only at 320×480 (the page is taller than
 * that viewport), and at 360×740 and up the bet and actions are in view from the top. Amounts are
 * read for the page's language (`1,5` on English and German pages) and the published limits stop
 * a bet before the click. One Chromium, one page per viewport, reduced motion; contact sheets of
 * every game per size are saved (docs/screenshots/layout-*.png).
 */
import { mkdirSync } from 'node:fs';
import path from 'node:path';
import type { Browser, BrowserContext, Frame, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { floats } from '@gp/game-core/fairness';
import { cardFromFloat, rankOf } from '@gp/game-core/games';
import { launchBrowser } from './helpers/browser.js';
import { SCREENSHOT_DIR } from './helpers/paths.js';
import { startCasinoPage, startStack, type CasinoPage, type Stack } from './helpers/stack.js';

const SIZES = [
  { width: 320, height: 480 },
  { width: 360, height: 740 },
  { width: 768, height: 1024 },
  { width: 1280, height: 600 },
] as const;
const GAMES = ['dice', 'limbo', 'plinko', 'keno', 'mines', 'blackjack'] as const;

let browser: Browser;
let context: BrowserContext;
let stack: Stack;
let casino: CasinoPage;

beforeAll(async () => {
  [browser, stack, casino] = await Promise.all([
    launchBrowser(),
    startStack([
      { operatorId: 'lay-usd', tenantId: 'lay' },
      { operatorId: 'lay-eur', currency: 'EUR', tenantId: 'lay' },
      { operatorId: 'lay-cap', tenantId: 'lay-cap', maxBet: null },
    ]),
    startCasinoPage(),
  ]);
  context = await browser.newContext({ reducedMotion: 'reduce', viewport: { width: 1280, height: 800 } });
});
afterAll(async () => {
  await browser?.close();
  await Promise.all([stack?.close(), casino?.close()]);
});

interface Reach {
  /** the control's box in the top-level page's viewport */
  top: number;
  bottom: number;
  left: number;
  right: number;
  hit: boolean;
  /** what a click at the centre reaches (for the failure's message) */
  at: string;
}

/** Where `selector` is in the casino page's viewport, and whether a click at its centre reaches it. */
async function reach(page: Page, frame: Frame, selector: string): Promise<Reach> {
  const inner = await frame
    .locator(selector)
    .first()
    .evaluate(async (el) => {
      // what the player sees is the next painted frame: FitStage rescales the stage in a
      // ResizeObserver, which runs in the frame's rendering step, not in the task that changed the
      // DOM; a measure taken between the two saw the old scale (CI, 768×1024: tile 24 "clipped")
      await new Promise((done) => requestAnimationFrame(() => requestAnimationFrame(done)));
      const r = el.getBoundingClientRect();
      const hitEl = document.elementFromPoint(r.x + r.width / 2, r.y + r.height / 2);
      const what = hitEl ? `${hitEl.tagName.toLowerCase()}.${[...hitEl.classList].join('.')}[${hitEl.getAttribute('data-testid') ?? ''}]` : 'nothing';
      return { x: r.x, y: r.y, w: r.width, h: r.height, hit: hitEl === el || el.contains(hitEl), at: what, vw: innerWidth, vh: innerHeight };
    });
  const f = await page.locator('#game').evaluate((el) => el.getBoundingClientRect().toJSON() as DOMRect);
  // inside the frame's own viewport too (a fill=1 frame does not scroll)
  const inFrame = inner.x >= 0 && inner.y >= 0 && inner.x + inner.w <= inner.vw + 0.5 && inner.y + inner.h <= inner.vh + 0.5;
  return { top: f.y + inner.y, bottom: f.y + inner.y + inner.h, left: f.x + inner.x, right: f.x + inner.x + inner.w, hit: inner.hit && inFrame, at: inner.at };
}

async function expectReachable(page: Page, frame: Frame, selector: string, what: string, mayScroll: boolean) {
  const { width, height } = page.viewportSize()!;
  if (mayScroll) await frame.locator(selector).first().scrollIntoViewIfNeeded();
  const r = await reach(page, frame, selector);
  const inView = r.top >= 0 && r.left >= 0 && r.bottom <= height + 0.5 && r.right <= width + 0.5;
  expect({ what, inView, hit: r.hit }, `${what}: ${JSON.stringify(r)} in ${width}×${height}`).toEqual({ what, inView: true, hit: true });
  // the scroll test moves the page; the next control is measured from the top again
  if (mayScroll) await page.evaluate(() => window.scrollTo(0, 0));
}

const frameOf = async (page: Page): Promise<Frame> => {
  const handle = await page.locator('#game').elementHandle();
  return (await handle!.contentFrame())!;
};

/** Clicks a round control (after its reachability was checked) and waits for its answer. */
async function press(page: Page, frame: Frame, selector: string): Promise<Record<string, unknown>> {
  const [resp] = await Promise.all([
    page.waitForResponse((r) => r.request().method() === 'POST' && /\/api\/(bets|mines\/rounds|blackjack\/rounds)/.test(r.url())),
    frame.locator(selector).first().click(),
  ]);
  return (await resp.json()) as Record<string, unknown>;
}

async function screenshotPage(page: Page, name: string) {
  mkdirSync(SCREENSHOT_DIR, { recursive: true });
  await page.screenshot({ path: path.join(SCREENSHOT_DIR, `${name}.png`) });
}

async function contactSheet(name: string, cells: { label: string; png: Buffer }[], cellWidth: number, perRow: number) {
  const sheet = await context.newPage();
  await sheet.setViewportSize({ width: perRow * (cellWidth + 12) + 12, height: 200 });
  const html = `<body style="margin:0;background:#111;font:13px sans-serif;color:#ddd;display:flex;flex-wrap:wrap;gap:12px;padding:12px">${cells
    .map(
      (c) =>
        `<figure style="margin:0"><figcaption style="padding:0 0 4px">${c.label}</figcaption><img style="display:block;width:${cellWidth}px;outline:1px solid #444" src="data:image/png;base64,${c.png.toString('base64')}"></figure>`,
    )
    .join('')}</body>`;
  await sheet.setContent(html);
  mkdirSync(SCREENSHOT_DIR, { recursive: true });
  await sheet.screenshot({ path: path.join(SCREENSHOT_DIR, `${name}.png`), fullPage: true });
  await sheet.close();
}

describe.each(SIZES)('every game at $width×$height in a casino iframe on another origin', (size) => {
  let page: Page;
  beforeAll(async () => {
    page = await context.newPage();
    await page.setViewportSize(size);
  });
  afterAll(() => page.close());

  it.each([true, false])('fill=1: %s — bet and action controls in the viewport and hit by a click', async (fill) => {
    const mayScroll = !fill && size.height < 700;
    const player = `lay-${size.width}-${fill ? 'f' : 'n'}`;
    const token = stack.player(player, 'lay-usd', '5000');
    const src = stack.launchUrl({ operatorId: 'lay-usd', game: 'dice', token, mode: 'lobby', embed: '1', ...(fill ? { fill: '1' } : {}) });
    await page.goto(casino.url(src, { height: fill ? size.height : 0 }));
    expect(new URL(page.url()).origin).not.toBe(new URL(stack.base).origin);
    const frame = await frameOf(page);
    await frame.locator('[data-testid=game-dice]').waitFor();
    const cells: { label: string; png: Buffer }[] = [];
    for (const game of GAMES) {
      if (game !== 'dice') {
        await frame.locator(`[data-testid=game-switcher] [data-game=${game}]`).click();
        await frame.locator(`[data-testid=game-${game}]`).waitFor();
      }
      if (fill) expect(await frame.evaluate(() => document.documentElement.scrollHeight <= innerHeight + 1)).toBe(true);
      else await page.waitForFunction(() => (document.getElementById('game') as HTMLIFrameElement).getBoundingClientRect().height > 200);
      if (game === 'keno') await frame.locator('[data-testid=keno-auto]').click();
      await expect.poll(() => frame.locator('[data-testid=bet-button]').isEnabled()).toBe(true);
      await expectReachable(page, frame, '[data-testid=bet-button]', `${game} bet`, mayScroll);
      let answer = await press(page, frame, '[data-testid=bet-button]');
      if (game === 'mines') {
        await expect.poll(() => frame.locator('[data-testid=tile-24]').isEnabled()).toBe(true);
        for (const tile of [0, 24]) await expectReachable(page, frame, `[data-testid=tile-${tile}]`, `mines tile ${tile}`, mayScroll);
        answer = await press(page, frame, '[data-testid=tile-12]');
        if (answer.roundStatus === 'active') {
          await expect.poll(() => frame.locator('[data-testid=cashout-button]').isEnabled()).toBe(true);
          await expectReachable(page, frame, '[data-testid=cashout-button]', 'mines cash out', mayScroll);
          answer = await press(page, frame, '[data-testid=cashout-button]');
        }
      }
      let shotDuringRound: Buffer | null = null;
      while (game === 'blackjack' && answer.roundStatus === 'active') {
        const actions = ((answer.result as { actions?: string[] }).actions ?? []) as string[];
        const buttons = actions.includes('insurance')
          ? ['bj-insurance', 'bj-decline']
          : actions.filter((a) => ['hit', 'stand', 'double', 'split'].includes(a)).map((a) => `bj-${a}`);
        for (const b of buttons) {
          await expect.poll(() => frame.locator(`[data-testid=${b}]`).isEnabled()).toBe(true);
          await expectReachable(page, frame, `[data-testid=${b}]`, `blackjack ${b}`, mayScroll);
        }
        await frame.evaluate(() => Promise.all(document.getAnimations().map((a) => a.finished.catch(() => undefined))));
        shotDuringRound ??= await page.screenshot();
        answer = await press(page, frame, actions.includes('insurance') ? '[data-testid=bj-decline]' : '[data-testid=bj-stand]');
      }
      await frame.locator('[data-testid=notice].is-win, [data-testid=notice].is-loss, [data-testid=notice].is-info').first().waitFor();
      if (!fill) await page.evaluate(() => window.scrollTo(0, 0));
      // the picture once the tiles' and cards' entry animations are over (the assertions above do not wait for them)
      await frame.evaluate(() => Promise.all(document.getAnimations().map((a) => a.finished.catch(() => undefined))));
      cells.push({ label: `${game}${fill ? ' fill=1' : ''}`, png: shotDuringRound ?? (await page.screenshot()) });
    }
    const wide = size.width >= 768;
    await contactSheet(`layout-${fill ? 'fill' : 'natural'}-${size.width}x${size.height}`, cells, wide ? 640 : size.width, wide ? 3 : 6);
  });
});

describe('amounts as the player meant them (issue 29, defect 2)', () => {
  it('English refuses “1,5” (ambiguous) and reads “1.5”; German reads “1,5” as 1.50; the amount is shown on the bet button before the bet', async () => {
    const page = await context.newPage();
    await page.setViewportSize({ width: 360, height: 740 });
    const open = async (operatorId: string, lang: string, player: string) => {
      const token = stack.player(player, operatorId);
      await page.goto(casino.url(stack.launchUrl({ operatorId, game: 'dice', token, embed: '1', fill: '1', lang }), { height: 740 }));
      const frame = await frameOf(page);
      await frame.locator('[data-testid=game-dice]').waitFor();
      return frame;
    };
    const en = await open('lay-usd', 'en', 'amt-en');
    const input = en.locator('[data-testid=amount-input]');
    await input.fill('1,5');
    expect(await en.locator('[data-testid=bet-button]').isDisabled()).toBe(true);
    expect(await en.locator('[data-testid=amount-hint]').textContent()).toBe('“1,5” is unclear: write decimals with “.”, e.g. 1.5.');
    expect(await en.locator('[data-testid=bet-button-amount]').count()).toBe(0);
    for (const [typed, understood] of [
      ['1.5', '1.50 USD'],
      ['1,000.50', '1,000.50 USD'],
    ] as const) {
      await input.fill(typed);
      expect(await en.locator('[data-testid=bet-button-amount]').textContent()).toBe(understood);
    }
    await input.fill('1,50');
    expect(await en.locator('[data-testid=bet-button]').isDisabled()).toBe(true);
    await input.fill('1.5');
    const bet = await press(page, en, '[data-testid=bet-button]');
    expect((bet.bet as { amount: number }).amount).toBe(1.5);

    const de = await open('lay-eur', 'de', 'amt-de');
    await de.locator('[data-testid=amount-input]').fill('1,5');
    expect(await de.locator('[data-testid=bet-button-amount]').textContent()).toBe('1,50 EUR');
    await de.locator('[data-testid=amount-input]').fill('1.5');
    expect(await de.locator('[data-testid=bet-button]').isDisabled()).toBe(true);
    expect(await de.locator('[data-testid=amount-hint]').textContent()).toContain('„1.5“ ist nicht eindeutig');
    await de.locator('[data-testid=amount-input]').fill('1,5');
    const deBet = await press(page, de, '[data-testid=bet-button]');
    expect((deBet.bet as { amount: number }).amount).toBe(1.5);
    await page.close();
  });
});

describe('limits before the click (issue 29, defect 3)', () => {
  it('Limbo at 1000× with a 1,000 stake warns about maxPayout and keeps Bet disabled; a 1,000,000× target shows its real win chance', async () => {
    const page = await context.newPage();
    const token = stack.player('cap-ann', 'lay-cap', '5000');
    await page.goto(stack.launchUrl({ operatorId: 'lay-cap', game: 'limbo', token }));
    await page.locator('[data-testid=game-limbo]').waitFor();
    const posts: string[] = [];
    page.on('request', (r) => void (r.method() === 'POST' && r.url().includes('/api/bets') && posts.push(r.url())));
    await page.locator('[data-testid=limbo-target]').fill('1000');
    await page.locator('[data-testid=limbo-target]').blur();
    await page.locator('[data-testid=amount-input]').fill('1000');
    // maxPayout 100,000.00: a win would pay 1,000,000.00
    expect(await page.locator('[data-testid=amount-hint]').textContent()).toBe(
      'A win could pay 1,000,000.00 USD, above this casino’s limit of 100,000.00 USD: bet at most 100.00 USD.',
    );
    expect(await page.locator('[data-testid=bet-button]').isDisabled()).toBe(true);
    await page.keyboard.press('Space');
    await page.locator('[data-testid=amount-input]').fill('100');
    expect(await page.locator('[data-testid=bet-button]').isEnabled()).toBe(true);
    await page.locator('[data-testid=limbo-target]').fill('1000000');
    await page.locator('[data-testid=limbo-target]').blur();
    expect(await page.locator('[data-testid=limbo-chance]').inputValue()).toBe('0.000099');
    expect(await page.locator('[data-testid=bet-button]').isDisabled()).toBe(true);
    expect(posts).toEqual([]);
    // Mines caps instead of refusing: a note, the button stays enabled
    await page.goto(stack.launchUrl({ operatorId: 'lay-cap', game: 'mines', token: stack.token('cap-ann', 'lay-cap') }));
    await page.locator('[data-testid=game-mines]').waitFor();
    await page.locator('[data-testid=mines-count]').selectOption('12');
    await page.locator('[data-testid=amount-input]').fill('100');
    expect(await page.locator('[data-testid=amount-hint]').textContent()).toBe('Wins are paid up to 100,000.00 USD (this casino’s limit).');
    expect(await page.locator('[data-testid=bet-button]').isEnabled()).toBe(true);
    await page.close();
  });
});

describe('Blackjack at 360×740 (issue 29, defect 4)', () => {
  it('standalone: every action in view without scrolling; split hands stay side by side through settlement', async () => {
    const page = await context.newPage();
    await page.setViewportSize({ width: 360, height: 740 });
    const token = stack.player('bj-split', 'lay-usd', '1000');
    await page.goto(stack.launchUrl({ operatorId: 'lay-usd', game: 'blackjack', token }));
    await page.locator('[data-testid=game-blackjack]').waitFor();
    // a client seed under which the deal is a pair (not aces) against a dealer 2–9: split is offered, no insurance
    const pair = await stack.t.services.db('seed_pairs').where({ operator_id: 'lay-usd', player_ref: 'bj-split', revealed: false }).first();
    let seed = '';
    for (let i = 0; !seed; i++) {
      const deck = floats(pair.server_seed, `split-${i}`, BigInt(pair.next_nonce), 4).map(cardFromFloat);
      const [a, b, up] = deck.map((c) => rankOf(c));
      if (a === b && a !== 'A' && !['10', 'J', 'Q', 'K', 'A'].includes(up!)) seed = `split-${i}`;
    }
    await page.locator('[data-testid=shield]').click();
    await page.locator('[data-testid=client-seed-input]').fill(seed);
    await page.locator('[data-testid=client-seed-save]').click();
    await page.locator('[data-testid=shield]').click();
    const frame = page.mainFrame();
    let answer = await press(page, frame, '[data-testid=bet-button]');
    expect((answer.result as { actions: string[] }).actions).toContain('split');
    for (const b of ['bj-hit', 'bj-stand', 'bj-double', 'bj-split']) {
      const box = (await page.locator(`[data-testid=${b}]`).boundingBox())!;
      expect(box.y + box.height, b).toBeLessThanOrEqual(740);
      expect(
        await page.locator(`[data-testid=${b}]`).evaluate((el) => {
          const r = el.getBoundingClientRect();
          const h = document.elementFromPoint(r.x + r.width / 2, r.y + r.height / 2);
          return h === el || el.contains(h);
        }),
        b,
      ).toBe(true);
    }
    answer = await press(page, frame, '[data-testid=bj-split]');
    const boxes = async () => Promise.all([0, 1].map(async (i) => (await page.locator(`[data-testid=hand-${i}]`).boundingBox())!));
    await page.locator('[data-testid=hand-1]').waitFor();
    const before = await boxes();
    expect(before[1]!.x).toBeGreaterThan(before[0]!.x + before[0]!.width - 1); // side by side
    expect(Math.abs(before[1]!.y - before[0]!.y)).toBeLessThan(1);
    while (answer.roundStatus === 'active') {
      await expect.poll(() => page.locator('[data-testid=bj-stand]').isEnabled()).toBe(true);
      const stand = (await page.locator('[data-testid=bj-stand]').boundingBox())!;
      expect(stand.y + stand.height).toBeLessThanOrEqual(740);
      answer = await press(page, frame, '[data-testid=bj-stand]');
    }
    await page.locator('[data-testid=notice].is-win, [data-testid=notice].is-loss, [data-testid=notice].is-info').first().waitFor();
    await page.locator('[data-testid=hand-1][data-outcome]:not([data-outcome=""])').waitFor();
    const after = await boxes();
    expect(Math.abs(after[1]!.y - after[0]!.y)).toBeLessThan(1);
    expect(after[1]!.x).toBeGreaterThan(after[0]!.x + after[0]!.width - 1);
    for (const i of [0, 1]) expect(Math.abs(after[i]!.y - before[i]!.y), `hand ${i} moved`).toBeLessThan(2);
    await screenshotPage(page, 'blackjack-split-mobile');
    await page.close();
  });
});
