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
 * computed below by recursion. Blackjack's return is per starting stake (1 − house edge).
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
import { applyBlackjackAction, legalActions, settlement, startBlackjack } from '../src/games/blackjack.js';
import type { BlackjackAction, BlackjackState } from '../src/games/blackjack.js';
import { cardPoints, handValue } from '../src/games/blackjack-cards.js';
import {
  diceDistribution,
  kenoDistribution,
  limboDistribution,
  mean,
  minesDistribution,
  plinkoDistribution,
  stdDev,
} from '../src/games/rtp-theory.js';
import type { Distribution } from '../src/games/rtp-theory.js';

// ---- options and PRNG -----------------------------------------------------------------------

const arg = (name: string): string | undefined =>
  process.argv.find((a) => a.startsWith(`--${name}=`))?.slice(name.length + 3);
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

// ---- blackjack basic strategy (infinite deck, S17, DAS, no surrender) -----------------------

type Move = 'hit' | 'stand' | 'double' | 'split';

/**
 * up: dealer up card points (1 = Ace .. 10). pair: the pair's card points when a split is
 * allowed, else null. Doubles fall back to hit (soft 18: stand) when doubling is not allowed.
 */
function basicStrategy(value: number, soft: boolean, canDouble: boolean, pair: number | null, up: number): Move {
  const u = up === 1 ? 11 : up;
  if (pair !== null) {
    const split =
      pair === 1 ||
      pair === 8 ||
      ((pair === 2 || pair === 3 || pair === 7) && u <= 7) ||
      (pair === 6 && u <= 6) ||
      (pair === 4 && (u === 5 || u === 6)) ||
      (pair === 9 && u !== 7 && u !== 10 && u !== 11);
    if (split) return 'split';
  }
  const dbl = (fallback: Move): Move => (canDouble ? 'double' : fallback);
  if (soft) {
    if (value >= 19) return 'stand';
    if (value === 18) return u >= 3 && u <= 6 ? dbl('stand') : u <= 8 ? 'stand' : 'hit';
    if (value === 17) return u >= 3 && u <= 6 ? dbl('hit') : 'hit';
    if (value >= 15) return u >= 4 && u <= 6 ? dbl('hit') : 'hit';
    if (value >= 13) return u >= 5 && u <= 6 ? dbl('hit') : 'hit';
    return 'hit';
  }
  if (value >= 17) return 'stand';
  if (value >= 13) return u <= 6 ? 'stand' : 'hit';
  if (value === 12) return u >= 4 && u <= 6 ? 'stand' : 'hit';
  if (value === 11) return u <= 10 ? dbl('hit') : 'hit';
  if (value === 10) return u <= 9 ? dbl('hit') : 'hit';
  if (value === 9) return u >= 3 && u <= 6 ? dbl('hit') : 'hit';
  return 'hit';
}

/** The basic-strategy action in an engine state (never insurance). */
function strategyAction(s: BlackjackState): BlackjackAction {
  const legal = legalActions(s);
  if (legal.includes('decline_insurance')) return 'decline_insurance';
  const hand = s.hands[s.activeHand ?? 0]!;
  const { value, soft } = handValue(hand.cards);
  const pair = legal.includes('split') ? cardPoints(hand.cards[0]!) : null;
  return basicStrategy(value, soft, legal.includes('double'), pair, cardPoints(s.dealer[0]!));
}

// ---- exact infinite-deck expectation of that strategy ---------------------------------------

/** Card points 1 (Ace) .. 10 and their probabilities in an unlimited deck. */
const POINTS = [1, 2, 3, 4, 5, 6, 7, 8, 9, 10];
const P = (c: number): number => (c === 10 ? 4 / 13 : 1 / 13);
const total = (sum: number, ace: boolean): number => (ace && sum + 10 <= 21 ? sum + 10 : sum);

/** Dealer's final total (17..21, 22 = bust) given the up card, conditioned on no blackjack. */
function dealerFinal(up: number): Map<number, number> {
  const out = new Map<number, number>();
  const draw = (sum: number, ace: boolean, p: number): void => {
    const v = sum > 21 ? 22 : total(sum, ace);
    if (v >= 17) out.set(v, (out.get(v) ?? 0) + p);
    else for (const c of POINTS) draw(sum + c, ace || c === 1, p * P(c));
  };
  const excluded = up === 1 ? 10 : up === 10 ? 1 : 0; // the peek found no blackjack
  const norm = 1 - (excluded ? P(excluded) : 0);
  for (const hole of POINTS) if (hole !== excluded) draw(up + hole, up === 1 || hole === 1, P(hole) / norm);
  return out;
}

function blackjackTheory(): number {
  let ev = 0;
  for (const up of POINTS) {
    const dealer = dealerFinal(up);
    const standEv = (v: number): number => {
      let e = 0;
      for (const [d, p] of dealer) e += p * (d > 21 || v > d ? 1 : v === d ? 0 : -1);
      return e;
    };
    const memo = new Map<string, number>();
    /** EV per stake of a hand (sum with aces as 1), no split possible. */
    const hand = (sum: number, ace: boolean, canDouble: boolean): number => {
      if (sum > 21) return -1;
      const v = total(sum, ace);
      if (v === 21) return standEv(21);
      const key = `${sum}/${ace}/${canDouble}`;
      const hit = memo.get(key);
      if (hit !== undefined) return hit;
      const move = basicStrategy(v, v !== sum, canDouble, null, up);
      let e: number;
      if (move === 'stand') e = standEv(v);
      else if (move === 'double') e = 2 * POINTS.reduce((a, c) => a + P(c) * (sum + c > 21 ? -1 : standEv(total(sum + c, ace || c === 1))), 0);
      else e = POINTS.reduce((a, c) => a + P(c) * hand(sum + c, ace || c === 1, false), 0);
      memo.set(key, e);
      return e;
    };
    const splitHand = (c1: number): number =>
      POINTS.reduce((a, c) => {
        const sum = c1 + c;
        const ace = c1 === 1 || c === 1;
        return a + P(c) * (c1 === 1 ? standEv(total(sum, ace)) : hand(sum, ace, true));
      }, 0);
    const pBj = up === 1 ? P(10) : up === 10 ? P(1) : 0;
    for (const c1 of POINTS) {
      for (const c2 of POINTS) {
        const p = P(c1) * P(c2);
        const natural = (c1 === 1 && c2 === 10) || (c1 === 10 && c2 === 1);
        let e: number;
        if (natural) e = 1.5;
        else {
          // a ten-value pair is equal in rank only 1 time in 4, but basic strategy never splits tens
          const pair = c1 === c2 && c1 !== 10 ? c1 : null;
          const v = total(c1 + c2, c1 === 1 || c2 === 1);
          const move = basicStrategy(v, v !== c1 + c2, true, pair, up);
          e = move === 'split' ? 2 * splitHand(c1) : hand(c1 + c2, c1 === 1 || c2 === 1, true);
        }
        ev += P(up) * p * (pBj * (natural ? 0 : -1) + (1 - pBj) * e);
      }
    }
  }
  return 1 + ev;
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
