/**
 * Floats that deal chosen Blackjack cards: for tests and demos that need a given hand (the
 * provider's tests find a client seed whose stream deals them, or feed them to the engine).
 */
import { CARDS } from './blackjack-cards.js';

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
