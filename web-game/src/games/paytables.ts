/**
 * The plinko and keno payout tables (CONTRACT.md §10), read from the same JSON files the server
 * settles with (one source; `@gp/paytables` is an alias in vite.config.ts and tsconfig.json).
 */
import plinkoJson from '@gp/paytables/plinko.json';
import kenoJson from '@gp/paytables/keno.json';

export const PLINKO_ROWS = [8, 9, 10, 11, 12, 13, 14, 15, 16] as const;
export const PLINKO_RISKS = ['low', 'medium', 'high', 'expert'] as const;
export type PlinkoRisk = (typeof PLINKO_RISKS)[number];
export const KENO_RISKS = ['classic', 'low', 'medium', 'high'] as const;
export type KenoRisk = (typeof KENO_RISKS)[number];

/** Multipliers of bins 0..rows. */
export function plinkoRow(rows: number, risk: PlinkoRisk): number[] {
  return (plinkoJson.rows as Record<string, Record<PlinkoRisk, number[]>>)[String(rows)]?.[risk] ?? [];
}

/** Multipliers of 0..picks hits. */
export function kenoRow(risk: KenoRisk, picks: number): number[] {
  return (kenoJson.risks as Record<KenoRisk, Record<string, number[]>>)[risk]?.[String(picks)] ?? [];
}
