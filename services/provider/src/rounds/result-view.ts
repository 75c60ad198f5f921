/**
 * What a round's `result` shows: the stored result of a closed round; for an open Mines or
 * Blackjack round only what the player may see (no mines, no hole card, no undealt cards).
 */
import type { Round } from './round-store.js';
import { minesPlayerView } from './mines.js';
import { blackjackPlayerView } from './blackjack.js';

export function playerResultView(round: Round): unknown {
  if (round.gameType === 'mines') return minesPlayerView(round);
  if (round.gameType === 'blackjack') return blackjackPlayerView(round);
  return round.result ?? null;
}
