/** Request-schema pieces shared by the routes (one definition each). */
import { z } from 'zod';
import { CURRENCY_CODES, CURRENCY_DECIMALS, isCurrencyCode, parseMinorUnits, AmountFormatError, type CurrencyCode } from '../domain/money/index.js';
import { AppError } from '../errors.js';
import { isLosslessNumber, numberText, type LosslessNumber } from './json.js';
import { IDEMPOTENCY_REQUIRED_MESSAGE } from './zod-provider.js';

export const GAME_TYPES = ['dice', 'limbo', 'plinko', 'keno', 'mines', 'blackjack'] as const;
export type GameType = (typeof GAME_TYPES)[number];
export const SETTLED_GAMES = ['dice', 'limbo', 'plinko', 'keno'] as const;
export type SettledGameType = (typeof SETTLED_GAMES)[number];

export const gameTypeSchema = z.enum(GAME_TYPES);
export const launchModeSchema = z.enum(['single', 'lobby']);

/** A JSON number kept exact (CONTRACT.md §3); the handler converts it with the session currency. */
export const amountSchema = z
  .custom<number | LosslessNumber>((v) => (typeof v === 'number' && Number.isFinite(v)) || isLosslessNumber(v), {
    message: 'must be a number',
  })
  .meta({ type: 'number', description: 'amount in the currency of the session (at most its decimals)' })
  .transform((v) => numberText(v));

/** Converts an exact amount text into minor units; more decimals than allowed, zero or negative → VALIDATION_ERROR. */
export function toMinorUnits(text: string, currency: CurrencyCode, field = 'amount', allowZero = false): bigint {
  const decimals = CURRENCY_DECIMALS[currency];
  let minor: bigint;
  try {
    minor = parseMinorUnits(text, decimals);
  } catch (err) {
    if (err instanceof AmountFormatError) {
      throw new AppError('VALIDATION_ERROR', `${field} must be a number with at most ${decimals} decimals for ${currency}`);
    }
    throw err;
  }
  if (minor < 0n || (!allowZero && minor === 0n)) throw new AppError('VALIDATION_ERROR', `${field} must be greater than 0`);
  return minor;
}


export const currencySchema = z
  .string()
  .refine((v) => isCurrencyCode(v), { message: 'UNSUPPORTED_CURRENCY' })
  .transform((v) => v as CurrencyCode)
  .meta({ enum: CURRENCY_CODES });

export const idempotencyKeySchema = z
  .string({ error: (iss) => (iss.input === undefined ? IDEMPOTENCY_REQUIRED_MESSAGE : 'must be a string') })
  .min(1, { error: IDEMPOTENCY_REQUIRED_MESSAGE })
  .max(128)
  .regex(/^[\x20-\x7e]+$/, 'must be printable ASCII');

/**
 * Text that reaches the database, a log or a casino: 1 to `max` characters and no control
 * characters (a NUL byte, a newline, an escape), which no id, token or name ever needs.
 */
export const text = (max: number) =>
  z
    .string()
    .min(1)
    .max(max)
    .regex(/^[^\p{Cc}]+$/u, 'must not contain control characters');
export const idText = (max = 200) => text(max);
export const sessionIdSchema = idText(200);
export const operatorIdText = idText(200);
export const playerRefSchema = idText(200);
export { clientSeedSchema } from '../domain/fairness/seeds.js';
export const roundIdParams = z.object({ roundId: idText(200) });

/**
 * An integer in a query string: plain decimal digits in [min, max] (no sign, no spaces, no
 * `0x10`, no `1e2`), else VALIDATION_ERROR; `fallback` when the parameter is absent.
 */
export function queryInt(min: number, max: number, fallback: number) {
  return z
    .string()
    .regex(/^[0-9]{1,15}$/, 'must be a whole number written in decimal digits')
    .optional()
    .transform((v) => (v === undefined ? fallback : Number(v)))
    .pipe(z.number().int().min(min).max(max))
    .meta({ type: 'integer', minimum: min, maximum: max, default: fallback });
}

/** A time in a query string: RFC 3339 with a time zone, between the years 1970 and 9999. */
export const queryTime = z
  .string()
  .max(40)
  .refine((v) => {
    if (!/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d{1,9})?(Z|[+-]\d{2}:\d{2})$/i.test(v)) return false;
    const t = Date.parse(v);
    return !Number.isNaN(t) && t >= 0 && t < Date.UTC(10_000, 0, 1);
  }, 'must be an RFC 3339 time such as 2026-11-24T00:00:00Z')
  .transform((v) => new Date(v).toISOString())
  .meta({ type: 'string', format: 'date-time' });
