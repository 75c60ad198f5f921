/**
 * Operator-currency profiles: the admin API's create-or-replace with its checks (CONTRACT.md §7),
 * the admin and public views (never the secret, the public one never the callback base), and
 * the demo operator `demo-usd` (CONTRACT.md §13).
 */
import { randomBytes } from 'node:crypto';
import { z } from 'zod';
import { AppError } from '../errors.js';
import { checkCallbackBase } from './callback-address.js';
import { GAME_TYPES, gameTypeSchema } from '@gp/game-core/games';
import { amountJson, amountSchema, currencySchema, parseAmount } from '@gp/game-core/money';
import type { Queryable } from '../store/db.js';
import { abandonedRoundPolicySchema, DEFAULT_ABANDONED_ROUND_POLICY, DEMO_OPERATOR_ID, SANDBOX_CALLBACK_BASE, type Operator } from './operator-schema.js';
import type { OperatorStore, OperatorWrite } from './operator-store.js';
import { responsibleGamingSchema } from './responsible-gaming.js';

// The profile's field rules shared with the admin console's forms (browser-safe: profile-fields.ts).
export { embedOrigin, operatorIdSchema, originSchema, tenantIdSchema } from './profile-fields.js';
import { isPlainOrigin, originSchema, tenantIdSchema } from './profile-fields.js';

export const operatorPutSchema = z
  .object({
    currency: currencySchema,
    callbackBaseUrl: z.string().min(1).max(2000),
    sharedSecret: z
      .string()
      .min(16)
      .max(512)
      .regex(/^[\x21-\x7e]+$/, 'printable ASCII without spaces'),
    minBet: amountSchema,
    maxBet: amountSchema.optional().nullable(),
    stakeStep: amountSchema,
    maxPayout: amountSchema,
    enabledGames: z
      .array(gameTypeSchema)
      .max(GAME_TYPES.length)
      .default([...GAME_TYPES]),
    theme: z
      .object({ showBalanceInEmbed: z.boolean().default(true), autobetStopOnHidden: z.boolean().default(false) })
      .strict()
      .prefault({}),
    tenantId: tenantIdSchema.optional().nullable(),
    allowedEmbedOrigins: z.array(originSchema).max(50).default([]),
    abandonedRoundPolicy: abandonedRoundPolicySchema.optional(),
    /** Responsible gaming (issue 27): absent or null, none (today's behaviour). */
    responsibleGaming: responsibleGamingSchema.optional().nullable(),
    enabled: z.boolean().default(true),
  })
  .strict();

export type OperatorPut = z.output<typeof operatorPutSchema>;

/** Turns an admin PUT body into the profile to store, or refuses it. */
export function toOperatorWrite(operatorId: string, body: OperatorPut, production: boolean): OperatorWrite {
  checkCallbackBase(body.callbackBaseUrl, production);
  const c = body.currency;
  const minBet = parseAmount(body.minBet, c, { field: 'minBet' });
  const stakeStep = parseAmount(body.stakeStep, c, { field: 'stakeStep' });
  const maxPayout = parseAmount(body.maxPayout, c, { field: 'maxPayout' });
  const maxBet = body.maxBet == null ? null : parseAmount(body.maxBet, c, { field: 'maxBet' });
  if (minBet % stakeStep !== 0n) throw new AppError('VALIDATION_ERROR', 'minBet must be a multiple of stakeStep');
  if (maxBet !== null && maxBet % stakeStep !== 0n) throw new AppError('VALIDATION_ERROR', 'maxBet must be a multiple of stakeStep');
  if (maxBet !== null && maxBet < minBet) throw new AppError('VALIDATION_ERROR', 'maxBet must not be below minBet');
  return {
    operatorId,
    tenantId: body.tenantId ?? null,
    currency: c,
    callbackBaseUrl: body.callbackBaseUrl.replace(/\/+$/, ''),
    sharedSecret: body.sharedSecret,
    minBet,
    maxBet,
    stakeStep,
    maxPayout,
    enabledGames: [...new Set(body.enabledGames)],
    theme: body.theme,
    allowedEmbedOrigins: [...new Set(body.allowedEmbedOrigins)],
    abandonedRoundPolicy: body.abandonedRoundPolicy ?? DEFAULT_ABANDONED_ROUND_POLICY,
    responsibleGaming: body.responsibleGaming ?? null,
    enabled: body.enabled,
  };
}

const money = (op: Operator, v: bigint) => amountJson(v, op.currency);

/** GET /api/operators/{operatorId}/config (CONTRACT.md §5). */
export function publicConfigView(op: Operator) {
  return {
    operatorId: op.operatorId,
    currency: op.currency,
    decimals: op.decimals,
    minBet: money(op, op.minBet),
    maxBet: op.maxBet === null ? null : money(op, op.maxBet),
    stakeStep: money(op, op.stakeStep),
    maxPayout: money(op, op.maxPayout),
    enabledGames: op.enabledGames,
    theme: op.theme,
    // The page posts window messages to these only: a stored value that is not a plain origin is left out.
    allowedEmbedOrigins: op.allowedEmbedOrigins.filter(isPlainOrigin),
    responsibleGaming: op.responsibleGaming,
  };
}

/** The admin view: the whole profile but the secret. */
export function adminOperatorView(op: Operator) {
  return {
    ...publicConfigView(op),
    tenantId: op.tenantId,
    callbackBaseUrl: op.callbackBaseUrl,
    abandonedRoundPolicy: op.abandonedRoundPolicy,
    enabled: op.enabled,
    createdAt: op.createdAt,
    updatedAt: op.updatedAt,
    secretRotatedAt: op.secretRotatedAt ?? null,
    previousSecretValidUntil: op.previousSecretValidUntil ?? null,
  };
}

/**
 * The console's edit of a profile (issue 13 item 3): any field of the admin PUT but the secret
 * (rotated on its own), each optional; the result goes through the PUT's checks (toOperatorWrite).
 */
export const operatorEditSchema = z
  .object({
    currency: currencySchema.optional(),
    callbackBaseUrl: z.string().min(1).max(2000).optional(),
    minBet: amountSchema.optional(),
    maxBet: amountSchema.optional().nullable(),
    stakeStep: amountSchema.optional(),
    maxPayout: amountSchema.optional(),
    enabledGames: z.array(gameTypeSchema).max(GAME_TYPES.length).optional(),
    theme: z.object({ showBalanceInEmbed: z.boolean() }).strict().optional(),
    tenantId: operatorPutSchema.shape.tenantId,
    allowedEmbedOrigins: z.array(originSchema).max(50).optional(),
    abandonedRoundPolicy: abandonedRoundPolicySchema.optional(),
    responsibleGaming: responsibleGamingSchema.optional().nullable(),
    enabled: z.boolean().optional(),
  })
  .strict();
export type OperatorEdit = z.output<typeof operatorEditSchema>;

/** The console's create: the PUT's fields without the secret, which the service generates and shows once. */
export const operatorCreateSchema = operatorPutSchema.omit({ sharedSecret: true });

/** A new shared secret: 32 random bytes as 64 hex characters. */
export const newSharedSecret = () => randomBytes(32).toString('hex');

/** A stored profile as the PUT body that would recreate it (amounts as exact decimal text). */
export function operatorAsPut(op: Operator): Omit<OperatorPut, 'sharedSecret'> {
  const text = (v: bigint) => amountJson(v, op.currency).toString();
  return {
    currency: op.currency,
    callbackBaseUrl: op.callbackBaseUrl,
    minBet: text(op.minBet),
    maxBet: op.maxBet === null ? null : text(op.maxBet),
    stakeStep: text(op.stakeStep),
    maxPayout: text(op.maxPayout),
    enabledGames: op.enabledGames,
    theme: op.theme,
    tenantId: op.tenantId,
    allowedEmbedOrigins: op.allowedEmbedOrigins,
    abandonedRoundPolicy: op.abandonedRoundPolicy,
    responsibleGaming: op.responsibleGaming,
    enabled: op.enabled,
  };
}

/** The demo profile of CONTRACT.md §1: USD, sandbox wallet, all six games. */
export function demoOperatorWrite(): OperatorWrite {
  return {
    operatorId: DEMO_OPERATOR_ID,
    tenantId: 'demo',
    currency: 'USD',
    callbackBaseUrl: SANDBOX_CALLBACK_BASE,
    sharedSecret: randomBytes(32).toString('hex'),
    minBet: 1n, // 0.01 USD
    maxBet: 100_000n, // 1,000.00 USD
    stakeStep: 1n,
    maxPayout: 10_000_000n, // 100,000.00 USD
    enabledGames: [...GAME_TYPES],
    theme: { showBalanceInEmbed: true, autobetStopOnHidden: false },
    allowedEmbedOrigins: [],
    abandonedRoundPolicy: DEFAULT_ABANDONED_ROUND_POLICY,
    responsibleGaming: null,
    enabled: true,
  };
}

export async function ensureDemoOperator(db: Queryable, store: OperatorStore): Promise<void> {
  await store.insertIfMissing(db, demoOperatorWrite());
}
