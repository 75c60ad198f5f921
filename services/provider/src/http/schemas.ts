/** Request-schema pieces shared by the routes (one definition each). */
import { z } from 'zod';
import { IDEMPOTENCY_REQUIRED_MESSAGE } from './zod-provider.js';

export { GAME_TYPES, gameTypeSchema, type GameType } from '@gp/game-core/games';
export { amountSchema, currencySchema } from '@gp/game-core/money';

export const launchModeSchema = z.enum(['single', 'lobby']);

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
export { clientSeedSchema } from '@gp/game-core/fairness';
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
