/** Answer schemas of the free-bet campaign routes and the reconciliation totals (issue 17, docs/free-bets.md); /openapi.json shows them. */
import { z } from 'zod';
import { currency, gameParamsSchema, gameType, money, time } from './answers.js';

export const campaignAnswer = z.object({
  campaignId: z.string(),
  operatorId: z.string(),
  name: z.string().nullable(),
  gameType,
  currency,
  amount: money,
  params: gameParamsSchema,
  betsPerPlayer: z.number().int(),
  budget: money.nullable().meta({ description: 'the stake value the campaign may grant in all (free bets granted × amount); null: no limit' }),
  budgetUsed: money.meta({ description: 'the stake value granted so far (free bets granted × amount)' }),
  budgetLeft: money.nullable().meta({ description: 'budget − budgetUsed; null: no limit' }),
  startsAt: time,
  expiresAt: time,
  cancelledAt: time.nullable(),
  status: z.enum(['scheduled', 'active', 'ended', 'cancelled']),
  players: z.number().int(),
  freeBetsGranted: z.number().int(),
  freeBetsUsed: z.number().int(),
  createdAt: time,
  updatedAt: time,
});

const grantAnswer = z.object({ playerRef: z.string(), granted: z.number().int(), used: z.number().int(), remaining: z.number().int() });

export const campaignDetailAnswer = campaignAnswer.extend({
  grants: z.array(grantAnswer),
  rounds: z.number().int().meta({ description: 'free-bet rounds played' }),
  roundsOpen: z.number().int().meta({ description: 'rounds still active or waiting for their credit' }),
  paidOut: money.meta({ description: 'confirmed free-bet payouts' }),
});

export const campaignPlayersAnswer = campaignAnswer.extend({ added: z.number().int() });
export const campaignListAnswer = z.object({ campaigns: z.array(campaignAnswer) });

export const sessionFreeBetsAnswer = z.object({
  freeBets: z.array(
    z.object({
      campaignId: z.string(),
      name: z.string().nullable(),
      gameType,
      amount: money,
      currency,
      params: gameParamsSchema,
      granted: z.number().int(),
      used: z.number().int(),
      remaining: z.number().int(),
      startsAt: time,
      expiresAt: time,
    }),
  ),
});

const moneyTotals = z.object({ count: z.number().int(), amount: money });
export const reconciliationTotalsAnswer = z.object({
  totals: z.array(
    z.object({
      operatorId: z.string(),
      currency,
      paid: z.object({ debits: moneyTotals, credits: moneyTotals, rollbacks: moneyTotals, creditsPending: moneyTotals, rollbacksPending: moneyTotals }),
      freeBet: z.object({ debits: moneyTotals, credits: moneyTotals, creditsPending: moneyTotals }),
      promo: z
        .object({ credits: moneyTotals, creditsPending: moneyTotals })
        .meta({ description: "promotions' prizes (docs/promotions.md): credits with no round and no debit" }),
    }),
  ),
});
