/**
 * Limbo (CONTRACT.md §10): result = max(1.00, floor(99·10^8 / (floor(f0 × 10^8) + 1)) / 100),
 * the bet wins when result ≥ target and the multiplier is the target. Integers throughout:
 * result and target are counted in hundredths.
 */
import { z } from 'zod';
import { floorMul, hasAtMostDecimals, hundredthsNumber, toScaled } from './exact.js';

export const limboParamsSchema = z.object({
  target: z
    .number()
    .min(1.01)
    .max(1_000_000)
    .refine((v) => hasAtMostDecimals(v, 2), { message: 'target takes at most 2 decimals' }),
});
export type LimboParams = z.infer<typeof limboParamsSchema>;

export interface LimboResult {
  result: number;
  target: number;
}

/** The limbo result in hundredths: at least 100 (1.00×), at most 9 900 000 000 (99 000 000×). */
export function limboResultHundredths(f0: number): bigint {
  const n = BigInt(floorMul(f0, 100_000_000));
  const r = 9_900_000_000n / (n + 1n);
  return r < 100n ? 100n : r;
}

function targetHundredths(params: LimboParams): bigint {
  const t = toScaled(params.target, 2);
  if (t === null) throw new RangeError('target takes at most 2 decimals');
  return t;
}

export function limboFloatsNeeded(): number {
  return 1;
}

export function settleLimbo(floats: readonly number[], params: LimboParams): { result: LimboResult; multiplier4: bigint } {
  const f0 = floats[0];
  if (f0 === undefined) throw new RangeError('limbo needs 1 float');
  const result = limboResultHundredths(f0);
  const target = targetHundredths(params);
  return {
    result: { result: hundredthsNumber(result), target: hundredthsNumber(target) },
    multiplier4: result >= target ? target * 100n : 0n,
  };
}

/** The multiplier is the target. */
export function limboMaxMultiplier4(params: LimboParams): bigint {
  return targetHundredths(params) * 100n;
}
