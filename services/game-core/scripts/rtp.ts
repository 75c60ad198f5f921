/**
 * RTP simulation (`npm run rtp`): plays every game through the domain code (settle functions,
 * the Mines state machine, the Blackjack engine) over many rounds per representative param set
 * and compares the measured return to the exact theoretical one, with a tolerance of 5 standard
 * errors. Exits 1 when any set falls outside.
 *
 * Floats come from a seeded sfc32 PRNG as uint32 / 2^32, the same form as the HMAC stream's
 * floats (the games are functions of floats; the stream's uniformity is tested separately).
 * Theory: dice and limbo exact over the float values, plinko binomial, keno hypergeometric, mines
 * for a fixed number of reveals, blackjack the exact infinite-deck expectation of the same basic
 * strategy (S17, DAS, split once, split aces one card, no surrender, peek, no insurance),
 * computed by recursion in src/domain/games/blackjack-strategy.ts (also the catalogue's figure). Blackjack's return is per starting stake (1 − house edge).
 *
 * Options: --rounds=N (default 1 000 000 per set), --seed=N, --only=game.
 */
import { settleDice } from '../src/games/dice.js';
import type { DiceParams } from '../src/games/dice.js';
import { settleLimbo } from '../src/games/limbo.js';
import { settlePlinko } from '../src/games/plinko.js';
import { settleKeno } from '../src/games/keno.js';
import { KENO_RISKS, PLINKO_RISKS } from '../src/games/paytables.js';
import { cashoutMines, cashoutMultiplier, revealTile, startMines } from '../src/games/mines.js';
import { applyBlackjackAction, settlement, startBlackjack } from '../src/games/blackjack.js';
import { blackjackTheory, strategyAction } from '../src/games/blackjack-strategy.js';
import { diceDistribution, kenoDistribution, limboDistribution, mean, minesDistribution, plinkoDistribution, stdDev } from '../src/games/rtp-theory.js';
import type { Distribution } from '../src/games/rtp-theory.js';

// ---- options and PRNG -----------------------------------------------------------------------

const arg = (name: string): string | undefined => process.argv.find((a) => a.startsWith(`--${name}=`))?.slice(name.length + 3);
const ROUNDS = Number(arg('rounds') ?? 1_000_000);
const SEED = Number(arg('seed') ?? 20240601);
const ONLY = arg('only');
const SIGMAS = 5;

/** sfc32: small fast counter PRNG, 32-bit outputs. */
function sfc32(seed: number): () => number {
  let a = 0x9e3779b9;
  let b = 0x243f6a88;
  let c = 0xb7e15162;
  let d = seed >>> 0;
  const next = (): number => {
    a >>>= 0;
    b >>>= 0;
    c >>>= 0;
    d >>>= 0;
    let t = (a + b) | 0;
    a = b ^ (b >>> 9);
    b = (c + (c << 3)) | 0;
    c = (c << 21) | (c >>> 11);
    d = (d + 1) | 0;
    t = (t + d) | 0;
    c = (c + t) | 0;
    return t >>> 0;
  };
  for (let i = 0; i < 15; i += 1) next();
  return () => next() / 4294967296;
}

function floatsFrom(rand: () => number, n: number): number[] {
  const out = new Array<number>(n);
  for (let i = 0; i < n; i += 1) out[i] = rand();
  return out;
}

// ---- the cases ------------------------------------------------------------------------------

interface Case {
  game: string;
  label: string;
  theory: number;
  /** standard deviation of one round's return, when known exactly */
  sd?: number;
  /** one round's return per starting stake */
  play(rand: () => number): number;
}

const m4 = (x: bigint): number => Number(x) / 10_000;
const fromDistribution = (game: string, label: string, d: Distribution, play: Case['play']): Case => ({
  game,
  label,
  theory: mean(d),
  sd: stdDev(d),
  play,
});

const cases: Case[] = [];

for (const p of [
  { target: 50.5, direction: 'over' },
  { target: 49.5, direction: 'under' },
  { target: 2, direction: 'under' },
  { target: 98, direction: 'under' },
  { target: 75.25, direction: 'over' },
] as DiceParams[]) {
  cases.push(fromDistribution('dice', `${p.direction} ${p.target}`, diceDistribution(p), (r) => m4(settleDice([r()], p).multiplier4)));
}
for (const target of [1.01, 2, 10, 100, 1000]) {
  cases.push(fromDistribution('limbo', `target ${target}`, limboDistribution(target), (r) => m4(settleLimbo([r()], { target }).multiplier4)));
}
for (const risk of PLINKO_RISKS) {
  for (const rows of [8, 16]) {
    const p = { rows, risk };
    cases.push(fromDistribution('plinko', `${rows} rows ${risk}`, plinkoDistribution(p), (r) => m4(settlePlinko(floatsFrom(r, rows), p).multiplier4)));
  }
}
for (const risk of KENO_RISKS) {
  for (const n of [1, 5, 10]) {
    const p = { picks: Array.from({ length: n }, (_, i) => 3 * i + 2), risk };
    cases.push(fromDistribution('keno', `${n} picks ${risk}`, kenoDistribution(p), (r) => m4(settleKeno(floatsFrom(r, 10), p).multiplier4)));
  }
}
for (const [mineCount, reveals] of [
  [1, 5],
  [3, 5],
  [10, 3],
  [24, 1],
] as const) {
  cases.push(
    fromDistribution('mines', `${mineCount} mines, ${reveals} reveals`, minesDistribution(mineCount, reveals), (r) => {
      let s = startMines(floatsFrom(r, 24), mineCount);
      for (let tile = 0; tile < reveals && s.status === 'active'; tile += 1) s = revealTile(s, tile).state;
      if (s.status === 'active') s = cashoutMines(s);
      return m4(cashoutMultiplier(s));
    }),
  );
}
const BJ_BET = 1000n;
cases.push({
  game: 'blackjack',
  label: 'basic strategy, no insurance',
  theory: blackjackTheory(),
  play: (r) => {
    let s = startBlackjack(floatsFrom(r, 52), BJ_BET);
    while (s.phase !== 'final') s = applyBlackjackAction(s, strategyAction(s)).state;
    const st = settlement(s);
    return 1 + Number(st.totalPayout - st.totalStaked) / Number(BJ_BET);
  },
});

// ---- run --------------------------------------------------------------------------------------

const pct = (x: number, digits = 3): string => `${(100 * x).toFixed(digits)}%`;
console.log(`RTP simulation: ${ROUNDS.toLocaleString('en-US')} rounds per param set, floats from sfc32(seed ${SEED}) as uint32 / 2^32,`);
console.log(`tolerance ±${SIGMAS} standard errors (exact σ; blackjack σ measured)\n`);
console.log(['game', 'params', 'measured', 'theory', 'tolerance', 'z', 'ok'].map((h, i) => (i < 2 ? h.padEnd(i ? 30 : 10) : h.padStart(10))).join(' '));

let failures = 0;
const started = Date.now();
for (const [i, c] of cases.entries()) {
  if (ONLY && c.game !== ONLY) continue;
  const rand = sfc32(SEED + 7919 * i);
  let sum = 0;
  let sumSq = 0;
  for (let n = 0; n < ROUNDS; n += 1) {
    const x = c.play(rand);
    sum += x;
    sumSq += x * x;
  }
  const measured = sum / ROUNDS;
  const sd = c.sd ?? Math.sqrt(Math.max(0, sumSq / ROUNDS - measured * measured));
  const se = sd / Math.sqrt(ROUNDS);
  const z = se > 0 ? (measured - c.theory) / se : 0;
  const ok = Math.abs(z) <= SIGMAS;
  if (!ok) failures += 1;
  console.log(
    [
      c.game.padEnd(10),
      c.label.padEnd(30),
      pct(measured).padStart(10),
      pct(c.theory).padStart(10),
      `±${pct(SIGMAS * se)}`.padStart(10),
      z.toFixed(2).padStart(10),
      (ok ? 'ok' : 'OUTSIDE').padStart(10),
    ].join(' '),
  );
}
console.log(`\n${failures === 0 ? 'all inside tolerance' : `${failures} param set(s) OUTSIDE tolerance`} (${((Date.now() - started) / 1000).toFixed(1)} s)`);
process.exitCode = failures === 0 ? 0 : 1;
