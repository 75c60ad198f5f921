/**
 * The `result` object of each game as a bet answer carries it (CONTRACT.md §12), as zod schemas:
 * the provider's response schemas strip anything else (nothing leaks by accident) and feed
 * /openapi.json; the game page and the verifier can read answers with them.
 */
import { z } from 'zod';
import { KENO_RISKS, PLINKO_RISKS } from './paytables.js';

/** A JSON number (an amount may arrive as the exact text of a lossless parse). */
const amount = z
  .custom<number | { isLosslessNumber: true }>((v) => typeof v === 'number' || (typeof v === 'object' && v !== null && 'isLosslessNumber' in v))
  .meta({ type: 'number' });
const card = z.string().meta({ description: 'rank + suit letter: AS, 10H, KD, 2C' });
const tile = z.number().int().min(0).max(24);

export const diceResultSchema = z.object({ roll: z.number(), target: z.number(), direction: z.enum(['over', 'under']), winChance: z.number() });
export const limboResultSchema = z.object({ result: z.number(), target: z.number() });
export const plinkoResultSchema = z.object({
  rows: z.number().int(),
  risk: z.enum(PLINKO_RISKS),
  path: z.array(z.number().int().min(0).max(1)),
  bin: z.number().int(),
});
export const kenoResultSchema = z.object({
  picks: z.array(z.number().int()),
  drawn: z.array(z.number().int()),
  hits: z.array(z.number().int()),
  risk: z.enum(KENO_RISKS),
});
export const minesResultSchema = z.object({
  mineCount: z.number().int(),
  revealed: z.array(tile),
  multiplier: z.number(),
  nextMultiplier: z.number().nullable(),
  mines: z.array(tile).optional(),
});

const blackjackAction = z.enum(['hit', 'stand', 'double', 'split', 'insurance']);
export const blackjackResultSchema = z.object({
  dealer: z.object({ cards: z.array(card), value: z.number().int(), soft: z.boolean() }),
  hands: z.array(
    z.object({
      cards: z.array(card),
      value: z.number().int(),
      soft: z.boolean(),
      bet: amount,
      doubled: z.boolean(),
      status: z.enum(['playing', 'stood', 'bust']),
      outcome: z.enum(['win', 'lose', 'push', 'blackjack']).optional(),
      payout: amount.optional(),
    }),
  ),
  activeHand: z.number().int().nullable(),
  insurance: z.object({ offered: z.boolean(), taken: z.boolean().nullable(), amount, payout: amount }),
  actions: z.array(blackjackAction),
  withdrawnActions: z.array(blackjackAction).optional(),
  cards: z.array(card).optional(),
});

/** Any game's result (each has keys of its own, so exactly one schema fits an answer). */
export const gameResultSchema = z.union([blackjackResultSchema, minesResultSchema, kenoResultSchema, plinkoResultSchema, diceResultSchema, limboResultSchema]);

/** Any game's result object, as a bet answer carries it. */
export type GameResult = z.input<typeof gameResultSchema>;
