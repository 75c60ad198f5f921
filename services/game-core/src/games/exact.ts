/**
 * Exact integer helpers shared by the games (CONTRACT.md §3, §10): floor(f × n) for a float of
 * the stream without floating-point error, the "at most d decimals" rule of params, and the
 * conversion of scaled integers to the JSON numbers of results.
 */
import { AmountFormatError, formatMinorUnits, parseMinorUnits } from '../money/index.js';

const TWO_POW_32 = 4294967296;

/**
 * floor(f × n), exact, for f in [0, 1) and a positive safe integer n. Stream floats are
 * multiples of 2^-32, so f × n is exact in doubles while it stays below 2^53; any other
 * double is decomposed into integer × 2^-e and done in BigInt.
 */
export function floorMul(f: number, n: number): number {
  if (!(f >= 0 && f < 1)) throw new RangeError(`float out of [0, 1): ${f}`);
  if (!Number.isSafeInteger(n) || n <= 0) throw new RangeError(`factor must be a positive integer: ${n}`);
  let m = f * TWO_POW_32;
  let e = 32;
  if (Number.isInteger(m)) {
    if (m * n < 2 ** 53) return Math.floor(f * n);
  } else {
    m = f;
    e = 0;
    while (!Number.isInteger(m)) {
      m *= 2;
      e += 1;
    }
  }
  return Number((BigInt(m) * BigInt(n)) >> BigInt(e));
}

/** Scale of a number given as decimal text with at most `decimals` decimals, else null. */
export function toScaled(value: number, decimals: number): bigint | null {
  if (!Number.isFinite(value)) return null;
  try {
    return parseMinorUnits(String(value), decimals);
  } catch (err) {
    if (err instanceof AmountFormatError) return null;
    throw err;
  }
}

export function hasAtMostDecimals(value: number, decimals: number): boolean {
  return toScaled(value, decimals) !== null;
}

/** A multiplier scaled by 10^4 as a JSON number (25000n → 2.5). */
export function multiplierNumber(multiplier4: bigint): number {
  return Number(multiplier4) / 10_000;
}

/** A count of hundredths as a JSON number (7718 → 77.18). */
export function hundredthsNumber(hundredths: bigint | number): number {
  return Number(hundredths) / 100;
}

/** Minor units as a JSON number in the currency's decimals (12345n, 2 → 123.45). */
export function minorToNumber(minor: bigint, decimals: number): number {
  return Number(formatMinorUnits(minor, decimals));
}
