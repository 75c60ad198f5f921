/**
 * Bet limits of an operator-currency profile (CONTRACT.md §3): minBet, optional maxBet, an
 * absolute stakeStep and the maxPayout risk limit. All values in minor units.
 */
import { RuleError } from '../errors.js';
import { applyMultiplier } from './amount.js';

export interface BetLimits {
  minBet: bigint;
  maxBet: bigint | null;
  stakeStep: bigint;
  maxPayout: bigint;
}

/** The stake rules without the largest payout (what the game page checks as the player types). */
export type StakeLimits = Pick<BetLimits, 'minBet' | 'maxBet' | 'stakeStep'>;
export type StakeProblem = 'belowMin' | 'aboveMax' | 'notStep' | null;

/** Which stake rule an amount breaks, if any: the one rule the server (checkStake) and the game page apply. */
export function stakeProblem(amount: bigint, limits: StakeLimits): StakeProblem {
  if (amount < limits.minBet) return 'belowMin';
  if (limits.maxBet !== null && amount > limits.maxBet) return 'aboveMax';
  if (limits.stakeStep > 0n && amount % limits.stakeStep !== 0n) return 'notStep';
  return null;
}

const STAKE_MESSAGES = {
  belowMin: 'amount is below the minimum bet',
  aboveMax: 'amount is above the maximum bet',
  notStep: 'amount is not a multiple of the stake step',
} as const;

export function checkStake(amount: bigint, limits: BetLimits): void {
  const problem = stakeProblem(amount, limits);
  if (problem) throw new RuleError('BET_OUT_OF_RANGE', STAKE_MESSAGES[problem]);
}

/**
 * The largest stake on the step grid whose largest reachable payout stays within maxPayout (the
 * bound checkMaxPayout enforces); null when not even minBet fits. No bound from the multiplier
 * (≤ 0): maxBet.
 */
export function largestStakeWithin(largestMultiplier4: bigint, maxPayout: bigint, limits: StakeLimits): bigint | null {
  if (largestMultiplier4 <= 0n) return limits.maxBet;
  let a = ((maxPayout + 1n) * 10_000n - 1n) / largestMultiplier4;
  if (limits.stakeStep > 0n) a -= a % limits.stakeStep;
  if (limits.maxBet !== null && a > limits.maxBet) a = limits.maxBet;
  return a < limits.minBet ? null : a;
}

/** Refuses, before any debit, a bet whose largest reachable payout exceeds maxPayout. */
export function checkMaxPayout(amount: bigint, largestMultiplier4: bigint, limits: BetLimits): void {
  if (applyMultiplier(amount, largestMultiplier4) > limits.maxPayout) {
    throw new RuleError('MAX_PAYOUT_EXCEEDED', 'the largest payout this bet can reach exceeds the operator limit');
  }
}
