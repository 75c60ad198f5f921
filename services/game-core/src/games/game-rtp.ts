/**
 * The theoretical return to player of each game, as the game catalogue publishes it, computed
 * from the exact distributions that the RTP simulation checks (rtp-theory.ts, and the Blackjack
 * basic-strategy expectation of blackjack-strategy.ts): one implementation of each figure.
 *
 * Figures are percentages rounded to 2 decimals. `value` is the return at the game's reference
 * params; `min` and `max` span every param set the game accepts (dice: every valid window; mines:
 * every mine count and number of reveals before a cashout; plinko, keno: every table), except
 * limbo, where they span the targets in LIMBO_RTP_TARGETS; plinko and keno list every table.
 */
import { blackjackTheory } from './blackjack-strategy.js';
import type { GameType } from './games.js';
import { MINES_TILES } from './mines.js';
import { KENO_RISKS, PLINKO_RISKS } from './paytables.js';
import { diceDistribution, kenoDistribution, limboDistribution, mean, minesDistribution, plinkoDistribution } from './rtp-theory.js';

export type RtpParams = Record<string, string | number>;

export interface GameRtp {
  /** Percent, at `params`. */
  value: number;
  /** The reference params of `value`. */
  params: RtpParams;
  /** Percent, lowest and highest over the params the game accepts. */
  min: number;
  max: number;
  /** Plinko (rows × risk) and keno (risk × picks): every table's figure. */
  variants?: { params: RtpParams; value: number }[];
}

/** Limbo's targets run from 1.01 to 1,000,000 in hundredths; its range is taken over these. */
export const LIMBO_RTP_TARGETS = [1.01, 1.1, 1.5, 2, 3, 5, 10, 50, 100, 1000, 10_000, 100_000, 1_000_000] as const;
const PLINKO_ROWS = [8, 9, 10, 11, 12, 13, 14, 15, 16] as const;
const KENO_PICKS = [1, 2, 3, 4, 5, 6, 7, 8, 9, 10] as const;

const pct = (x: number): number => Math.round(x * 10_000) / 100;

function summary(value: number, params: RtpParams, all: number[], variants?: GameRtp['variants']): GameRtp {
  return { value: pct(value), params, min: pct(Math.min(...all)), max: pct(Math.max(...all)), ...(variants ? { variants } : {}) };
}

function diceRtp(): GameRtp {
  const all: number[] = [];
  // over and under with the same winChance pay alike: one pass over winChance 2.00..98.00
  for (let wc = 200; wc <= 9800; wc++) all.push(mean(diceDistribution({ target: wc / 100, direction: 'under' })));
  return summary(mean(diceDistribution({ target: 50.5, direction: 'over' })), { target: 50.5, direction: 'over' }, all);
}

function limboRtp(): GameRtp {
  const all = LIMBO_RTP_TARGETS.map((t) => mean(limboDistribution(t)));
  return summary(mean(limboDistribution(2)), { target: 2 }, all);
}

function plinkoRtp(): GameRtp {
  const variants = PLINKO_RISKS.flatMap((risk) => PLINKO_ROWS.map((rows) => ({ params: { rows, risk }, raw: mean(plinkoDistribution({ rows, risk })) })));
  return summary(
    mean(plinkoDistribution({ rows: 16, risk: 'low' })),
    { rows: 16, risk: 'low' },
    variants.map((v) => v.raw),
    variants.map((v) => ({ params: v.params, value: pct(v.raw) })),
  );
}

function kenoRtp(): GameRtp {
  const variants = KENO_RISKS.flatMap((risk) => KENO_PICKS.map((picks) => ({ params: { risk, picks }, raw: mean(kenoDistribution({ risk, picks })) })));
  return summary(
    mean(kenoDistribution({ risk: 'classic', picks: 5 })),
    { risk: 'classic', picks: 5 },
    variants.map((v) => v.raw),
    variants.map((v) => ({ params: v.params, value: pct(v.raw) })),
  );
}

function minesRtp(): GameRtp {
  const all: number[] = [];
  for (let mineCount = 1; mineCount <= 24; mineCount++) {
    for (let reveals = 1; reveals <= MINES_TILES - mineCount; reveals++) all.push(mean(minesDistribution(mineCount, reveals)));
  }
  return summary(mean(minesDistribution(3, 1)), { mineCount: 3, reveals: 1 }, all);
}

function blackjackRtp(): GameRtp {
  const value = blackjackTheory();
  return summary(value, { strategy: 'basic strategy, no insurance' }, [value]);
}

const COMPUTE: Record<GameType, () => GameRtp> = {
  dice: diceRtp,
  limbo: limboRtp,
  plinko: plinkoRtp,
  keno: kenoRtp,
  mines: minesRtp,
  blackjack: blackjackRtp,
};

const cache = new Map<GameType, GameRtp>();

/** The game's theoretical RTP (computed once, then kept: it depends on nothing but the rules). */
export function gameRtp(game: GameType): GameRtp {
  let rtp = cache.get(game);
  if (!rtp) {
    rtp = COMPUTE[game]();
    cache.set(game, rtp);
  }
  return rtp;
}
