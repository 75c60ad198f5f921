/**
 * Dice (CONTRACT.md §10, §13): roll = floor(f0 × 10001) / 100 in 0.00..100.00; `over` wins when
 * roll > target, `under` when roll < target; multiplier floor(99 / winChance) to 4 decimals.
 * The winning window 2 ≤ winChance ≤ 98 is checked at settlement (INVALID_GAME_PARAMS), after the
 * debit; everything else is the params schema (VALIDATION_ERROR). Integers throughout: the target
 * and the roll are counted in hundredths.
 */
import { z } from 'zod';
import { RuleError } from '../errors.js';
import { floorMul, hasAtMostDecimals, hundredthsNumber, toScaled } from './exact.js';

export const diceParamsSchema = z.object({
  target: z
    .number()
    .min(0)
    .max(100)
    .refine((v) => hasAtMostDecimals(v, 2), { message: 'target takes at most 2 decimals' }),
  direction: z.enum(['over', 'under']),
});
export type DiceParams = z.infer<typeof diceParamsSchema>;

export interface DiceResult {
  roll: number;
  target: number;
  direction: 'over' | 'under';
  winChance: number;
}

const MIN_WIN_CHANCE = 200n; // 2.00 %, in hundredths
const MAX_WIN_CHANCE = 9800n; // 98.00 %

function targetHundredths(params: DiceParams): bigint {
  const t = toScaled(params.target, 2);
  if (t === null) throw new RuleError('VALIDATION_ERROR', 'target takes at most 2 decimals');
  return t;
}

/** winChance in hundredths of a percent: 100 − target (over) or target (under). */
export function winChanceHundredths(params: DiceParams): bigint {
  const t = targetHundredths(params);
  return params.direction === 'over' ? 10_000n - t : t;
}

export function isValidWindow(params: DiceParams): boolean {
  const w = winChanceHundredths(params);
  return w >= MIN_WIN_CHANCE && w <= MAX_WIN_CHANCE;
}

/** floor(99 / winChance) to 4 decimals = floor(99 × 10^4 × 100 / winChanceHundredths). */
export function diceMultiplier4(params: DiceParams): bigint {
  if (!isValidWindow(params)) {
    throw new RuleError('INVALID_GAME_PARAMS', 'dice winning chance must be between 2 and 98 percent');
  }
  return 99_000_000n / winChanceHundredths(params);
}

export function diceFloatsNeeded(): number {
  return 1;
}

/** Roll in hundredths, 0..10000. */
export function diceRoll(f0: number): number {
  return floorMul(f0, 10_001);
}

export function settleDice(floats: readonly number[], params: DiceParams): { result: DiceResult; multiplier4: bigint } {
  const multiplier = diceMultiplier4(params); // throws INVALID_GAME_PARAMS for a bad window
  const f0 = floats[0];
  if (f0 === undefined) throw new RangeError('dice needs 1 float');
  const roll = BigInt(diceRoll(f0));
  const target = targetHundredths(params);
  const won = params.direction === 'over' ? roll > target : roll < target;
  return {
    result: {
      roll: hundredthsNumber(roll),
      target: hundredthsNumber(target),
      direction: params.direction,
      winChance: hundredthsNumber(winChanceHundredths(params)),
    },
    multiplier4: won ? multiplier : 0n,
  };
}

/**
 * The largest multiplier the params reach. A window outside 2..98 is refused at settlement,
 * after the debit (CONTRACT.md §10), so it must not be refused earlier as MAX_PAYOUT_EXCEEDED:
 * it reaches nothing, 0.
 */
export function diceMaxMultiplier4(params: DiceParams): bigint {
  return isValidWindow(params) ? diceMultiplier4(params) : 0n;
}
