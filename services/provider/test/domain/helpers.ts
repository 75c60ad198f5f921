/** Test helpers: floats that select wanted blackjack cards or mine positions. */
import { CARDS } from '../../src/domain/games/blackjack-cards.js';

/** The float that picks CARDS[index]: (index + 0.5) / 52. */
export function floatForCard(card: string): number {
  const index = CARDS.indexOf(card);
  if (index < 0) throw new Error(`no card ${card}`);
  return (index + 0.5) / 52;
}

/**
 * 52 floats dealing `cards` in order (0, 1 player; 2 up; 3 hole; then draws), the rest filled
 * with `filler` (default 2D, a card no scenario should reach unnoticed).
 */
export function deck(cards: string[], filler = '2D'): number[] {
  const all = [...cards];
  while (all.length < 52) all.push(filler);
  return all.map(floatForCard);
}

/** A float that selects pool index `i` of a pool of size `n`: (i + 0.5) / n. */
export function pick(i: number, n: number): number {
  return (i + 0.5) / n;
}

/** JSON with bigints as strings. */
export function json(value: unknown): string {
  return JSON.stringify(value, (_k, v: unknown) => (typeof v === 'bigint' ? v.toString() : v));
}

/** The error code a function throws (undefined when it does not throw). */
export const code = (fn: () => unknown): string | undefined => {
  try {
    fn();
  } catch (e) {
    return (e as { code?: string }).code;
  }
  return undefined;
};
