/**
 * The game registry (SPEC.md "Games", CONTRACT.md §10): per game its params schema (with its
 * defaults), the number of floats a round takes and the largest multiplier its params can reach
 * (the MAX_PAYOUT_EXCEEDED check before the debit); for the single-request games the settle
 * function floats × params → { result, multiplier4 }. Mines and Blackjack rounds are played
 * through mines.ts and blackjack.ts.
 */
import { z } from 'zod';
import { RuleError } from '../errors.js';
import { BLACKJACK_MAX_MULTIPLIER4, blackjackFloatsNeeded } from './blackjack.js';
import { diceFloatsNeeded, diceMaxMultiplier4, diceParamsSchema, settleDice } from './dice.js';
import type { DiceParams, DiceResult } from './dice.js';
import { kenoFloatsNeeded, kenoMaxMultiplier4, kenoParamsSchema, settleKeno } from './keno.js';
import type { KenoParams, KenoResult } from './keno.js';
import { limboFloatsNeeded, limboMaxMultiplier4, limboParamsSchema, settleLimbo } from './limbo.js';
import type { LimboParams, LimboResult } from './limbo.js';
import { minesFloatsNeeded, minesMaxMultiplier4, minesParamsSchema } from './mines.js';
import type { MinesParams } from './mines.js';
import { plinkoFloatsNeeded, plinkoMaxMultiplier4, plinkoParamsSchema, settlePlinko } from './plinko.js';
import type { PlinkoParams, PlinkoResult } from './plinko.js';

export const GAME_TYPES = ['dice', 'limbo', 'plinko', 'keno', 'mines', 'blackjack'] as const;
export type GameType = (typeof GAME_TYPES)[number];
export const gameTypeSchema = z.enum(GAME_TYPES);
/** Settled in one request by POST /api/bets. */
export const INSTANT_GAME_TYPES = ['dice', 'limbo', 'plinko', 'keno'] as const;
export type InstantGameType = (typeof INSTANT_GAME_TYPES)[number];
/** Active rounds with several requests. */
export const ROUND_GAME_TYPES = ['mines', 'blackjack'] as const;

export function isInstantGame(type: GameType): type is InstantGameType {
  return (INSTANT_GAME_TYPES as readonly string[]).includes(type);
}

export const blackjackParamsSchema = z.object({}).prefault({});
export type BlackjackParams = z.infer<typeof blackjackParamsSchema>;

export interface ParamsByGame {
  dice: DiceParams;
  limbo: LimboParams;
  plinko: PlinkoParams;
  keno: KenoParams;
  mines: MinesParams;
  blackjack: BlackjackParams;
}

export interface ResultByGame {
  dice: DiceResult;
  limbo: LimboResult;
  plinko: PlinkoResult;
  keno: KenoResult;
}

export interface GameDefinition<P> {
  paramsSchema: z.ZodType<P, unknown>;
  floatsNeeded(params: P): number;
  /** the largest payout ÷ starting stake the params can reach, scaled by 10^4 */
  maxMultiplier4(params: P): bigint;
}

export interface InstantGameDefinition<P, R> extends GameDefinition<P> {
  /** floats of the round → result object (CONTRACT.md §12) and multiplier (0 for a loss) */
  settle(floats: readonly number[], params: P): { result: R; multiplier4: bigint };
}

export const INSTANT_GAMES: { [K in InstantGameType]: InstantGameDefinition<ParamsByGame[K], ResultByGame[K]> } = {
  dice: { paramsSchema: diceParamsSchema, floatsNeeded: diceFloatsNeeded, maxMultiplier4: diceMaxMultiplier4, settle: settleDice },
  limbo: { paramsSchema: limboParamsSchema, floatsNeeded: limboFloatsNeeded, maxMultiplier4: limboMaxMultiplier4, settle: settleLimbo },
  plinko: { paramsSchema: plinkoParamsSchema, floatsNeeded: plinkoFloatsNeeded, maxMultiplier4: plinkoMaxMultiplier4, settle: settlePlinko },
  keno: { paramsSchema: kenoParamsSchema, floatsNeeded: kenoFloatsNeeded, maxMultiplier4: kenoMaxMultiplier4, settle: settleKeno },
};

/**
 * Every game. Mines' maxMultiplier4 (every safe tile) is informative only: Mines caps the payout
 * at maxPayout instead of refusing the bet (CONTRACT.md §10). Blackjack's is 8×: split, both
 * hands doubled and won.
 */
export const GAMES: { [K in GameType]: GameDefinition<ParamsByGame[K]> } = {
  ...INSTANT_GAMES,
  mines: { paramsSchema: minesParamsSchema, floatsNeeded: minesFloatsNeeded, maxMultiplier4: minesMaxMultiplier4 },
  blackjack: { paramsSchema: blackjackParamsSchema, floatsNeeded: blackjackFloatsNeeded, maxMultiplier4: () => BLACKJACK_MAX_MULTIPLIER4 },
};

/** Parses params (undefined = {}) with the game's schema; VALIDATION_ERROR carrying the zod issues. */
export function parseGameParams<K extends GameType>(type: K, raw: unknown): ParamsByGame[K] {
  const game: GameDefinition<ParamsByGame[K]> = GAMES[type];
  const parsed = game.paramsSchema.safeParse(raw ?? {});
  if (!parsed.success) {
    throw new RuleError('VALIDATION_ERROR', `invalid ${type} params: ${z.prettifyError(parsed.error)}`, {
      issues: parsed.error.issues,
    });
  }
  return parsed.data;
}

/** Settles a single-request bet from its floats and parsed params. */
export function settleInstant<K extends InstantGameType>(
  type: K,
  floats: readonly number[],
  params: ParamsByGame[K],
): { result: ResultByGame[K]; multiplier4: bigint } {
  const game: InstantGameDefinition<ParamsByGame[K], ResultByGame[K]> = INSTANT_GAMES[type];
  return game.settle(floats, params);
}

/** A settled-game bet with its params parsed (defaults applied): what the money path needs, typed per game. */
export interface PreparedBet {
  gameType: InstantGameType;
  params: Record<string, unknown>;
  floatsNeeded: number;
  /** the largest multiplier these params can reach (MAX_PAYOUT_EXCEEDED before the debit) */
  maxMultiplier4: bigint;
  /** the result and multiplier from the round's floats */
  settle(floats: readonly number[]): { result: unknown; multiplier4: bigint };
}

/** Parses a settled game's params (VALIDATION_ERROR when they fail the game's schema) and binds its rules to them. */
export function prepareInstantBet<K extends InstantGameType>(gameType: K, rawParams: unknown): PreparedBet {
  const game: InstantGameDefinition<ParamsByGame[K], ResultByGame[K]> = INSTANT_GAMES[gameType];
  const params = parseGameParams(gameType, rawParams);
  return {
    gameType,
    params: params as Record<string, unknown>,
    floatsNeeded: game.floatsNeeded(params),
    maxMultiplier4: game.maxMultiplier4(params),
    settle: (floats) => game.settle(floats, params),
  };
}
