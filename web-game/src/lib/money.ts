/**
 * Money in the page (CONTRACT.md §3): integer minor units (BigInt) of the session currency, never
 * floats. Amounts arrive as JSON numbers (kept exact by the API layer: a number that a double
 * cannot hold arrives as its decimal text) and leave as JSON numbers with at most the currency's
 * decimals. The page shows amounts in the session currency and never converts.
 */
import { applyMultiplier, formatMinorUnits, parseMinorUnits, parseMultiplier } from '@gp/game-core/money';
import { LosslessNumber } from 'lossless-json';
import { localizeDecimal } from './format';

export type Minor = bigint;

/**
 * Decimal text (also `1e-8`, and `12.` while typing) → minor units; null when it has more
 * decimals than allowed or is not a number. The conversion is @gp/game-core's, the server's own.
 */
export function parseMinor(text: string, decimals: number): Minor | null {
  try {
    return parseMinorUnits(text.trim().replace(/\.(?=$|[eE])/, ''), decimals);
  } catch {
    return null;
  }
}

/** An amount from an API answer (number or exact decimal text). */
export function fromApi(v: unknown, decimals: number): Minor {
  const text = typeof v === 'number' ? String(v) : typeof v === 'string' ? v : v instanceof LosslessNumber ? v.value : '';
  const minor = parseMinor(text, decimals);
  if (minor === null) throw new Error(`not an amount: ${text}`);
  return minor;
}

/** Plain decimal text with exactly `decimals` decimals: 1234.50 */
export function toDecimalText(minor: Minor, decimals: number): string {
  const [int = '0', frac = ''] = formatMinorUnits(minor, decimals).split('.');
  return decimals === 0 ? int : `${int}.${frac.padEnd(decimals, '0')}`;
}

/** For display: grouped integer part, all the currency's decimals, in the page's language: 1,234.50 (en), 1.234,50 (de) */
export function formatMinor(minor: Minor, decimals: number): string {
  return localizeDecimal(toDecimalText(minor, decimals));
}

export function formatMoney(minor: Minor, currency: string, decimals: number): string {
  return `${formatMinor(minor, decimals)} ${currency}`;
}

/** The JSON number of a request body (exact text, at most the currency's decimals). */
export function toJsonNumber(minor: Minor, decimals: number): LosslessNumber {
  return new LosslessNumber(toDecimalText(minor, decimals));
}

/** A multiplier as the server wrote it (up to 4 decimals), with at least 2 decimals: 2 → "2.00", 1.2857 → "1.2857". */
export function formatMultiplier(value: number): string {
  const [int = '0', frac = ''] = String(value).split('.');
  return localizeDecimal(`${int}.${frac.padEnd(2, '0')}`);
}

/** A multiplier in a narrow cell: 2 decimals below 100 (0.40, 36.00), whole from 100 (1,000): pay strips, plinko bins. */
export function shortMultiplier(value: number): string {
  const [int = '0', frac = ''] = String(value).split('.');
  return value >= 100 ? localizeDecimal(int) : localizeDecimal(`${int}.${(frac + '00').slice(0, 2)}`);
}

/** A multiplier with exactly 2 decimals, rounded down (never more than is paid): Mines' current and next (1.03×, 1.07×). */
export function multiplier2(value: number): string {
  const [int = '0', frac = ''] = String(value).split('.');
  return localizeDecimal(`${int}.${(frac + '00').slice(0, 2)}`);
}

/** payout = floor(amount × multiplier) with the multiplier's decimal text (no float arithmetic on money). */
export function payoutOf(amount: Minor, multiplier: number): Minor {
  try {
    return applyMultiplier(amount, parseMultiplier(multiplier));
  } catch {
    return 0n;
  }
}
