/**
 * Plinko (CONTRACT.md §10): one float per row, right when f ≥ 0.5; bin = number of rights;
 * multiplier = table[rows][risk][bin] (paytables/plinko.json).
 */
import { z } from 'zod';
import { PLINKO_RISKS, maxOf, plinkoRow } from './paytables.js';
import type { PlinkoRisk } from './paytables.js';

export const plinkoParamsSchema = z
  .object({
    rows: z.number().int().min(8).max(16).default(16),
    risk: z.enum(PLINKO_RISKS).default('low'),
  })
  .prefault({});
export type PlinkoParams = z.infer<typeof plinkoParamsSchema>;

export interface PlinkoResult {
  rows: number;
  risk: PlinkoRisk;
  /** 0 = left, 1 = right, per row */
  path: number[];
  bin: number;
}

export function plinkoFloatsNeeded(params: PlinkoParams): number {
  return params.rows;
}

export function settlePlinko(floats: readonly number[], params: PlinkoParams): { result: PlinkoResult; multiplier4: bigint } {
  if (floats.length < params.rows) throw new RangeError(`plinko needs ${params.rows} floats`);
  const path = floats.slice(0, params.rows).map((f) => (f >= 0.5 ? 1 : 0));
  const bin = path.reduce<number>((a, b) => a + b, 0);
  const multiplier4 = plinkoRow(params.rows, params.risk)[bin];
  if (multiplier4 === undefined) throw new RangeError('plinko bin outside its table');
  return { result: { rows: params.rows, risk: params.risk, path, bin }, multiplier4 };
}

export function plinkoMaxMultiplier4(params: PlinkoParams): bigint {
  return maxOf(plinkoRow(params.rows, params.risk));
}
