/**
 * The answers of every route (CONTRACT.md §12) as zod schemas. Each route names its answer in
 * `schema.response`; the serializer (zod-provider.ts) writes only what the schema lists, so a
 * field added to a view by accident (a seed, a token, a secret) never reaches a client, and
 * /openapi.json documents every answer.
 */
import { gameResultSchema, GAME_TYPES } from '@gp/game-core/games';
import { CURRENCY_CODES } from '@gp/game-core/money';
import { z } from 'zod';
import { ERROR_STATUS } from '../errors.js';
import { isLosslessNumber, type LosslessNumber } from '../infra/json.js';

/** An amount: an exact JSON number in the currency's decimals. */
export const money = z.custom<LosslessNumber | number>((v) => typeof v === 'number' || isLosslessNumber(v)).meta({ type: 'number', description: 'exact, in the currency’s decimals' });
const time = z.string().meta({ format: 'date-time' });
const currency = z.enum(CURRENCY_CODES as [string, ...string[]]);
const gameType = z.enum(GAME_TYPES);

export const errorAnswer = z
  .object({
    statusCode: z.number().int(),
    error: z.string(),
    code: z.enum(Object.keys(ERROR_STATUS) as [string, ...string[]]),
    message: z.string(),
    roundId: z.string().optional(),
    roundStatus: z.string().optional(),
    casinoCode: z.string().optional(),
  })
  .meta({ description: 'CONTRACT.md §2' });

export const healthAnswer = z.object({
  status: z.literal('ok'),
  version: z.string(),
  uptimeSeconds: z.number().int(),
  currencyContract: z.object({ version: z.string(), currencies: z.array(z.object({ code: currency, decimals: z.number().int() })) }),
});

export const readyAnswer = z.object({ ready: z.boolean(), checks: z.record(z.string(), z.string()) });
/** 503: the error envelope with NOT_READY and the checks. */
export const notReadyAnswer = errorAnswer.extend({ ready: z.boolean(), checks: z.record(z.string(), z.string()) });

export const launchAnswer = z.object({ launchToken: z.string(), launchUrl: z.string() });

export const publicConfigAnswer = z
  .object({
    operatorId: z.string(),
    currency,
    decimals: z.number().int(),
    minBet: money,
    maxBet: money.nullable(),
    stakeStep: money,
    maxPayout: money,
    enabledGames: z.array(gameType),
    theme: z.object({ showBalanceInEmbed: z.boolean() }),
    allowedEmbedOrigins: z.array(z.string()),
  })
  ;

export const adminOperatorAnswer = publicConfigAnswer
  .extend({
    tenantId: z.string().nullable(),
    callbackBaseUrl: z.string(),
    abandonedRoundPolicy: z.object({ afterHours: z.number().int(), mines: z.enum(['cashout', 'keep_open']), blackjack: z.enum(['stand', 'keep_open']) }),
    enabled: z.boolean(),
    createdAt: time,
    updatedAt: time,
  })
  ;

export const fairnessState = z.object({ serverSeedHash: z.string(), clientSeed: z.string(), nonce: z.number().int() });

export const sessionAnswer = z
  .object({
    sessionId: z.string(),
    operatorId: z.string(),
    playerRef: z.string(),
    displayName: z.string().nullable(),
    currency,
    balance: money,
    gameType: gameType.nullable(),
    launchMode: z.enum(['single', 'lobby']),
    fairness: fairnessState,
  })
  ;

export const balanceAnswer = z.object({ balance: money, currency });

const auditRecord = z.object({
  method: z.string(),
  path: z.string(),
  url: z.string(),
  idempotencyKey: z.string(),
  attemptCount: z.number().int(),
  requestBody: z.unknown(),
  responseBody: z.unknown(),
  statusCode: z.number().int().nullable(),
  callbackStatus: z.enum(['pending', 'succeeded', 'failed']),
  errorMessage: z.string().nullable(),
  createdAt: time,
});

export const betAnswer = z
  .object({
    roundId: z.string(),
    roundStatus: z.string(),
    bet: z.object({
      gameType,
      amount: money,
      totalStaked: money,
      currency,
      params: z.record(z.string(), z.unknown()),
      multiplier: money,
      payout: money,
      won: z.boolean(),
      operatorId: z.string(),
      playerRef: z.string(),
      createdAt: time,
      settledAt: time.nullable(),
      freeBetCampaignId: z.string().optional().meta({ description: 'a free bet of this campaign: no debit was sent (docs/free-bets.md)' }),
    }),
    result: gameResultSchema.nullable(),
    fairness: z.object({ serverSeedHash: z.string().nullable(), clientSeed: z.string(), nonce: z.number().int(), serverSeed: z.string().optional() }),
    casinoTransactions: z.object({
      debit: z.string().nullable(),
      credit: z.string().nullable(),
      rollback: z.string().nullable(),
      extraDebits: z.array(z.object({ kind: z.string(), id: z.string().nullable() })),
    }),
    error: z.object({ code: z.string(), message: z.string().nullable() }).optional(),
    balance: money.optional().meta({ description: 'the latest casino balance of the player (POST answers; omitted on GET)' }),
    casinoCallbackAudit: z.array(auditRecord).optional().meta({ description: 'GET only' }),
  })
  ;

export const activeRoundAnswer = z.object({ round: betAnswer.nullable() });

export const rotateAnswer = z.object({
  previousServerSeed: z.string(),
  previousServerSeedHash: z.string(),
  previousClientSeed: z.string(),
  previousNonce: z.number().int(),
  serverSeedHash: z.string(),
  clientSeed: z.string(),
  nonce: z.number().int(),
});

export const verifyAnswer = z.object({ gameType, result: gameResultSchema, multiplier: money, payout: money, won: z.boolean(), totalStaked: money });

export const reconciliationAnswer = z.object({
  rows: z.array(
    z.object({
      type: z.enum(['debit', 'credit', 'rollback', 'credit_pending', 'rollback_pending']),
      roundId: z.string(),
      operatorId: z.string(),
      playerRef: z.string(),
      gameType: z.string(),
      amount: money,
      currency,
      casinoTransactionId: z.string().nullable(),
      idempotencyKey: z.string(),
      status: z.string(),
      createdAt: time,
      freeBet: z.literal(true).optional().meta({ description: 'only on the callbacks of a free-bet round (docs/free-bets.md)' }),
      campaignId: z.string().optional().meta({ description: 'with freeBet: the campaign of the round' }),
    }),
  ),
  nextCursor: z.string().nullable(),
});

export const retrySummaryAnswer = z.object({
  scanned: z.number().int(),
  retried: z.number().int(),
  succeeded: z.number().int(),
  stillPending: z.number().int(),
  items: z.array(z.object({ roundId: z.string(), operation: z.enum(['credit', 'rollback']), outcome: z.enum(['succeeded', 'pending']) })),
});

/* ----------------------------------------------------------- free-bet campaigns (issue 17) */

export const campaignAnswer = z.object({
  campaignId: z.string(),
  operatorId: z.string(),
  name: z.string().nullable(),
  gameType,
  currency,
  amount: money,
  params: z.record(z.string(), z.unknown()),
  betsPerPlayer: z.number().int(),
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
      params: z.record(z.string(), z.unknown()),
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
    }),
  ),
});
