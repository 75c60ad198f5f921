/**
 * What a round's `result` shows: the stored result of a closed round; for an open Mines or
 * Blackjack round only what the player may see (no mines, no hole card, no undealt cards).
 */
import type { Round } from './round-store.js';

export function playerResultView(round: Round): unknown {
  return round.result ?? null;
}
