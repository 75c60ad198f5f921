/** The bet amount rules of an operator profile (CONTRACT.md §3): minBet, maxBet, stakeStep, in minor units. */
import type { Minor } from './money';

export interface StakeLimits {
  minBet: Minor;
  maxBet: Minor | null;
  stakeStep: Minor;
}

export type StakeProblem = 'belowMin' | 'aboveMax' | 'notStep' | null;

export function floorToStep(amount: Minor, step: Minor): Minor {
  return amount - (amount % step);
}

/** Into the limits, on the step grid (rounding down), never below minBet. */
export function clampStake(amount: Minor, l: StakeLimits): Minor {
  let a = floorToStep(amount, l.stakeStep);
  if (l.maxBet !== null && a > l.maxBet) a = l.maxBet;
  if (a < l.minBet) a = l.minBet;
  return a;
}

export const halfStake = (amount: Minor, l: StakeLimits) => clampStake(amount / 2n, l);
export const doubleStake = (amount: Minor, l: StakeLimits) => clampStake(amount * 2n, l);
export const minStake = (l: StakeLimits) => l.minBet;

/** maxBet when set; else the balance rounded down to the step (never below minBet). */
export function maxStake(l: StakeLimits, balance: Minor | null): Minor {
  if (l.maxBet !== null) return l.maxBet;
  return clampStake(balance ?? l.minBet, l);
}

export function stakeProblem(amount: Minor, l: StakeLimits): StakeProblem {
  if (amount < l.minBet) return 'belowMin';
  if (l.maxBet !== null && amount > l.maxBet) return 'aboveMax';
  if (amount % l.stakeStep !== 0n) return 'notStep';
  return null;
}
