/** Answer schemas of the promotion routes (issue 30, docs/promotions.md); /openapi.json shows them. */
import { GAME_TYPES } from '@gp/game-core/games';
import { CURRENCY_CODES } from '@gp/game-core/money';
import { z } from 'zod';
import { money } from './answers.js';

const time = z.string().meta({ format: 'date-time' });
const currency = z.enum(CURRENCY_CODES as [string, ...string[]]);
const kind = z.enum(['tournament', 'prize_drop']);
const score = z.custom<unknown>(() => true).meta({ type: 'number', description: 'an amount in the currency (wagered, profit, biggestWin) or a multiplier' });

export const promotionAnswer = z.object({
  promoId: z.string(),
  operatorId: z.string(),
  kind,
  name: z.string().nullable(),
  currency,
  games: z.array(z.enum(GAME_TYPES)),
  minBet: money,
  prizes: z.array(money).meta({ description: 'by rank (tournament) or in drop order (prize drop)' }),
  prizePool: money,
  allPlayers: z.boolean(),
  players: z.number().int().meta({ description: 'players listed (0 when the promotion is open to every player)' }),
  startsAt: time,
  endsAt: time,
  cancelledAt: time.nullable(),
  finalizedAt: time.nullable(),
  status: z.enum(['scheduled', 'active', 'ended', 'cancelled']),
  createdAt: time,
  scoring: z.enum(['multiplier', 'wagered', 'profit', 'biggestWin']).nullable().optional(),
  oneIn: z.number().int().nullable().optional(),
  rule: z.string().optional(),
  serverSeedHash: z.string().nullable().optional(),
  serverSeedRevealed: z.boolean().optional(),
});

export const awardAnswer = z.object({
  promoId: z.string(),
  prize: z.number().int().meta({ description: "a tournament's rank (from 1) or a drop's prize index (from 0)" }),
  playerRef: z.string(),
  amount: money,
  currency,
  score: z.string().optional(),
  roundId: z.string().optional(),
  seq: z.number().int().nullable().optional(),
  idempotencyKey: z.string(),
  status: z.enum(['credited', 'credit_pending']),
  attemptCount: z.number().int(),
  statusCode: z.number().int().nullable(),
  casinoTransactionId: z.string().nullable(),
  errorCode: z.string().nullable(),
  createdAt: time,
  confirmedAt: time.nullable(),
});

export const promotionListAnswer = z.object({ promotions: z.array(promotionAnswer) });
export const promotionDetailAnswer = promotionAnswer.extend({ awards: z.array(awardAnswer), entries: z.number().int().optional() });
export const promotionAwardsAnswer = z.object({ promoId: z.string(), kind, currency, awards: z.array(awardAnswer) });

const entry = z.object({
  rank: z.number().int(),
  name: z.string(),
  playerRef: z.string().optional(),
  score,
  rounds: z.number().int(),
  reachedAt: time,
  prize: money.nullable(),
  you: z.boolean().optional(),
});

export const leaderboardAnswer = promotionAnswer.extend({
  ranked: z.number().int().meta({ description: 'players with a score' }),
  asOf: time,
  entries: z.array(entry),
});

export const sessionPromotionsAnswer = z.object({
  tournaments: z.array(
    z.object({
      promoId: z.string(),
      name: z.string().nullable(),
      games: z.array(z.string()),
      currency,
      minBet: money,
      endsAt: time,
      prizes: z.array(money),
      scoring: z.string().nullable(),
      players: z.number().int(),
      asOf: time,
      top: z.array(entry),
      you: entry.nullable(),
    }),
  ),
  drops: z.array(
    z.object({
      promoId: z.string(),
      name: z.string().nullable(),
      games: z.array(z.string()),
      currency,
      minBet: money,
      endsAt: time,
      prizes: z.array(money),
      oneIn: z.number().int().nullable(),
      rule: z.string(),
      serverSeedHash: z.string().nullable(),
      prizesLeft: z.number().int(),
    }),
  ),
  wins: z.array(
    z.object({ promoId: z.string(), prize: z.number().int(), amount: money, currency, roundId: z.string().nullable(), status: z.string(), createdAt: time }),
  ),
  nextPollSeconds: z.number().int().min(1).meta({
    description:
      'when to ask again: 4 while a promotion of the player runs or has just ended, until the start of one coming within a minute, 60 when none (docs/promotions.md "Live leaderboard")',
  }),
});

export const dropProofAnswer = z.object({
  promoId: z.string(),
  rule: z.string(),
  status: z.string(),
  currency,
  oneIn: z.number().int(),
  prizes: z.array(money),
  serverSeedHash: z.string(),
  serverSeed: z.string().nullable().meta({ description: 'revealed once the drop is over (ended and its last draw done, or cancelled)' }),
  startsAt: time,
  endsAt: time,
  entries: z.array(z.object({ seq: z.number().int(), ticket: z.string() })),
  awards: z.array(z.object({ prize: z.number().int(), seq: z.number().int(), ticket: z.string(), amount: money })),
});
