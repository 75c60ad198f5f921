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

export const idText = (max = 200) => z.string().min(1).max(max);
export const sessionIdSchema = idText(200);
export const clientSeedSchema = z.string().min(1).max(64).regex(/^[\x20-\x7e]+$/, 'must be printable characters');
export const roundIdParams = z.object({ roundId: idText(200) });
