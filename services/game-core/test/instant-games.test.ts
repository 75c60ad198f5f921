/** Dice, limbo, plinko, keno (CONTRACT.md §10, §13): edges, schemas, paytable returns. */
import { describe, it, expect } from 'vitest';
import { diceMaxMultiplier4, diceMultiplier4, diceParamsSchema, settleDice } from '../src/games/dice.js';
import { limboMaxMultiplier4, limboParamsSchema, limboResultHundredths, settleLimbo } from '../src/games/limbo.js';
import { plinkoMaxMultiplier4, plinkoParamsSchema, settlePlinko } from '../src/games/plinko.js';
import { kenoDraw, kenoMaxMultiplier4, kenoParamsSchema, settleKeno } from '../src/games/keno.js';
import { PLINKO_RISKS, KENO_RISKS } from '../src/games/paytables.js';
import { GAMES, INSTANT_GAMES, parseGameParams } from '../src/games/games.js';
import { floorMul } from '../src/games/exact.js';
import { kenoDistribution, mean, plinkoDistribution } from '../src/games/rtp-theory.js';
import { pick, code } from './helpers.js';

/** The float whose roll (hundredths) is r: the smallest k/2^32 with floor(k·10001/2^32) = r. */
const rollFloat = (r: number) => Math.ceil((r * 2 ** 32) / 10_001) / 2 ** 32;

describe('exact floor(f × n)', () => {
  it('is exact for stream floats and arbitrary doubles', () => {
    expect(floorMul(1 - 2 ** -32, 100_000_000)).toBe(99_999_999);
    expect(floorMul(0.5, 3)).toBe(1);
    expect(floorMul((51 + 0.5) / 52, 52)).toBe(51);
    expect(floorMul(1 - 2 ** -53, 10_001)).toBe(10_000);
    expect(floorMul(Number.MIN_VALUE, 52)).toBe(0);
    expect(() => floorMul(1, 2)).toThrow(RangeError);
    expect(() => floorMul(-0.1, 2)).toThrow(RangeError);
  });
});

describe('dice', () => {
  it('rolls floor(f0 × 10001) / 100 over 0.00..100.00', () => {
    expect(settleDice([0], { target: 50, direction: 'over' }).result.roll).toBe(0);
    expect(settleDice([1 - 2 ** -32], { target: 50, direction: 'over' }).result.roll).toBe(100);
    expect(settleDice([rollFloat(5050)], { target: 50, direction: 'over' }).result.roll).toBe(50.5);
  });
  it('over wins when roll > target, under when roll < target; equal loses', () => {
    const at = (r: number, target: number, direction: 'over' | 'under') => settleDice([rollFloat(r)], { target, direction }).multiplier4;
    expect(at(5001, 50, 'over')).toBe(19_800n);
    expect(at(5000, 50, 'over')).toBe(0n);
    expect(at(4999, 50, 'under')).toBe(19_800n);
    expect(at(5000, 50, 'under')).toBe(0n);
  });
  it('multiplier is floor(99 / winChance) to 4 decimals', () => {
    expect(diceMultiplier4({ target: 2, direction: 'under' })).toBe(495_000n);
    expect(diceMultiplier4({ target: 98, direction: 'under' })).toBe(10_102n); // 1.010204...
    expect(diceMultiplier4({ target: 66.67, direction: 'over' })).toBe(29_702n); // 99/33.33 = 2.970297...
    expect(diceMultiplier4({ target: 50.01, direction: 'under' })).toBe(19_796n);
    expect(settleDice([0.5], { target: 2.01, direction: 'over' }).result.winChance).toBe(97.99);
  });
  it('checks the window 2 ≤ winChance ≤ 98 at settlement (INVALID_GAME_PARAMS)', () => {
    for (const p of [
      { target: 99, direction: 'over' },
      { target: 98.01, direction: 'over' },
      { target: 1.99, direction: 'under' },
      { target: 100, direction: 'over' },
      { target: 0, direction: 'under' },
      { target: 1.99, direction: 'over' },
      { target: 98.01, direction: 'under' },
    ] as const) {
      expect(code(() => settleDice([0.5], p))).toBe('INVALID_GAME_PARAMS');
      expect(diceMaxMultiplier4(p)).toBe(0n); // not refused as MAX_PAYOUT_EXCEEDED before the debit
    }
    for (const p of [
      { target: 98, direction: 'over' },
      { target: 2, direction: 'over' },
      { target: 2, direction: 'under' },
      { target: 98, direction: 'under' },
    ] as const) {
      expect(() => settleDice([0.5], p)).not.toThrow();
    }
    expect(diceMaxMultiplier4({ target: 98, direction: 'over' })).toBe(495_000n);
  });
  it('schema: target 0..100 with at most 2 decimals, direction over/under', () => {
    expect(diceParamsSchema.safeParse({ target: 99, direction: 'over' }).success).toBe(true);
    expect(diceParamsSchema.safeParse({ target: 50.55, direction: 'under' }).success).toBe(true);
    for (const bad of [
      { target: 50.555, direction: 'over' },
      { target: -1, direction: 'over' },
      { target: 100.01, direction: 'over' },
      { target: '50', direction: 'over' },
      { target: 50, direction: 'sideways' },
      { target: 50 },
      {},
    ]) {
      expect(diceParamsSchema.safeParse(bad).success).toBe(false);
    }
    expect(code(() => parseGameParams('dice', { target: 1e-7, direction: 'over' }))).toBe('VALIDATION_ERROR');
  });
});

describe('limbo', () => {
  it('result = max(1.00, floor(99·10^8 / (floor(f0·10^8) + 1)) / 100)', () => {
    expect(limboResultHundredths(0)).toBe(9_900_000_000n);
    expect(limboResultHundredths(0.5)).toBe(197n);
    expect(limboResultHundredths(1 - 2 ** -32)).toBe(100n); // 99 clamped to 1.00
    expect(limboResultHundredths(0.99)).toBe(100n);
    expect(limboResultHundredths(0.98)).toBe(101n);
  });
  it('wins when result ≥ target, paying the target', () => {
    expect(settleLimbo([0.5], { target: 1.97 })).toEqual({ result: { result: 1.97, target: 1.97 }, multiplier4: 19_700n });
    expect(settleLimbo([0.5], { target: 1.98 }).multiplier4).toBe(0n);
    expect(settleLimbo([1 - 2 ** -32], { target: 1.01 })).toEqual({ result: { result: 1, target: 1.01 }, multiplier4: 0n });
  });
  it('reaches the 1e6 end', () => {
    // floor(f0·10^8) = 98 gives exactly 1 000 000.00, 99 gives 990 000.00
    expect(settleLimbo([98.5 / 1e8], { target: 1_000_000 })).toEqual({
      result: { result: 1_000_000, target: 1_000_000 },
      multiplier4: 10_000_000_000n,
    });
    expect(settleLimbo([99.5 / 1e8], { target: 1_000_000 })).toEqual({ result: { result: 990_000, target: 1_000_000 }, multiplier4: 0n });
    expect(settleLimbo([0], { target: 1_000_000 }).result.result).toBe(99_000_000);
    expect(limboMaxMultiplier4({ target: 1_000_000 })).toBe(10_000_000_000n);
  });
  it('schema: 1.01..1000000 with at most 2 decimals', () => {
    for (const ok of [1.01, 2, 1_000_000, 123.45]) expect(limboParamsSchema.safeParse({ target: ok }).success).toBe(true);
    for (const bad of [1, 1.009, 1_000_000.01, 2.001, '2', null]) expect(limboParamsSchema.safeParse({ target: bad }).success).toBe(false);
  });
});

describe('plinko', () => {
  it('defaults to 16 rows, low risk', () => {
    expect(plinkoParamsSchema.parse(undefined)).toEqual({ rows: 16, risk: 'low' });
    expect(plinkoParamsSchema.parse({ rows: 8 })).toEqual({ rows: 8, risk: 'low' });
    for (const bad of [{ rows: 7 }, { rows: 17 }, { rows: 12.5 }, { risk: 'extreme' }]) expect(plinkoParamsSchema.safeParse(bad).success).toBe(false);
  });
  it('goes right when f ≥ 0.5; bin = number of rights', () => {
    const all = (f: number, rows: number) => new Array<number>(rows).fill(f);
    expect(settlePlinko(all(0.4999, 8), { rows: 8, risk: 'low' })).toEqual({
      result: { rows: 8, risk: 'low', path: [0, 0, 0, 0, 0, 0, 0, 0], bin: 0 },
      multiplier4: 56_000n,
    });
    expect(settlePlinko(all(0.5, 16), { rows: 16, risk: 'expert' }).multiplier4).toBe(100_000_000n);
    const mixed = settlePlinko([0.5, 0.1, 0.9, 0.2, 0.7, 0.3, 0.6, 0.4], { rows: 8, risk: 'medium' });
    expect(mixed.result.path).toEqual([1, 0, 1, 0, 1, 0, 1, 0]);
    expect(mixed.result.bin).toBe(4);
    expect(mixed.multiplier4).toBe(4_000n);
    expect(plinkoMaxMultiplier4({ rows: 16, risk: 'high' })).toBe(10_000_000n);
  });
  it('every table returns about 99% (binomial)', () => {
    for (let rows = 8; rows <= 16; rows += 1) {
      for (const risk of PLINKO_RISKS) {
        const rtp = mean(plinkoDistribution({ rows, risk }));
        expect(rtp, `${rows} ${risk}`).toBeGreaterThan(0.985);
        expect(rtp, `${rows} ${risk}`).toBeLessThan(0.995);
      }
    }
  });
});

describe('keno', () => {
  it('schema: 1..10 distinct picks in 1..40, risk default classic; duplicates rejected', () => {
    expect(kenoParamsSchema.parse({ picks: [1, 40] })).toEqual({ picks: [1, 40], risk: 'classic' });
    for (const bad of [
      { picks: [1, 1] },
      { picks: [] },
      { picks: [0] },
      { picks: [41] },
      { picks: [1.5] },
      { picks: [1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11] },
      { picks: [1], risk: 'extreme' },
      {},
    ]) {
      expect(kenoParamsSchema.safeParse(bad).success).toBe(false);
    }
    expect(code(() => parseGameParams('keno', { picks: [5, 5] }))).toBe('VALIDATION_ERROR');
  });
  it('draws pool[floor(f_i × (40 − i))] without replacement', () => {
    expect(kenoDraw(new Array<number>(10).fill(0))).toEqual([1, 2, 3, 4, 5, 6, 7, 8, 9, 10]);
    expect(kenoDraw(new Array<number>(10).fill(1 - 2 ** -32))).toEqual([40, 39, 38, 37, 36, 35, 34, 33, 32, 31]);
    const drawn = kenoDraw(Array.from({ length: 10 }, (_, i) => pick(i, 40 - i)));
    expect(drawn).toEqual([1, 3, 5, 7, 9, 11, 13, 15, 17, 19]);
  });
  it('pays table[risk][picks][hits], hits ascending', () => {
    const fl = new Array<number>(10).fill(0); // draws 1..10
    expect(settleKeno(fl, { picks: [10, 3, 40], risk: 'classic' })).toEqual({
      result: { picks: [10, 3, 40], drawn: [1, 2, 3, 4, 5, 6, 7, 8, 9, 10], hits: [3, 10], risk: 'classic' },
      multiplier4: 31_000n,
    });
    expect(settleKeno(fl, { picks: [1, 2, 3, 4, 5, 6, 7, 8, 9, 10], risk: 'high' }).multiplier4).toBe(10_000_000n);
    expect(settleKeno(fl, { picks: [40], risk: 'low' }).multiplier4).toBe(7_000n);
    expect(kenoMaxMultiplier4({ picks: [1, 2], risk: 'high' })).toBe(171_000n);
  });
  it('every table row returns about 99% (hypergeometric)', () => {
    for (const risk of KENO_RISKS) {
      for (let picks = 1; picks <= 10; picks += 1) {
        const rtp = mean(kenoDistribution({ risk, picks }));
        expect(rtp, `${risk} ${picks}`).toBeGreaterThan(0.985);
        expect(rtp, `${risk} ${picks}`).toBeLessThan(0.995);
      }
    }
  });
});

describe('registry', () => {
  it('has the four instant games and all six', () => {
    expect(Object.keys(INSTANT_GAMES)).toEqual(['dice', 'limbo', 'plinko', 'keno']);
    expect(Object.keys(GAMES)).toEqual(['dice', 'limbo', 'plinko', 'keno', 'mines', 'blackjack']);
    expect(GAMES.plinko.floatsNeeded(parseGameParams('plinko', { rows: 9 }))).toBe(9);
    expect(GAMES.keno.floatsNeeded(parseGameParams('keno', { picks: [1] }))).toBe(10);
    expect(GAMES.mines.floatsNeeded(parseGameParams('mines', undefined))).toBe(24);
    expect(GAMES.blackjack.floatsNeeded(parseGameParams('blackjack', undefined))).toBe(52);
    expect(GAMES.blackjack.maxMultiplier4({})).toBe(80_000n);
    expect(parseGameParams('mines', {})).toEqual({ mineCount: 3 });
  });
});
