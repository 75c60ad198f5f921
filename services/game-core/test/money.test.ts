import { describe, expect, it } from 'vitest';
import {
  applyMultiplier,
  checkMaxPayout,
  checkStake,
  CURRENCY_CODES,
  CURRENCY_DECIMALS,
  formatMinorUnits,
  MAX_AMOUNT_MINOR,
  parseAmount,
  parseMinorUnits,
  parseMultiplier,
} from '../src/money/index.js';
import { RuleError } from '../src/errors.js';

describe('currencies (SPEC.md precision table)', () => {
  it('has the 17 codes of the v1 contract with their decimals', () => {
    expect(CURRENCY_CODES).toHaveLength(17);
    expect(CURRENCY_DECIMALS).toMatchObject({ USD: 2, USDT: 2, BTC: 8, uBTC: 2, ETH: 6, DOGE: 8, XRP: 6, XLM: 7, ZEC: 8 });
  });
});

describe('exact amounts', () => {
  it('reads 1e-8 BTC as one satoshi', () => {
    expect(parseMinorUnits('1e-8', 8)).toBe(1n);
    expect(parseMinorUnits('0.00000001', 8)).toBe(1n);
    expect(formatMinorUnits(1n, 8)).toBe('0.00000001');
  });
  it('keeps a 15-digit DOGE balance exact', () => {
    expect(parseMinorUnits('123456789012345.12345678', 8)).toBe(12345678901234512345678n);
    expect(formatMinorUnits(12345678901234512345678n, 8)).toBe('123456789012345.12345678');
  });
  it("takes XLM's 7 decimals and refuses an 8th", () => {
    expect(parseMinorUnits('1.2345678', 7)).toBe(12345678n);
    expect(() => parseMinorUnits('1.23456789', 7)).toThrow();
  });
  it('refuses too many decimals but accepts trailing zeros', () => {
    expect(() => parseMinorUnits('0.001', 2)).toThrow();
    expect(parseMinorUnits('1.500', 2)).toBe(150n);
    expect(parseMinorUnits('1.5e2', 2)).toBe(15000n);
  });
  it('keeps the sign and zero so that callers can refuse them', () => {
    expect(parseMinorUnits('-1.25', 2)).toBe(-125n);
    expect(parseMinorUnits('0', 2)).toBe(0n);
    expect(parseMinorUnits('0.00', 2)).toBe(0n);
  });
  it('refuses text that is not a number', () => {
    for (const t of ['', 'abc', '1.2.3', '0x10', 'Infinity', 'NaN']) expect(() => parseMinorUnits(t, 2)).toThrow();
  });
  it('refuses an amount too large for its NUMERIC(40, 0) column (found by the fuzzer: 1e300 on a Mines start answered 500)', () => {
    for (const t of ['1e300', '1.7976931348623157e308', '1e28', '1' + '0'.repeat(40)]) {
      expect(() => parseAmount(t, 'USD'), t).toThrow(RuleError);
      try {
        parseAmount(t, 'USD');
      } catch (err) {
        expect((err as RuleError).code).toBe('VALIDATION_ERROR');
      }
    }
    expect(parseAmount('9999999999999999999999999999.99', 'USD')).toBe(MAX_AMOUNT_MINOR);
    expect(parseAmount('123456789012345.12345678', 'DOGE')).toBe(12345678901234512345678n);
  });
  it('formats whole and negative amounts', () => {
    expect(formatMinorUnits(100n, 2)).toBe('1');
    expect(formatMinorUnits(-150n, 2)).toBe('-1.5');
    expect(formatMinorUnits(0n, 8)).toBe('0');
  });
});

describe('payouts', () => {
  it('are amount × multiplier rounded down to the minor unit', () => {
    expect(applyMultiplier(333n, parseMultiplier('1.98'))).toBe(659n); // 6.5934 → 6.59
    expect(applyMultiplier(1n, parseMultiplier('0.5'))).toBe(0n);
    expect(applyMultiplier(12345678901234512345678n, parseMultiplier('2'))).toBe(24691357802469024691356n);
  });
});

describe('limits (CONTRACT.md §3)', () => {
  const limits = { minBet: 10n, maxBet: 1000n, stakeStep: 5n, maxPayout: 5000n };
  const code = (fn: () => void) => {
    try {
      fn();
      return 'ok';
    } catch (err) {
      return (err as RuleError).code;
    }
  };
  it('checks minBet, maxBet and stakeStep', () => {
    expect(code(() => checkStake(10n, limits))).toBe('ok');
    expect(code(() => checkStake(5n, limits))).toBe('BET_OUT_OF_RANGE');
    expect(code(() => checkStake(1005n, limits))).toBe('BET_OUT_OF_RANGE');
    expect(code(() => checkStake(12n, limits))).toBe('BET_OUT_OF_RANGE');
    expect(code(() => checkStake(2000n, { ...limits, maxBet: null }))).toBe('ok');
  });
  it('refuses a bet whose largest payout exceeds maxPayout', () => {
    expect(code(() => checkMaxPayout(100n, parseMultiplier('50'), limits))).toBe('ok');
    expect(code(() => checkMaxPayout(100n, parseMultiplier('50.0001'), limits))).toBe('ok'); // the payout is rounded down: 5000
    expect(code(() => checkMaxPayout(100n, parseMultiplier('50.01'), limits))).toBe('MAX_PAYOUT_EXCEEDED');
  });
});
