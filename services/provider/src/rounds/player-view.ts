/**
 * What a round's `result` shows the player (CONTRACT.md §12): the stored result of a round whose
 * result is fixed (every secret revealed then); for an open Mines or Blackjack round only what the
 * player may see — revealed tiles and multipliers but never the mines, the dealer's up card but
 * never the hole card or the undealt cards.
 */
import { CURRENCY_DECIMALS } from '@gp/game-core/money';
import {
  blackjackResultView,
  blackjackStateSchema,
  isFinal,
  minesResultView,
  minesStateSchema,
  minorToNumber,
  type BlackjackState,
  type GameResult,
  type MinesState,
} from '@gp/game-core/games';
import type { Round } from './round-store/rows.js';
import { isOpen } from './round-status.js';

const raw = (round: Round): unknown => (typeof round.state === 'string' ? JSON.parse(round.state) : round.state);

/** A Mines round's stored state (jsonb). */
export const minesStateOf = (round: Round): MinesState => minesStateSchema.parse(raw(round));
/** A Blackjack round's stored state (jsonb). */
export const blackjackStateOf = (round: Round): BlackjackState => blackjackStateSchema.parse(raw(round));

/** A Blackjack state as the `result` object, amounts as JSON numbers in the round's currency (it is stored as jsonb too). */
export function blackjackResult(state: BlackjackState, round: Pick<Round, 'currency'>) {
  const decimals = CURRENCY_DECIMALS[round.currency];
  return blackjackResultView(state, (minor) => minorToNumber(minor, decimals));
}

export function minesPlayerView(round: Round): GameResult | null {
  if (!isOpen(round)) return storedResult(round);
  return round.state === null || round.state === undefined ? null : minesResultView(minesStateOf(round));
}

/** A deal that decided the round while its debit is still on its way shows no outcome yet. */
export function blackjackPlayerView(round: Round): GameResult | null {
  if (!isOpen(round)) return storedResult(round);
  if (round.state === null || round.state === undefined) return null;
  const state = blackjackStateOf(round);
  return blackjackResult(isFinal(state) ? { ...state, phase: 'player', activeHand: null } : state, round);
}

export function playerResultView(round: Round): GameResult | null {
  if (round.gameType === 'mines') return minesPlayerView(round);
  if (round.gameType === 'blackjack') return blackjackPlayerView(round);
  return storedResult(round);
}

/** The result the round stored (jsonb) once it was fixed: the game's result object, written by the money path. */
const storedResult = (round: Round): GameResult | null => (round.result ?? null) as GameResult | null;
