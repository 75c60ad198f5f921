/**
 * Exact theoretical return of each game's params (CONTRACT.md §10 rules, the paytables), as
 * return-per-stake distributions: dice and limbo over the 2^32 float values, plinko binomial,
 * keno hypergeometric, mines for a fixed number of reveals then cashout. Used by the RTP
 * simulation (scripts/rtp.ts) and the paytable tests. Probabilities are JS numbers: this is
 * statistics, not money.
 */
import type { DiceParams } from './dice.js';
import { diceMultiplier4, winChanceHundredths } from './dice.js';
import type { KenoParams } from './keno.js';
import { kenoRow } from './paytables.js';
import { plinkoRow } from './paytables.js';
import type { PlinkoParams } from './plinko.js';
import { binomial, minesMultiplier4 } from './mines.js';
import { toScaled } from './exact.js';

/** Outcomes as [probability, multiplier] pairs. */
export type Distribution = Array<[number, number]>;

export function mean(d: Distribution): number {
  return d.reduce((a, [p, m]) => a + p * m, 0);
}

export function stdDev(d: Distribution): number {
  const mu = mean(d);
  return Math.sqrt(d.reduce((a, [p, m]) => a + p * (m - mu) ** 2, 0));
}

const m4 = (x: bigint): number => Number(x) / 10_000;

/** The roll takes 10001 equally likely values (up to 2^-32 bias); winChance of them win. */
export function diceDistribution(params: DiceParams): Distribution {
  const p = Number(winChanceHundredths(params)) / 10_001;
  return [
    [p, m4(diceMultiplier4(params))],
    [1 - p, 0],
  ];
}

/** P(result ≥ t) counted exactly over the 2^32 values of f0 (t in hundredths, > 100). */
export function limboDistribution(target: number): Distribution {
  const t = toScaled(target, 2);
  if (t === null || t <= 100n) throw new RangeError('limbo target must be above 1.00 with 2 decimals');
  // result ≥ t ⇔ floor(f0·10^8) ≤ floor(99·10^8 / t) − 1 =: N ⇔ k·10^8 < (N + 1)·2^32, k = f0·2^32
  const n = 9_900_000_000n / t - 1n;
  const limit = (n + 1n) * 2n ** 32n;
  const count = (limit + 99_999_999n) / 100_000_000n; // ceil
  const p = Number(count) / 2 ** 32;
  return [
    [p, Number(t) / 100],
    [1 - p, 0],
  ];
}

export function plinkoDistribution(params: PlinkoParams): Distribution {
  return plinkoRow(params.rows, params.risk).map((m, bin) => [Number(binomial(params.rows, bin)) / 2 ** params.rows, m4(m)]);
}

export function kenoDistribution(params: Pick<KenoParams, 'risk'> & { picks: number[] | number }): Distribution {
  const picks = typeof params.picks === 'number' ? params.picks : params.picks.length;
  const total = Number(binomial(40, 10));
  return kenoRow(params.risk, picks).map((m, hits) => [Number(binomial(picks, hits) * binomial(40 - picks, 10 - hits)) / total, m4(m)]);
}

/** Reveal `reveals` tiles then cash out: all safe with C(25−m,k)/C(25,k). */
export function minesDistribution(mineCount: number, reveals: number): Distribution {
  const p = Number(binomial(25 - mineCount, reveals)) / Number(binomial(25, reveals));
  return [
    [p, m4(minesMultiplier4(reveals, mineCount))],
    [1 - p, 0],
  ];
}
