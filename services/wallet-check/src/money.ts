/**
 * Amounts as the wire carries them (CONTRACT.md §3): exact JSON numbers in the currency's
 * decimals, read and written without a double in between. Minor units are BigInt.
 */
import { formatMinor, parseMinor, SPEC_DECIMALS } from '@gp/reference-casino';
import { LosslessNumber, isLosslessNumber, stringify } from 'lossless-json';

export { SPEC_DECIMALS };

/** Minor units → an exact JSON number for a request body. */
export function jsonAmount(minor: bigint, decimals: number): LosslessNumber {
  return new LosslessNumber(formatMinor(minor, decimals));
}

/** Minor units → decimal text with every decimal written ("0.07", "0.00000007"). */
export function fullDecimals(minor: bigint, decimals: number): string {
  const sign = minor < 0n ? '-' : '';
  const abs = minor < 0n ? -minor : minor;
  if (decimals === 0) return `${sign}${abs}`;
  const base = 10n ** BigInt(decimals);
  return `${sign}${abs / base}.${(abs % base).toString().padStart(decimals, '0')}`;
}

export function formatAmount(minor: bigint, decimals: number): string {
  return formatMinor(minor, decimals);
}

/** Decimal text → minor units; undefined when it is not a number or has more decimals than allowed. */
export function parseAmount(text: string, decimals: number): bigint | undefined {
  try {
    return parseMinor(text, decimals);
  } catch {
    return undefined;
  }
}

export type AmountReading = { ok: true; minor: bigint; text: string } | { ok: false; problem: string };

/** Reads an amount of an answer: a JSON number (not a string) with at most `decimals` decimals. */
export function readAmount(value: unknown, decimals: number): AmountReading {
  if (value === undefined) return { ok: false, problem: 'is missing' };
  if (typeof value === 'string') return { ok: false, problem: `is a JSON string (${JSON.stringify(value)}), not a number` };
  if (!isLosslessNumber(value)) return { ok: false, problem: `is not a number (${JSON.stringify(value)})` };
  const minor = parseAmount(value.value, decimals);
  if (minor === undefined) return { ok: false, problem: `${value.value} has more than the currency's ${decimals} decimals` };
  return { ok: true, minor, text: value.value };
}

/** Exact JSON text of a value whose amounts are LosslessNumber. */
export function jsonText(value: unknown): string {
  return stringify(value) ?? 'null';
}
