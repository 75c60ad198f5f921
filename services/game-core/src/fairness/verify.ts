/**
 * POST /api/verify, pure (CONTRACT.md §9, §12 "Verify"): recomputes a bet from its revealed
 * inputs. The serverSeed (any text of 1 to 256 characters) must hash to the given serverSeedHash,
 * else VALIDATION_ERROR. Mines: params.mineCount and optional params.revealed (tiles in order)
 * give result.mines and the multiplier. Blackjack: result.cards holds the 52 cards, and
 * params.actions (hit, stand, double, split, insurance, decline_insurance, in order) play the
 * round; an action not legal at that point is a VALIDATION_ERROR.
 */
import { z } from 'zod';
import { RuleError } from '../errors.js';
import { applyMultiplier, decimalsOf, isCurrencyCode } from '../money/index.js';
import { BLACKJACK_ACTIONS, applyBlackjackAction, isFinal, legalActions, settlement, startBlackjack, totalStaked } from '../games/blackjack.js';
import type { BlackjackState } from '../games/blackjack.js';
import { BLACKJACK_FLOATS } from '../games/blackjack-cards.js';
import { blackjackResultView } from '../games/blackjack-view.js';
import type { BlackjackResultView } from '../games/blackjack-view.js';
import { minorToNumber } from '../games/exact.js';
import { GAME_TYPES, INSTANT_GAMES, isInstantGame, parseGameParams } from '../games/games.js';
import type { GameType, InstantGameDefinition, InstantGameType, ParamsByGame, ResultByGame } from '../games/games.js';
import { MINES_FLOATS, cashoutMultiplier, minesResultView, revealTile, startMines } from '../games/mines.js';
import type { MinesResultView } from '../games/mines.js';
import { floats } from './stream.js';
import type { Nonce } from './stream.js';
import { hashServerSeed, isValidVerifyServerSeed } from './seeds.js';

export interface VerifyInput {
  gameType: string;
  serverSeed: string;
  serverSeedHash: string;
  clientSeed: string;
  nonce: Nonce;
  /** the bet's (starting) stake in minor units of `currency` */
  amountMinor: bigint;
  /** default USD */
  currency?: string;
  params?: unknown;
  /** How amounts inside a Blackjack result are written (default: a JS number in the currency's decimals). */
  toAmount?: (minor: bigint) => unknown;
}

export interface VerifyOutput {
  gameType: GameType;
  result: unknown;
  multiplier4: bigint;
  payoutMinor: bigint;
  /** payout > totalStaked */
  won: boolean;
  /** the amount, for Blackjack every stake of the replayed round */
  totalStakedMinor: bigint;
}

const minesVerifyParams = z
  .object({
    mineCount: z.number().int().min(1).max(24).default(3),
    revealed: z.array(z.number().int().min(0).max(24)).max(25).default([]),
  })
  .prefault({});

const blackjackVerifyParams = z.object({ actions: z.array(z.enum(BLACKJACK_ACTIONS)).max(64).default([]) }).prefault({});

function invalid(message: string): RuleError {
  return new RuleError('VALIDATION_ERROR', message);
}

function parse<T>(schema: z.ZodType<T, unknown>, raw: unknown, what: string): T {
  const r = schema.safeParse(raw ?? {});
  if (!r.success) throw new RuleError('VALIDATION_ERROR', `invalid ${what} params: ${z.prettifyError(r.error)}`, { issues: r.error.issues });
  return r.data;
}

function verifyMines(fl: readonly number[], raw: unknown, amount: bigint): { result: MinesResultView; multiplier4: bigint; payout: bigint } {
  const params = parse(minesVerifyParams, raw, 'mines');
  let state = startMines(fl, params.mineCount);
  for (const tile of params.revealed) {
    if (state.status !== 'active') throw invalid('revealed continues after the round ended');
    if (state.revealed.includes(tile)) throw invalid(`tile ${tile} is revealed twice`);
    state = revealTile(state, tile).state;
  }
  const multiplier4 = cashoutMultiplier(state);
  return { result: { ...minesResultView(state), mines: [...state.mines] }, multiplier4, payout: applyMultiplier(amount, multiplier4) };
}

function verifyBlackjack(
  fl: readonly number[],
  raw: unknown,
  amount: bigint,
  toAmount: (minor: bigint) => unknown,
): { result: BlackjackResultView<unknown>; multiplier4: bigint; payout: bigint; staked: bigint } {
  const params = parse(blackjackVerifyParams, raw, 'blackjack');
  let state: BlackjackState = startBlackjack(fl, amount);
  for (const [i, action] of params.actions.entries()) {
    if (!legalActions(state).includes(action)) throw invalid(`action ${i} (${action}) is not available at that point`);
    state = applyBlackjackAction(state, action).state;
  }
  const view = blackjackResultView(state, toAmount);
  if (!isFinal(state)) {
    // not played to the end: the player's view, with the cards (the seed is revealed anyway)
    return { result: { ...view, cards: [...state.deck] }, multiplier4: 0n, payout: 0n, staked: totalStaked(state) };
  }
  const s = settlement(state);
  return { result: view, multiplier4: s.multiplier4, payout: s.totalPayout, staked: s.totalStaked };
}

export function verifyBet(input: VerifyInput): VerifyOutput {
  if (!(GAME_TYPES as readonly string[]).includes(input.gameType)) throw invalid(`unknown gameType ${input.gameType}`);
  const gameType = input.gameType as GameType;
  if (!isValidVerifyServerSeed(input.serverSeed)) throw invalid('serverSeed must be 1 to 256 characters');
  if (hashServerSeed(input.serverSeed) !== input.serverSeedHash.toLowerCase()) {
    throw invalid('serverSeed does not match serverSeedHash');
  }
  const currency = input.currency ?? 'USD';
  if (!isCurrencyCode(currency)) throw new RuleError('UNSUPPORTED_CURRENCY', `currency ${currency} is not supported`);
  const decimals = decimalsOf(currency);
  const nonceOk = typeof input.nonce === 'bigint' ? input.nonce >= 0n : Number.isSafeInteger(input.nonce) && input.nonce >= 0;
  if (!nonceOk) throw invalid('nonce must be a non-negative integer');
  const amount = input.amountMinor;
  if (amount <= 0n) throw invalid('amount must be positive');

  if (gameType === 'mines') {
    const fl = floats(input.serverSeed, input.clientSeed, input.nonce, MINES_FLOATS);
    const r = verifyMines(fl, input.params, amount);
    return { gameType, result: r.result, multiplier4: r.multiplier4, payoutMinor: r.payout, won: r.payout > amount, totalStakedMinor: amount };
  }
  if (gameType === 'blackjack') {
    const fl = floats(input.serverSeed, input.clientSeed, input.nonce, BLACKJACK_FLOATS);
    const r = verifyBlackjack(fl, input.params, amount, input.toAmount ?? ((m) => minorToNumber(m, decimals)));
    return { gameType, result: r.result, multiplier4: r.multiplier4, payoutMinor: r.payout, won: r.payout > r.staked, totalStakedMinor: r.staked };
  }
  if (!isInstantGame(gameType)) throw invalid(`unknown gameType ${gameType}`);
  return verifyInstant(gameType, input, amount);
}

function verifyInstant<K extends InstantGameType>(gameType: K, input: VerifyInput, amount: bigint): VerifyOutput {
  const game: InstantGameDefinition<ParamsByGame[K], ResultByGame[K]> = INSTANT_GAMES[gameType];
  const params = parseGameParams(gameType, input.params);
  const fl = floats(input.serverSeed, input.clientSeed, input.nonce, game.floatsNeeded(params));
  const { result, multiplier4 } = game.settle(fl, params);
  const payout = applyMultiplier(amount, multiplier4);
  return { gameType, result, multiplier4, payoutMinor: payout, won: payout > amount, totalStakedMinor: amount };
}
