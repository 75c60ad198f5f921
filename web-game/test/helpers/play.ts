/** Plays one round of a game in the page to its final result, the way a player would. */
import type { Frame, Page, Response } from 'playwright-core';
import { expect } from 'vitest';

export interface Played {
  roundId: string;
  roundStatus: string;
  payout: string;
  answers: Record<string, unknown>[];
}

const isRoundPost = (r: Response) => r.request().method() === 'POST' && /\/api\/(bets|mines\/rounds|blackjack\/rounds)/.test(r.url());

async function click(page: Page, target: Page | Frame, selector: string): Promise<Record<string, unknown>> {
  const [resp] = await Promise.all([page.waitForResponse(isRoundPost), target.locator(selector).click()]);
  const text = await resp.text();
  return JSON.parse(text.replace(/("(?:amount|payout|balance|totalStaked|bet)":)(-?[0-9.eE+-]+)/g, '$1"$2"'));
}

/** Waits for the result line of the round (the animation is over and the balance applied); every action clears the line when it starts. */
export async function waitForResult(target: Page | Frame): Promise<void> {
  await target.locator('[data-testid=notice].is-win, [data-testid=notice].is-loss, [data-testid=notice].is-info').first().waitFor();
}

export async function playRound(page: Page, game: string, target: Page | Frame = page): Promise<Played> {
  const answers: Record<string, unknown>[] = [];
  if (game === 'keno' && (await target.locator('[data-testid^=keno-][data-state=picked]').count()) === 0)
    await target.locator('[data-testid=keno-auto]').click();
  let last = await click(page, target, '[data-testid=bet-button]');
  answers.push(last);
  if (game === 'mines' && last.roundStatus === 'active') {
    last = await click(page, target, '[data-testid=tile-12]');
    answers.push(last);
    if (last.roundStatus === 'active') {
      await expect.poll(() => target.locator('[data-testid=cashout-button]').isEnabled()).toBe(true);
      last = await click(page, target, '[data-testid=cashout-button]');
      answers.push(last);
    }
  }
  while (game === 'blackjack' && last.roundStatus === 'active') {
    const actions = ((last.result as { actions?: string[] }).actions ?? []) as string[];
    const selector = actions.includes('insurance') ? '[data-testid=bj-decline]' : actions.includes('stand') ? '[data-testid=bj-stand]' : '[data-testid=bj-hit]';
    await expect.poll(() => target.locator(selector).isEnabled()).toBe(true);
    last = await click(page, target, selector);
    answers.push(last);
  }
  await waitForResult(target);
  const bet = last.bet as { payout: string };
  return { roundId: String(last.roundId), roundStatus: String(last.roundStatus), payout: bet.payout, answers };
}

/** "0.5" → 50n (2 decimals). */
export function minorOf(text: string, decimals: number): bigint {
  const [int = '0', frac = ''] = text.split('.');
  return BigInt(int + frac.padEnd(decimals, '0'));
}
