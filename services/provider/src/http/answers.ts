/**
 * The answers of every route (CONTRACT.md §12) as zod schemas. Each route names its answer in
 * `schema.response`; the serializer (zod-provider.ts) writes only what the schema lists, so a
 * field added to a view by accident (a seed, a token, a secret) never reaches a client, and
 * /openapi.json documents every answer.
 */
import { gameResultSchema, GAME_TYPES } from '@gp/game-core/games';
import { CURRENCY_CODES } from '@gp/game-core/money';
import { z } from 'zod';
import { ERROR_STATUS, type ErrorCode } from '../errors.js';
import { isLosslessNumber, type LosslessNumber } from '../infra/json.js';
import { AUTOBET_MODES } from '../operators/responsible-gaming.js';
import { PUBLIC_ROUND_STATUSES, ROUND_STATUSES } from '../rounds/round-status.js';

/** An amount: an exact JSON number in the currency's decimals. */
export const money = z
  .custom<LosslessNumber | number>((v) => typeof v === 'number' || isLosslessNumber(v))
  .meta({
    id: 'Amount',
    type: 'number',
    description:
      'an amount: an exact JSON number in the currency’s decimals (a client that reads JSON into doubles must keep its text: web pages read it as number | string)',
  });
export const time = z.string().meta({ format: 'date-time' });

/*
 * Named schemas: `.meta({ id })` makes each a component of /openapi.json (`#/components/schemas/<id>`,
 * http/openapi.ts), so a casino's generated client and the pages' generated types (@gp/api-types)
 * name them too.
 */
export const currency = z
  .enum(CURRENCY_CODES as [string, ...string[]])
  .meta({ id: 'Currency', description: 'a currency code of the currency contract (CONTRACT.md §3)' });
export const gameType = z.enum(GAME_TYPES).meta({ id: 'GameType' });
/** Every code of the error catalogue (errors.ts, CONTRACT.md §2). */
export const errorCodeSchema = z
  .enum(Object.keys(ERROR_STATUS) as [ErrorCode, ...ErrorCode[]])
  .meta({ id: 'ErrorCode', description: 'the error catalogue (CONTRACT.md §2); each code has one HTTP status' });
/** A round's status as clients see it (CONTRACT.md §4). */
export const roundStatusSchema = z.enum(PUBLIC_ROUND_STATUSES).meta({ id: 'RoundStatus', description: 'a round status as clients see it (CONTRACT.md §4)' });
/** A round's stored status (the admin console also sees the internal `debit_requested`). */
export const storedRoundStatusSchema = z
  .enum(ROUND_STATUSES)
  .meta({ id: 'StoredRoundStatus', description: 'a round status as stored: RoundStatus and the internal debit_requested (a debit not confirmed yet)' });
/**
 * A game's params: validated by the game (game-core), so a record here; /openapi.json documents
 * it as the union of every game's params schema (http/openapi.ts `GameParams`).
 */
export const gameParamsSchema = z.record(z.string(), z.unknown()).meta({ id: 'GameParams' });
/** A round's result, per game (game-core's schemas). */
const gameResult = gameResultSchema.meta({ id: 'GameResult' });

export const errorAnswer = z
  .object({
    statusCode: z.number().int(),
    error: z.string(),
    code: errorCodeSchema,
    message: z.string(),
    roundId: z.string().optional(),
    roundStatus: roundStatusSchema.optional(),
    casinoCode: z.string().optional(),
    casinoMessage: z.string().optional().meta({
      description:
        "the casino's own words of a 4xx refusal {code, message} (validate-session, balance, debit): at most 300 characters, control characters removed; plain text, never HTML. Never on SIGNATURE_* or IDEMPOTENCY_CONFLICT",
    }),
  })
  .meta({ id: 'Error', description: 'The error envelope (CONTRACT.md §2)' });

/** The rule fields of responsible gaming (issue 27). */
const ruleFields = {
  autobet: z.enum(AUTOBET_MODES),
  autobetMaxRounds: z.number().int().nullable(),
  autobetRequiresLossLimit: z.boolean(),
  minRoundIntervalMs: z.number().int(),
  realityCheckMinutes: z.number().int().nullable(),
  showNetPosition: z.boolean(),
  showElapsedTime: z.boolean(),
};

/** A profile's `responsibleGaming` (null: none); `jurisdictions` maps an ISO 3166 code to overrides of any rule field. */
export const responsibleGamingAnswer = z
  .object({ ...ruleFields, jurisdictions: z.record(z.string(), z.object(ruleFields).partial()) })
  .nullable()
  .meta({ description: 'responsible-gaming rules (docs/integration.md "Responsible gaming"); null: none' });

/** A session's effective rules: the profile's with the override of its jurisdiction (full code first, then its country). */
export const rulesAnswer = z
  .object({ ...ruleFields, jurisdiction: z.string().nullable().meta({ description: "the casino's validate-session `jurisdiction`, or null" }) })
  .meta({ description: 'the effective responsible-gaming rules of the session (issue 27)' });

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
    theme: z.object({ showBalanceInEmbed: z.boolean(), autobetStopOnHidden: z.boolean() }),
    allowedEmbedOrigins: z.array(z.string()),
    responsibleGaming: responsibleGamingAnswer,
  })
  .meta({ id: 'OperatorConfig' });

export const adminOperatorAnswer = publicConfigAnswer.extend({
  tenantId: z.string().nullable(),
  callbackBaseUrl: z.string(),
  abandonedRoundPolicy: z.object({ afterHours: z.number().int(), mines: z.enum(['cashout', 'keep_open']), blackjack: z.enum(['stand', 'keep_open']) }),
  enabled: z.boolean(),
  createdAt: time,
  updatedAt: time,
  secretRotatedAt: time.nullable().optional(),
  previousSecretValidUntil: time.nullable().optional().meta({ description: 'until when the secret before the last rotation still verifies signed requests' }),
});

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
    rules: rulesAnswer,
  })
  .meta({ id: 'Session' });

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
    roundStatus: roundStatusSchema,
    bet: z.object({
      gameType,
      amount: money,
      totalStaked: money,
      currency,
      params: gameParamsSchema,
      multiplier: money,
      payout: money,
      won: z.boolean(),
      operatorId: z.string(),
      playerRef: z.string(),
      createdAt: time,
      settledAt: time.nullable(),
      freeBetCampaignId: z.string().optional().meta({ description: 'a free bet of this campaign: no debit was sent (docs/free-bets.md)' }),
    }),
    result: gameResult.nullable(),
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
  .meta({ id: 'Round' });

/** My bets (issue 12): the session's player's rounds, newest first, without the callback audit. */
export const playerBetsAnswer = z.object({
  bets: z.array(betAnswer.omit({ casinoCallbackAudit: true, balance: true })),
  nextCursor: z.string().nullable().meta({ description: 'pass as `before` for the next page; null on the last page' }),
});

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

export const verifyAnswer = z.object({ gameType, result: gameResult, multiplier: money, payout: money, won: z.boolean(), totalStaked: money });

export const reconciliationAnswer = z.object({
  rows: z.array(
    z.object({
      type: z.enum(['debit', 'credit', 'rollback', 'credit_pending', 'rollback_pending']),
      roundId: z.string().nullable().meta({ description: 'null only on a promo credit (?promo=true): a prize has no round' }),
      operatorId: z.string(),
      playerRef: z.string(),
      gameType: z.string().nullable().meta({ description: 'null only on a promo credit' }),
      amount: money,
      currency,
      casinoTransactionId: z.string().nullable(),
      idempotencyKey: z.string(),
      status: z.string(),
      createdAt: time,
      freeBet: z.literal(true).optional().meta({ description: 'only on the callbacks of a free-bet round (docs/free-bets.md)' }),
      campaignId: z.string().optional().meta({ description: 'with freeBet: the campaign of the round' }),
      promo: z.literal(true).optional().meta({ description: 'a promo credit (?promo=true; docs/promotions.md)' }),
      promoId: z.string().optional(),
      prize: z.number().int().optional().meta({ description: "a tournament's rank or a drop's prize index" }),
      sourceRoundId: z.string().optional().meta({ description: "a prize drop's winning bet" }),
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
  promoCredits: z
    .object({
      retried: z.number().int(),
      succeeded: z.number().int(),
      stillPending: z.number().int(),
      items: z.array(z.object({ promoId: z.string(), prize: z.number().int(), idempotencyKey: z.string(), outcome: z.enum(['succeeded', 'pending']) })),
    })
    .optional()
    .meta({
      description: "the cron route, when it sent any: the pass's operator's promo credits due for a retry (docs/promotions.md); not counted in scanned/retried",
    }),
});

/* ------------------------------------------------------------------ the admin console (issue 13) */

export const staffAnswer = z.object({
  staffId: z.string(),
  email: z.string(),
  role: z.enum(['platform_admin', 'admin', 'viewer']),
  tenantId: z.string().nullable(),
  lockedUntil: time.nullable(),
  lastLoginAt: time.nullable(),
  createdAt: time,
});

export const meAnswer = z.object({
  staff: z.object({
    staffId: z.string().nullable(),
    email: z.string().nullable(),
    role: z.enum(['platform_admin', 'admin', 'viewer']),
    tenantId: z.string().nullable(),
    via: z.enum(['session', 'token']),
  }),
  tenants: z.array(z.string()).meta({ description: 'the tenants whose profiles the caller sees (every tenant for a platform admin)' }),
});

export const csrfAnswer = z.object({ csrfToken: z.string() });
export const okAnswer = z.object({ ok: z.literal(true) });

export const auditAnswer = z.object({
  records: z.array(
    z.object({
      id: z.string(),
      at: time,
      actor: z.object({
        kind: z.string(),
        staffId: z.string().nullable(),
        email: z.string().nullable(),
        ip: z.string().nullable(),
        userAgent: z.string().nullable(),
      }),
      action: z.string(),
      tenantId: z.string().nullable(),
      operatorId: z.string().nullable(),
      targetType: z.string(),
      targetId: z.string(),
      before: z.record(z.string(), z.unknown()).nullable().meta({ description: 'the target before the change, without secrets; null when it was created' }),
      after: z.record(z.string(), z.unknown()).nullable().meta({ description: 'the target after the change, without secrets; null when it was removed' }),
    }),
  ),
  nextCursor: z.string().nullable(),
});

export const rotatedSecretAnswer = z.object({
  operatorId: z.string(),
  sharedSecret: z.string().meta({ description: 'the new secret: shown this once, never again' }),
  previousSecretValidUntil: time.nullable(),
});

export const createdOperatorAnswer = z.object({
  operator: adminOperatorAnswer,
  sharedSecret: z.string().meta({ description: 'shown this once, never again' }),
});

export const roundListAnswer = z.object({
  rounds: z.array(
    z.object({
      roundId: z.string(),
      operatorId: z.string(),
      playerRef: z.string(),
      gameType,
      currency,
      amount: money,
      payout: money.nullable(),
      status: storedRoundStatusSchema,
      createdAt: time,
      settledAt: time.nullable(),
    }),
  ),
  nextCursor: z.string().nullable(),
});

export const adminRoundAnswer = z.object({ round: betAnswer, replayUrl: z.string(), tenantId: z.string().nullable() });

export const totalsAnswer = z.object({
  totals: z.array(
    z
      .object({
        operatorId: z.string(),
        currency,
        day: z.string(),
        debits: z.number().int(),
        stakes: money,
        payouts: money,
        rollbacks: money,
        ggr: money,
        freeBetPayouts: money,
        promoCredits: money,
        promoPending: money,
        promoPendingCount: z.number().int(),
      })
      .meta({
        description:
          "per day: paid rounds' confirmed stakes, payouts, rollbacks and GGR (stakes − payouts − rollbacks); free-bet rounds' confirmed payouts; promo credits confirmed and pending, by the day of the award (docs/promotions.md) — a free-bet or promo payout is never in payouts or ggr",
      }),
  ),
});

export const pendingAnswer = z.object({
  rounds: z.array(
    z.object({
      roundId: z.string(),
      operatorId: z.string(),
      playerRef: z.string(),
      gameType,
      currency,
      amount: money,
      status: storedRoundStatusSchema,
      updatedAt: time,
    }),
  ),
});

export const dashboardAnswer = z.object({
  from: time,
  to: time,
  bucket: z.enum(['minute', 'hour', 'day']),
  betsPerMinute: z.number(),
  rounds: z.number().int(),
  series: z.object({
    betsPerMinute: z.array(z.object({ t: time, value: z.number() })),
    ggr: z.array(z.object({ t: time, currency, value: money })),
  }),
  ggr: z.array(z.object({ currency, value: money })),
  pendingRetries: z.array(z.object({ operatorId: z.string(), status: z.string(), rounds: z.number().int() })),
  callbacks: z.array(
    z.object({
      operatorId: z.string(),
      callbacks: z.number().int(),
      errors: z.number().int(),
      errorRate: z.number(),
      meanMs: z.number().nullable(),
      p95Ms: z.number().nullable(),
    }),
  ),
  rtp: z.array(z.object({ gameType, currency, rounds: z.number().int(), staked: money, paid: money, measured: z.number().nullable(), design: z.number() })),
});

// The free-bet campaigns' answers: http/free-bet-answers.ts; the promotions': http/promo-answers.ts.
