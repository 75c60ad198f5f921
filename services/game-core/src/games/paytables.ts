/**
 * The payout tables of plinko and keno (CONTRACT.md §10, paytables/*.json copied into ./data),
 * parsed once into exact multipliers scaled by 10^4 (parseMultiplier reads the decimal text, no
 * float arithmetic) and checked for shape: plinko rows 8..16 × risk × bins 0..rows, keno
 * risk × picks 1..10 × hits 0..picks.
 */
import { parseMultiplier } from '../money/index.js';
import plinkoJson from './data/plinko.json' with { type: 'json' };
import kenoJson from './data/keno.json' with { type: 'json' };

export const PLINKO_RISKS = ['low', 'medium', 'high', 'expert'] as const;
export type PlinkoRisk = (typeof PLINKO_RISKS)[number];
export const KENO_RISKS = ['classic', 'low', 'medium', 'high'] as const;
export type KenoRisk = (typeof KENO_RISKS)[number];

function row(value: unknown, length: number, where: string): bigint[] {
  if (!Array.isArray(value) || value.length !== length) throw new Error(`paytable ${where}: expected ${length} entries`);
  return value.map((v: unknown) => {
    if (typeof v !== 'number') throw new Error(`paytable ${where}: not a number`);
    return parseMultiplier(v);
  });
}

function field(obj: unknown, key: string, where: string): unknown {
  if (typeof obj !== 'object' || obj === null || !(key in obj)) throw new Error(`paytable ${where}: missing ${key}`);
  return (obj as Record<string, unknown>)[key];
}

/** PLINKO[rows][risk][bin] */
const PLINKO = new Map<number, Record<PlinkoRisk, bigint[]>>();
for (let rows = 8; rows <= 16; rows += 1) {
  const byRisk = field(field(plinkoJson, 'rows', 'plinko'), String(rows), 'plinko');
  const entry = {} as Record<PlinkoRisk, bigint[]>;
  for (const risk of PLINKO_RISKS) entry[risk] = row(field(byRisk, risk, `plinko ${rows}`), rows + 1, `plinko ${rows} ${risk}`);
  PLINKO.set(rows, entry);
}

/** KENO[risk][picks][hits] */
const KENO = {} as Record<KenoRisk, bigint[][]>;
for (const risk of KENO_RISKS) {
  const byPicks = field(field(kenoJson, 'risks', 'keno'), risk, 'keno');
  const rows: bigint[][] = [];
  for (let picks = 1; picks <= 10; picks += 1) rows.push(row(field(byPicks, String(picks), `keno ${risk}`), picks + 1, `keno ${risk} ${picks}`));
  KENO[risk] = rows;
}

/** Multipliers of the bins 0..rows. */
export function plinkoRow(rows: number, risk: PlinkoRisk): readonly bigint[] {
  const table = PLINKO.get(rows);
  if (!table) throw new RangeError(`plinko has no table for ${rows} rows`);
  return table[risk];
}

/** Multipliers of 0..picks hits. */
export function kenoRow(risk: KenoRisk, picks: number): readonly bigint[] {
  const r = KENO[risk][picks - 1];
  if (!r) throw new RangeError(`keno has no table for ${picks} picks`);
  return r;
}

export function maxOf(values: readonly bigint[]): bigint {
  return values.reduce((a, b) => (b > a ? b : a), 0n);
}
