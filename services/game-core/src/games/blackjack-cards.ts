/**
 * Blackjack cards (CONTRACT.md §10, §12): card_j = CARDS[floor(f_j × 52)], CARDS ordered rank by
 * rank 2..10, J, Q, K, A and within a rank suits ♦ ♥ ♠ ♣ (letters D H S C); a card is written
 * rank + suit letter (`AS`, `10H`, `KD`, `2C`). Unlimited decks: each card is independent.
 * Hand values count aces as 1 or 11 (soft while one counts 11).
 */
import { floorMul } from './exact.js';

export const RANKS = ['2', '3', '4', '5', '6', '7', '8', '9', '10', 'J', 'Q', 'K', 'A'] as const;
export const SUITS = ['D', 'H', 'S', 'C'] as const;
export type Rank = (typeof RANKS)[number];

export const CARDS: readonly string[] = RANKS.flatMap((rank) => SUITS.map((suit) => `${rank}${suit}`));
export const BLACKJACK_FLOATS = 52;

export function cardFromFloat(f: number): string {
  const card = CARDS[floorMul(f, CARDS.length)];
  if (card === undefined) throw new RangeError('card index out of range');
  return card;
}

export function rankOf(card: string): string {
  return card.slice(0, -1);
}

/** Points of a card with an ace counted as 1. */
export function cardPoints(card: string): number {
  const rank = rankOf(card);
  if (rank === 'A') return 1;
  if (rank === 'J' || rank === 'Q' || rank === 'K') return 10;
  const n = Number(rank);
  if (!Number.isInteger(n) || n < 2 || n > 10) throw new RangeError(`not a card: ${card}`);
  return n;
}

export function isTenValue(card: string): boolean {
  return cardPoints(card) === 10;
}

export function isAce(card: string): boolean {
  return rankOf(card) === 'A';
}

export function handValue(cards: readonly string[]): { value: number; soft: boolean } {
  let total = 0;
  let aces = false;
  for (const card of cards) {
    const p = cardPoints(card);
    total += p;
    if (p === 1) aces = true;
  }
  return aces && total + 10 <= 21 ? { value: total + 10, soft: true } : { value: total, soft: false };
}

/** Two cards worth 21. Whether it counts as a blackjack (not after a split) is the engine's call. */
export function isTwoCard21(cards: readonly string[]): boolean {
  return cards.length === 2 && handValue(cards).value === 21;
}
