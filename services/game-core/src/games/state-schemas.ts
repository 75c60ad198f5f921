/**
 * Schemas of the stored round states of Mines and Blackjack, for reading them back from jsonb
 * (the states themselves are defined in mines.ts and blackjack.ts).
 */
import { z } from 'zod';
import type { BlackjackState } from './blackjack.js';
import type { MinesState } from './mines.js';

const tile = z.number().int().min(0).max(24);
const card = z.string().regex(/^(10|[2-9JQKA])[DHSC]$/);
const minor = z.string().regex(/^\d+$/);

export const minesStateSchema: z.ZodType<MinesState> = z.object({
  mineCount: z.number().int().min(1).max(24),
  mines: z.array(tile),
  revealed: z.array(tile),
  status: z.enum(['active', 'busted', 'cashed_out']),
});

export const blackjackStateSchema: z.ZodType<BlackjackState> = z.object({
  version: z.literal(1),
  deck: z.array(card).length(52),
  next: z.number().int().min(4).max(52),
  baseBet: minor,
  dealer: z.array(card).min(2),
  hands: z
    .array(
      z.object({
        cards: z.array(card).min(1),
        bet: minor,
        doubled: z.boolean(),
        status: z.enum(['playing', 'stood', 'bust']),
      }),
    )
    .min(1)
    .max(2),
  split: z.boolean(),
  activeHand: z.number().int().min(0).max(1).nullable(),
  phase: z.enum(['insurance', 'player', 'final']),
  insurance: z.object({ offered: z.boolean(), taken: z.boolean().nullable(), amount: minor }),
  withdrawn: z.array(z.enum(['insurance', 'split', 'double:0', 'double:1'])).optional(),
});
