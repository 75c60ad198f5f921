import type { CheckContext } from '../context.js';

export const CATEGORIES = ['session', 'signature', 'money', 'idempotency', 'rollback', 'input', 'performance', 'run'] as const;
export type Category = (typeof CATEGORIES)[number];

/** Figures a check reports besides pass or fail (latencies, counts). */
export type Figures = Record<string, number | string | Record<string, number | string>>;

export interface CheckOutcome {
  message?: string;
  figures?: Figures;
}

export interface CheckDef {
  /** `<category>.<name>`, stable: reports and CI jobs refer to it. */
  id: string;
  category: Category;
  /** What a conforming wallet does, as one sentence. */
  title: string;
  /** The SPEC.md / CONTRACT.md clause it checks. */
  clause: string;
  run(ctx: CheckContext): Promise<CheckOutcome | void>;
}

export const check = (def: CheckDef): CheckDef => def;
