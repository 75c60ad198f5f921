/**
 * The bet amount rules of an operator profile (CONTRACT.md §3): minBet, maxBet, stakeStep, in minor
 * units. The rules themselves are @gp/game-core's (money/limits.ts), the ones the server applies;
 * this file adds what the stake buttons do (clamp, half, double).
 */
import { applyMultiplier, largestStakeWithin, parseMultiplier, stakeProblem, type StakeLimits, type StakeProblem } from '@gp/game-core/money';
import type { Minor } from './money';

export { stakeProblem, type StakeLimits, type StakeProblem };

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

/** A multiplier (a number of at most 4 decimals, as the tables and targets write it) × 10^4; digits past the 4th are cut. */
export function mult4Of(multiplier: number): bigint {
  const [int = '0', frac = ''] = String(multiplier).split('.');
  try {
    return parseMultiplier(frac ? `${int}.${frac.slice(0, 4)}` : int);
  } catch {
    return 0n;
  }
}

/** The largest payout a stake can reach with the largest multiplier its settings allow: floor(stake × m), as the server computes it (CONTRACT.md §3). */
export const largestPayout = (stake: Minor, maxMult4: bigint): Minor => applyMultiplier(stake, maxMult4);

/** The largest stake (on the step grid) whose largest payout stays within maxPayout; null when no stake does (below minBet). */
export const maxStakeForPayout = (maxMult4: bigint, maxPayout: Minor, l: StakeLimits): Minor | null => largestStakeWithin(maxMult4, maxPayout, l);
