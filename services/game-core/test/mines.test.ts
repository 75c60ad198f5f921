/** Mines (CONTRACT.md §10, §12, §13): positions, multipliers, the round state and the maxPayout cap. */
import { describe, it, expect } from 'vitest';
import {
  applyMaxPayoutCap,
  binomial,
  cashoutMines,
  cashoutMultiplier,
  minePositions,
  minesMultiplier4,
  minesParamsSchema,
  minesPayout,
  minesResultView,
  nextMultiplier,
  revealTile,
  startMines,
} from '../src/games/mines.js';
import type { MinesState } from '../src/games/mines.js';
import { minesStateSchema } from '../src/games/state-schemas.js';
import { pick, code } from './helpers.js';

const zeros = new Array<number>(24).fill(0); // takes 0, 1, 2, ...

describe('mine positions', () => {
  it('takes pool[floor(f_i × (25 − i))]; the first mineCount taken are the mines, ascending', () => {
    expect(minePositions(zeros, 3)).toEqual([0, 1, 2]);
    expect(minePositions(new Array<number>(24).fill(1 - 2 ** -32), 3)).toEqual([22, 23, 24]);
    const evens = Array.from({ length: 24 }, (_, i) => (i < 12 ? pick(i, 25 - i) : 0)); // pool index i: 0, 2, 4, ...
    expect(minePositions(evens, 5)).toEqual([0, 2, 4, 6, 8]);
    const reversed = Array.from({ length: 24 }, (_, i) => pick(24 - i, 25 - i)); // always the last: 24, 23, ...
    expect(minePositions(reversed, 2)).toEqual([23, 24]);
    expect(minePositions(zeros, 24)).toEqual(Array.from({ length: 24 }, (_, i) => i));
  });
  it('schema: mineCount integer 1..24, default 3', () => {
    expect(minesParamsSchema.parse(undefined)).toEqual({ mineCount: 3 });
    for (const bad of [0, 25, 2.5, '3']) expect(minesParamsSchema.safeParse({ mineCount: bad }).success).toBe(false);
  });
});

describe('multipliers', () => {
  it('floor(0.99 × C(25,k) / C(25 − m, k)) to 4 decimals for every m and k = 0..25 − m', () => {
    for (let m = 1; m <= 24; m += 1) {
      let previous = 0n;
      for (let k = 0; k <= 25 - m; k += 1) {
        // independent: 0.99 × Π (25 − i) / (25 − m − i), in rationals
        let num = 99n * 10_000n;
        let den = 100n;
        for (let i = 0; i < k; i += 1) {
          num *= BigInt(25 - i);
          den *= BigInt(25 - m - i);
        }
        const expected = num / den;
        expect(minesMultiplier4(k, m), `m=${m} k=${k}`).toBe(expected);
        expect(expected > previous || k === 0).toBe(true);
        previous = expected;
      }
      expect(() => minesMultiplier4(26 - m, m)).toThrow(RangeError);
    }
  });
  it('known values', () => {
    expect(minesMultiplier4(0, 3)).toBe(9_900n);
    expect(minesMultiplier4(1, 1)).toBe(10_312n); // 1.03125
    expect(minesMultiplier4(1, 24)).toBe(247_500n); // 24.75
    expect(minesMultiplier4(3, 3)).toBe(14_785n);
    expect(minesMultiplier4(22, 3)).toBe(22_770_000n); // 0.99 × 2300
    expect(minesMultiplier4(12, 13)).toBe(51_482_970_000n); // 0.99 × C(25,12)
    expect(binomial(25, 12)).toBe(5_200_300n);
  });
});

describe('round state', () => {
  const start = (): MinesState => startMines(zeros, 3); // mines 0, 1, 2

  it('shows multiplier 0 before the first reveal, no mines while active', () => {
    const view = minesResultView(start());
    expect(view).toEqual({ mineCount: 3, revealed: [], multiplier: 0, nextMultiplier: 1.125 });
    expect(code(() => cashoutMines(start()))).toBe('ACTION_NOT_AVAILABLE');
  });

  it('safe reveals raise the multiplier; a repeat is TILE_ALREADY_REVEALED', () => {
    let s = start();
    const r1 = revealTile(s, 10);
    expect(r1).toMatchObject({ hit: 'safe', final: false, reason: null });
    s = r1.state;
    expect(cashoutMultiplier(s)).toBe(minesMultiplier4(1, 3));
    expect(nextMultiplier(s)).toBe(minesMultiplier4(2, 3));
    expect(code(() => revealTile(s, 10))).toBe('TILE_ALREADY_REVEALED');
    expect(code(() => revealTile(s, 25))).toBe('VALIDATION_ERROR');
    s = cashoutMines(s);
    expect(s.status).toBe('cashed_out');
    expect(minesResultView(s)).toEqual({ mineCount: 3, revealed: [10], multiplier: 1.125, nextMultiplier: null, mines: [0, 1, 2] });
    expect(code(() => revealTile(s, 11))).toBe('ROUND_NOT_ACTIVE');
  });

  it('a mine busts: multiplier 0, mines shown, the mine is the last revealed tile', () => {
    const { state, hit, final, reason } = revealTile(revealTile(start(), 7).state, 1);
    expect([hit, final, reason]).toEqual(['mine', true, 'mine']);
    expect(minesResultView(state)).toEqual({ mineCount: 3, revealed: [7, 1], multiplier: 0, nextMultiplier: null, mines: [0, 1, 2] });
    expect(minesPayout(state, 1000n)).toBe(0n);
  });

  it('revealing every safe tile cashes out', () => {
    let s = startMines(zeros, 24); // the only safe tile is 24
    const r = revealTile(s, 24);
    expect(r).toMatchObject({ hit: 'safe', final: true, reason: 'all_safe' });
    s = r.state;
    expect(s.status).toBe('cashed_out');
    expect(cashoutMultiplier(s)).toBe(247_500n);
    expect(minesPayout(s, 100n)).toBe(2475n);
  });

  it('caps at maxPayout: a reveal reaching it cashes out with payout = maxPayout', () => {
    const s1 = startMines(zeros, 1); // mine 0; one reveal = 1.0312×
    expect(revealTile(s1, 5, { amountMinor: 100n, limits: { maxPayout: 104n } })).toMatchObject({ final: false });
    const capped = revealTile(s1, 5, { amountMinor: 100n, limits: { maxPayout: 103n } });
    expect(capped).toMatchObject({ final: true, reason: 'max_payout' });
    expect(capped.state.status).toBe('cashed_out');
    const over = revealTile(s1, 5, { amountMinor: 1000n, limits: { maxPayout: 1000n } });
    expect(over.reason).toBe('max_payout');
    expect(minesPayout(over.state, 1000n, { maxPayout: 1000n })).toBe(1000n);
    expect(minesPayout(over.state, 1000n)).toBe(1031n);
    expect(applyMaxPayoutCap(s1, 1000n, { maxPayout: 1n }).capped).toBe(false); // no reveal yet
  });

  it('is plain JSON and reads back with its schema', () => {
    const s = revealTile(start(), 9).state;
    expect(minesStateSchema.parse(JSON.parse(JSON.stringify(s)))).toEqual(s);
  });
});
