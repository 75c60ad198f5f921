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

/** A multiplier (a number of at most 4 decimals, as the tables and targets write it) × 10^4. */
export function mult4Of(multiplier: number): bigint {
  const [int = '0', frac = ''] = String(multiplier).split('.');
  if (!/^\d+$/.test(int) || !/^\d*$/.test(frac)) return 0n;
  return BigInt(int) * 10_000n + BigInt((frac + '0000').slice(0, 4));
}

/** The largest payout a stake can reach with the largest multiplier its settings allow: floor(stake × m), as the server computes it (CONTRACT.md §3). */
export const largestPayout = (stake: Minor, maxMult4: bigint): Minor => (stake * maxMult4) / 10_000n;

/** The largest stake (on the step grid) whose largest payout stays within maxPayout; null when no stake does (below minBet). */
export function maxStakeForPayout(maxMult4: bigint, maxPayout: Minor, l: StakeLimits): Minor | null {
  if (maxMult4 <= 0n) return l.maxBet;
  let a = floorToStep(((maxPayout + 1n) * 10_000n - 1n) / maxMult4, l.stakeStep);
  if (l.maxBet !== null && a > l.maxBet) a = l.maxBet;
  return a < l.minBet ? null : a;
}
