/**
 * The checkers themselves: the bank check finds each kind of money discrepancy, and the
 * independent fairness recomputation matches CONTRACT.md §9's check value.
 */
import { describe, expect, it } from 'vitest';
import { bankCheck, type StoredRoundRow } from '../src/bank-check.js';
import type { LedgerTx } from '../src/casino.js';
import { fromMinor, toMinor } from '../src/casino.js';
import { blackjackActions, diceRoll, limboResult, sha256Hex, streamWords } from '../src/reverify.js';

const player = { playerRef: 'p1', operatorId: 'op', currency: 'USD', startBalance: 10_000n };
let n = 0;
const tx = (type: LedgerTx['type'], roundId: string, key: string, amount: bigint, extra: Partial<LedgerTx> = {}): LedgerTx => ({
  casinoTransactionId: `t${++n}`,
  type,
  operatorId: 'op',
  playerRef: 'p1',
  roundId,
  gameType: 'dice',
  idempotencyKey: key,
  amount,
  currency: 'USD',
  balanceAfter: 0n,
  time: '',
  ...extra,
});
const round = (roundId: string, status: string, amount: bigint, payout: bigint | null): StoredRoundRow => ({
  roundId,
  operatorId: 'op',
  playerRef: 'p1',
  gameType: 'dice',
  currency: 'USD',
  status,
  amount,
  totalStaked: amount,
  payout,
});

/** A consistent world: r1 settled (100 → 250), r2 cancelled (debit rolled back), r3 error (refused). */
function world() {
  const ledger = [
    tx('debit', 'r1', 'r1:debit', 100n),
    tx('credit', 'r1', 'r1:credit', 250n),
    tx('debit', 'r2', 'r2:debit', 300n),
    tx('rollback', 'r2', 'r2:debit:rollback', 300n, { debitIdempotencyKey: 'r2:debit' }),
  ];
  const rounds = [round('r1', 'settled', 100n, 250n), round('r2', 'cancelled', 300n, null), round('r3', 'error', 50n, null)];
  const balances = new Map([['op p1', 10_150n]]);
  return { ledger, rounds, players: [player], balances };
}

describe('bank check', () => {
  it('passes a consistent ledger', () => {
    expect(bankCheck(world()).discrepancies).toEqual([]);
  });

  it('finds a key applied twice, a double credit, and the balance that follows', () => {
    const w = world();
    w.ledger.push(tx('credit', 'r1', 'r1:credit', 250n));
    w.balances.set('op p1', 10_400n);
    const found = bankCheck(w).discrepancies.join('\n');
    expect(found).toMatch(/r1:credit applied twice/);
    expect(found).toMatch(/2 credits/);
    expect(found).toMatch(/casino balance 10400/);
  });

  it('finds a debit left open, a round not final, an unknown round and a wrong payout', () => {
    const w = world();
    w.ledger.splice(3, 1); // r2's rollback is lost
    w.rounds[2] = round('r3', 'credit_pending', 50n, 0n);
    w.rounds[0] = round('r1', 'settled', 100n, 200n);
    w.ledger.push(tx('debit', 'ghost', 'ghost:debit', 10n));
    const found = bankCheck(w).discrepancies.join('\n');
    expect(found).toMatch(/r2:debit closed by 0/);
    expect(found).toMatch(/r3 .*not in a final status/);
    expect(found).toMatch(/round the provider does not know/);
    expect(found).toMatch(/credit 250 ≠ payout 200/);
  });

  it('finds a rollback that refunds more than its debit took', () => {
    const w = world();
    w.ledger[3] = tx('rollback', 'r2', 'r2:debit:rollback', 400n, { debitIdempotencyKey: 'r2:debit' });
    expect(bankCheck(w).discrepancies.join('\n')).toMatch(/refunds 400, the debit took 300/);
  });
});

describe('independent recomputation (CONTRACT.md §9 check value)', () => {
  const seed = '18e93f4a7b5b58d2569765766d1b6c3296bbd8430d6f20249044d72f14720159';
  it('first float, dice roll and limbo result', () => {
    const words = streamWords(seed, 'bb62964774', 1, 1);
    expect(words[0]! / 2 ** 32).toBeCloseTo(0.771740999306, 12);
    expect(diceRoll(words)).toBe('77.18');
    expect(limboResult(words)).toBe('1.28');
    expect(sha256Hex(seed)).toMatch(/^[0-9a-f]{64}$/);
  });

  it('reads the actions of a final Blackjack round back from its hands', () => {
    const hand = (cards: string[], value: number, status: string, doubled = false) => ({ cards, value, doubled, status });
    expect(
      blackjackActions({
        dealer: { cards: ['9S', '7H', '5D'], value: 21 },
        hands: [hand(['5D', '4C', '3H', '6S'], 18, 'stood')],
        insurance: { offered: false, taken: null },
      }),
    ).toEqual(['hit', 'hit', 'stand']);
    expect(
      blackjackActions({
        dealer: { cards: ['AS', '9H'], value: 20 },
        hands: [hand(['8D', '2C', 'KH'], 20, 'stood', true)],
        insurance: { offered: true, taken: false },
      }),
    ).toEqual(['decline_insurance', 'double']);
    expect(
      blackjackActions({
        dealer: { cards: ['6S', 'KH', '9D'], value: 25 },
        hands: [hand(['8D', '3C', 'KS'], 21, 'stood'), hand(['8H', '9C'], 17, 'stood')],
        insurance: { offered: false, taken: null },
      }),
    ).toEqual(['split', 'hit', 'stand']);
    expect(
      blackjackActions({ dealer: { cards: ['KS', 'AH'], value: 21 }, hands: [hand(['8D', '9C'], 17, 'stood')], insurance: { offered: false, taken: null } }),
    ).toEqual([]);
  });
});

describe('exact amounts', () => {
  it('decimal text ↔ minor units', () => {
    expect(toMinor('1e-8', 8)).toBe(1n);
    expect(toMinor('123456789012345.12345678', 8)).toBe(12345678901234512345678n);
    expect(toMinor('100', 2)).toBe(10000n);
    expect(toMinor('0.10', 2)).toBe(10n);
    expect(() => toMinor('0.001', 2)).toThrow();
    expect(fromMinor(12345n, 2)).toBe('123.45');
    expect(fromMinor(1n, 8)).toBe('0.00000001');
  });
});
