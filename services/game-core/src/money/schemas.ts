/**
 * The wire shapes of money (CONTRACT.md §3), as zod schemas shared by the provider's requests
 * and the browser's forms: an amount is a JSON number kept exact (parsed losslessly, converted to
 * minor units with the currency of its context), a currency one of the v1 codes.
 */
import { isLosslessNumber, type LosslessNumber } from 'lossless-json';
import { z } from 'zod';
import { CURRENCY_CODES, isCurrencyCode, type CurrencyCode } from './currencies.js';

/** Marker message: an unknown currency code is UNSUPPORTED_CURRENCY, not a plain VALIDATION_ERROR. */
export const UNSUPPORTED_CURRENCY_MESSAGE = 'UNSUPPORTED_CURRENCY';

/** The exact decimal text of a JSON number (a plain number or, from a lossless parse, its text). */
export function numberText(value: number | LosslessNumber): string {
  return typeof value === 'number' ? String(value) : value.value;
}

/** A JSON number kept exact; the schema's output is its decimal text, converted later with the currency (parseAmount). */
export const amountSchema = z
  .custom<number | LosslessNumber>((v) => (typeof v === 'number' && Number.isFinite(v)) || isLosslessNumber(v), { message: 'must be a number' })
  .meta({ type: 'number', description: 'amount in the currency of its context, at most its decimals' })
  .transform((v) => numberText(v));

export const currencySchema = z
  .string()
  .refine((v) => isCurrencyCode(v), { message: UNSUPPORTED_CURRENCY_MESSAGE })
  .transform((v) => v as CurrencyCode)
  .meta({ type: 'string', enum: CURRENCY_CODES });
