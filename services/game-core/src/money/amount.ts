/**
 * Exact conversion between JSON number text and integer minor units (CONTRACT.md §3).
 * No floating point: the decimal text is read digit by digit.
 */
import { LosslessNumber } from 'lossless-json';
import { RuleError } from '../errors.js';
import { CURRENCY_DECIMALS, type CurrencyCode } from './currencies.js';

export class AmountFormatError extends Error {}

const NUMBER_TEXT = /^(-)?(\d+)(?:\.(\d+))?(?:[eE]([+-]?\d+))?$/;

/**
 * Parses the decimal text of a JSON number (as written, e.g. "1e-8", "0.10", "123456789012.12345678")
 * into minor units of a currency with `decimals` decimals. Throws AmountFormatError when the
 * text is not a number or carries more significant decimals than the currency allows.
 * Sign is preserved; callers decide whether zero or negative is acceptable.
 */
export function parseMinorUnits(text: string, decimals: number): bigint {
  const m = NUMBER_TEXT.exec(text.trim());
  if (!m) throw new AmountFormatError(`not a number: ${text}`);
  const negative = m[1] === '-';
  const intPart = m[2] ?? '0';
  const fracPart = m[3] ?? '';
  const exponent = m[4] ? Number.parseInt(m[4], 10) : 0;
  if (!Number.isSafeInteger(exponent) || Math.abs(exponent) > 1000) throw new AmountFormatError('exponent out of range');
  // digits × 10^(exponent - fracPart.length)
  let digits = (intPart + fracPart).replace(/^0+(?=\d)/, '');
  let scale = fracPart.length - exponent; // number of decimals in `digits`
  // drop trailing zeros of the fraction: 1.50 in a 1-decimal currency is fine
  while (scale > 0 && digits.length > 1 && digits.endsWith('0')) {
    digits = digits.slice(0, -1);
    scale -= 1;
  }
  if (digits === '0') return 0n;
  if (scale > decimals) throw new AmountFormatError(`more than ${decimals} decimals`);
  const value = BigInt(digits) * 10n ** BigInt(decimals - scale);
  return negative ? -value : value;
}

/** Minor units → the shortest exact decimal text ("12.5", "0.00000001", "100"). */
export function formatMinorUnits(minor: bigint, decimals: number): string {
  const negative = minor < 0n;
  const abs = negative ? -minor : minor;
  const base = 10n ** BigInt(decimals);
  const whole = abs / base;
  const frac = (abs % base).toString().padStart(decimals, '0').replace(/0+$/, '');
  const text = frac.length > 0 ? `${whole}.${frac}` : `${whole}`;
  return negative ? `-${text}` : text;
}

/**
 * Multipliers carry at most 4 decimals (CONTRACT.md §3). Inside the service they are integers
 * scaled by 10^4 (2.5× is 25000n).
 */
export const MULTIPLIER_SCALE = 10_000n;

/** Payout = amount × multiplier, rounded down to the currency's smallest unit. */
export function applyMultiplier(amountMinor: bigint, multiplier4: bigint): bigint {
  return (amountMinor * multiplier4) / MULTIPLIER_SCALE;
}

/** A multiplier given as decimal text or a table number (e.g. 3.96) → scaled integer. */
export function parseMultiplier(text: string | number): bigint {
  return parseMinorUnits(String(text), 4);
}

export function formatMultiplier(multiplier4: bigint): string {
  return formatMinorUnits(multiplier4, 4);
}

/**
 * An amount of a request (the exact decimal text of its JSON number) → minor units of
 * `currency`. More decimals than the currency has, zero (unless allowed) or a negative amount
 * is a VALIDATION_ERROR naming the field (CONTRACT.md §3).
 */
/**
 * The largest amount a request may carry, in minor units (30 digits). PostgreSQL keeps amounts
 * in NUMERIC(40, 0): this leaves room for payout = amount × the largest multiplier (10^6) and
 * for Blackjack's total stake, so no stored amount can overflow its column (which answered 500).
 */
export const MAX_AMOUNT_MINOR = 10n ** 30n - 1n;

export function parseAmount(text: string, currency: CurrencyCode, opts: { field?: string; allowZero?: boolean } = {}): bigint {
  const field = opts.field ?? 'amount';
  const decimals = CURRENCY_DECIMALS[currency];
  let minor: bigint;
  try {
    minor = parseMinorUnits(text, decimals);
  } catch (err) {
    if (err instanceof AmountFormatError)
      throw new RuleError('VALIDATION_ERROR', `${field} must be a number with at most ${decimals} decimals for ${currency}`);
    throw err;
  }
  if (minor < 0n || (!opts.allowZero && minor === 0n)) throw new RuleError('VALIDATION_ERROR', `${field} must be greater than 0`);
  if (minor > MAX_AMOUNT_MINOR) throw new RuleError('VALIDATION_ERROR', `${field} is too large (at most 30 digits of minor units)`);
  return minor;
}

/** Minor units as the exact JSON number of an answer, in the currency's decimals (12345n USD → 123.45). */
export function amountJson(minor: bigint, currency: CurrencyCode): LosslessNumber {
  return new LosslessNumber(formatMinorUnits(minor, CURRENCY_DECIMALS[currency]));
}

/** A multiplier scaled by 10^4 as the exact JSON number of an answer (25000n → 2.5). */
export function multiplierJson(multiplier4: bigint): LosslessNumber {
  return new LosslessNumber(formatMultiplier(multiplier4));
}
