/**
 * Keno (CONTRACT.md §10): 1 to 10 distinct picks in 1..40; pool = [1..40], for i = 0..9 draw and
 * remove pool[floor(f_i × (40 − i))]; multiplier = table[risk][count of picks][hits]
 * (paytables/keno.json). Duplicate picks fail the schema (VALIDATION_ERROR, CONTRACT.md §13).
 */
import { z } from 'zod';
import { floorMul } from './exact.js';
import { KENO_RISKS, kenoRow, maxOf } from './paytables.js';
import type { KenoRisk } from './paytables.js';

export const KENO_DRAWS = 10;

export const kenoParamsSchema = z.object({
  picks: z
    .array(z.number().int().min(1).max(40))
    .min(1)
    .max(10)
    .refine((p) => new Set(p).size === p.length, { message: 'picks must be distinct' }),
  risk: z.enum(KENO_RISKS).default('classic'),
});
export type KenoParams = z.infer<typeof kenoParamsSchema>;

export interface KenoResult {
  picks: number[];
  /** in draw order */
  drawn: number[];
  /** the picks that were drawn, ascending */
  hits: number[];
  risk: KenoRisk;
}

export function kenoFloatsNeeded(): number {
  return KENO_DRAWS;
}

export function kenoDraw(floats: readonly number[]): number[] {
  const pool = Array.from({ length: 40 }, (_, i) => i + 1);
  const drawn: number[] = [];
  for (let i = 0; i < KENO_DRAWS; i += 1) {
    const f = floats[i];
    if (f === undefined) throw new RangeError(`keno needs ${KENO_DRAWS} floats`);
    drawn.push(...pool.splice(floorMul(f, 40 - i), 1));
  }
  return drawn;
}

export function settleKeno(floats: readonly number[], params: KenoParams): { result: KenoResult; multiplier4: bigint } {
  const drawn = kenoDraw(floats);
  const drawnSet = new Set(drawn);
  const hits = params.picks.filter((p) => drawnSet.has(p)).sort((a, b) => a - b);
  const multiplier4 = kenoRow(params.risk, params.picks.length)[hits.length];
  if (multiplier4 === undefined) throw new RangeError('keno hits outside its table');
  return { result: { picks: [...params.picks], drawn, hits, risk: params.risk }, multiplier4 };
}

export function kenoMaxMultiplier4(params: KenoParams): bigint {
  return maxOf(kenoRow(params.risk, params.picks.length));
}
