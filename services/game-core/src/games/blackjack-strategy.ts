/**
 * Blackjack basic strategy for an unlimited deck (S17, DAS, split once, split aces one card, no
 * surrender, dealer peeks, no insurance) and the exact expected return of playing it, per starting
 * stake, by recursion over the infinite-deck card probabilities. The RTP simulation
 * (scripts/rtp.ts) plays the strategy through the engine and compares with this figure; the game
 * catalogue publishes it. Probabilities are JS numbers: statistics, not money.
 */
import type { BlackjackAction, BlackjackState } from './blackjack.js';
import { legalActions } from './blackjack.js';
import { cardPoints, handValue } from './blackjack-cards.js';

export type Move = 'hit' | 'stand' | 'double' | 'split';

/**
 * up: dealer up card points (1 = Ace .. 10). pair: the pair's card points when a split is
 * allowed, else null. Doubles fall back to hit (soft 18: stand) when doubling is not allowed.
 */
export function basicStrategy(value: number, soft: boolean, canDouble: boolean, pair: number | null, up: number): Move {
  const u = up === 1 ? 11 : up;
  if (pair !== null) {
    const split =
      pair === 1 ||
      pair === 8 ||
      ((pair === 2 || pair === 3 || pair === 7) && u <= 7) ||
      (pair === 6 && u <= 6) ||
      (pair === 4 && (u === 5 || u === 6)) ||
      (pair === 9 && u !== 7 && u !== 10 && u !== 11);
    if (split) return 'split';
  }
  const dbl = (fallback: Move): Move => (canDouble ? 'double' : fallback);
  if (soft) {
    if (value >= 19) return 'stand';
    if (value === 18) return u >= 3 && u <= 6 ? dbl('stand') : u <= 8 ? 'stand' : 'hit';
    if (value === 17) return u >= 3 && u <= 6 ? dbl('hit') : 'hit';
    if (value >= 15) return u >= 4 && u <= 6 ? dbl('hit') : 'hit';
    if (value >= 13) return u >= 5 && u <= 6 ? dbl('hit') : 'hit';
    return 'hit';
  }
  if (value >= 17) return 'stand';
  if (value >= 13) return u <= 6 ? 'stand' : 'hit';
  if (value === 12) return u >= 4 && u <= 6 ? 'stand' : 'hit';
  if (value === 11) return u <= 10 ? dbl('hit') : 'hit';
  if (value === 10) return u <= 9 ? dbl('hit') : 'hit';
  if (value === 9) return u >= 3 && u <= 6 ? dbl('hit') : 'hit';
  return 'hit';
}

/** The basic-strategy action in an engine state (never insurance). */
export function strategyAction(s: BlackjackState): BlackjackAction {
  const legal = legalActions(s);
  if (legal.includes('decline_insurance')) return 'decline_insurance';
  const hand = s.hands[s.activeHand ?? 0]!;
  const { value, soft } = handValue(hand.cards);
  const pair = legal.includes('split') ? cardPoints(hand.cards[0]!) : null;
  return basicStrategy(value, soft, legal.includes('double'), pair, cardPoints(s.dealer[0]!));
}

// ---- exact infinite-deck expectation of that strategy ---------------------------------------

/** Card points 1 (Ace) .. 10 and their probabilities in an unlimited deck. */
const POINTS = [1, 2, 3, 4, 5, 6, 7, 8, 9, 10];
const P = (c: number): number => (c === 10 ? 4 / 13 : 1 / 13);
const total = (sum: number, ace: boolean): number => (ace && sum + 10 <= 21 ? sum + 10 : sum);

/** Dealer's final total (17..21, 22 = bust) given the up card, conditioned on no blackjack. */
function dealerFinal(up: number): Map<number, number> {
  const out = new Map<number, number>();
  const draw = (sum: number, ace: boolean, p: number): void => {
    const v = sum > 21 ? 22 : total(sum, ace);
    if (v >= 17) out.set(v, (out.get(v) ?? 0) + p);
    else for (const c of POINTS) draw(sum + c, ace || c === 1, p * P(c));
  };
  const excluded = up === 1 ? 10 : up === 10 ? 1 : 0; // the peek found no blackjack
  const norm = 1 - (excluded ? P(excluded) : 0);
  for (const hole of POINTS) if (hole !== excluded) draw(up + hole, up === 1 || hole === 1, P(hole) / norm);
  return out;
}

export function blackjackTheory(): number {
  let ev = 0;
  for (const up of POINTS) {
    const dealer = dealerFinal(up);
    const standEv = (v: number): number => {
      let e = 0;
      for (const [d, p] of dealer) e += p * (d > 21 || v > d ? 1 : v === d ? 0 : -1);
      return e;
    };
    const memo = new Map<string, number>();
    /** EV per stake of a hand (sum with aces as 1), no split possible. */
    const hand = (sum: number, ace: boolean, canDouble: boolean): number => {
      if (sum > 21) return -1;
      const v = total(sum, ace);
      if (v === 21) return standEv(21);
      const key = `${sum}/${ace}/${canDouble}`;
      const hit = memo.get(key);
      if (hit !== undefined) return hit;
      const move = basicStrategy(v, v !== sum, canDouble, null, up);
      let e: number;
      if (move === 'stand') e = standEv(v);
      else if (move === 'double') e = 2 * POINTS.reduce((a, c) => a + P(c) * (sum + c > 21 ? -1 : standEv(total(sum + c, ace || c === 1))), 0);
      else e = POINTS.reduce((a, c) => a + P(c) * hand(sum + c, ace || c === 1, false), 0);
      memo.set(key, e);
      return e;
    };
    const splitHand = (c1: number): number =>
      POINTS.reduce((a, c) => {
        const sum = c1 + c;
        const ace = c1 === 1 || c === 1;
        return a + P(c) * (c1 === 1 ? standEv(total(sum, ace)) : hand(sum, ace, true));
      }, 0);
    const pBj = up === 1 ? P(10) : up === 10 ? P(1) : 0;
    for (const c1 of POINTS) {
      for (const c2 of POINTS) {
        const p = P(c1) * P(c2);
        const natural = (c1 === 1 && c2 === 10) || (c1 === 10 && c2 === 1);
        let e: number;
        if (natural) e = 1.5;
        else {
          // a ten-value pair is equal in rank only 1 time in 4, but basic strategy never splits tens
          const pair = c1 === c2 && c1 !== 10 ? c1 : null;
          const v = total(c1 + c2, c1 === 1 || c2 === 1);
          const move = basicStrategy(v, v !== c1 + c2, true, pair, up);
          e = move === 'split' ? 2 * splitHand(c1) : hand(c1 + c2, c1 === 1 || c2 === 1, true);
        }
        ev += P(up) * p * (pBj * (natural ? 0 : -1) + (1 - pBj) * e);
      }
    }
  }
  return 1 + ev;
}
