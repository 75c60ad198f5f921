/**
 * The plinko and keno payout tables (CONTRACT.md §10), read from the same JSON files the server
 * settles with (one source; `@gp/paytables` is an alias in vite.config.ts and tsconfig.json).
 */
import plinkoJson from '@gp/paytables/plinko.json';
import kenoJson from '@gp/paytables/keno.json';
import { localizeDecimal } from '../lib/format';
import { formatMultiplier } from '../lib/money';

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

/** A bin's label: 0.5, 1.1, 26, 1K, 10K (a bin is about one peg wide; "10000" spilled out of it). */
export function binLabel(m: number): string {
  if (m >= 1000) return `${localizeDecimal(String(m / 1000))}K`;
  if (m >= 100) return String(Math.floor(m));
  return formatMultiplier(m).replace(/[.,]?0+$/, '') || '0';
}
/** Long labels are squeezed to the bin's width (SVG textLength) instead of spilling out. */
export const binTextFit = (label: string) => (label.length > 3 ? { textLength: 0.84, lengthAdjust: 'spacingAndGlyphs' as const } : {});
