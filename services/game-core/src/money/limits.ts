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

export function checkStake(amount: bigint, limits: BetLimits): void {
  if (amount < limits.minBet) throw new RuleError('BET_OUT_OF_RANGE', 'amount is below the minimum bet');
  if (limits.maxBet !== null && amount > limits.maxBet) {
    throw new RuleError('BET_OUT_OF_RANGE', 'amount is above the maximum bet');
  }
  if (limits.stakeStep > 0n && amount % limits.stakeStep !== 0n) {
    throw new RuleError('BET_OUT_OF_RANGE', 'amount is not a multiple of the stake step');
  }
}

/** Refuses, before any debit, a bet whose largest reachable payout exceeds maxPayout. */
export function checkMaxPayout(amount: bigint, largestMultiplier4: bigint, limits: BetLimits): void {
  if (applyMultiplier(amount, largestMultiplier4) > limits.maxPayout) {
    throw new RuleError('MAX_PAYOUT_EXCEEDED', 'the largest payout this bet can reach exceeds the operator limit');
  }
}
