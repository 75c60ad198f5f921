/**
 * How each of the six games is played, over the provider's HTTP API only (SPEC.md Endpoints,
 * CONTRACT.md §10, §12): the four settled games in one request; Mines start → reveals →
 * cashout; Blackjack by basic strategy or by random legal actions. A strategy never retries by
 * itself: the `Caller` it is given decides that (the bench sends once, chaos retries like a
 * client whose answer got lost). Every request that moves money carries a new idempotency key.
 */
import type { Answer } from './client.js';
import { fromMinor } from './casino.js';
import type { Player } from './players.js';

export type Caller = (method: 'GET' | 'POST', path: string, body?: Record<string, unknown>) => Promise<Answer>;
export type Rng = () => number;

/** mulberry32: the harness's own choices repeat for a seed. */
export function rng(seed: number): Rng {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = Math.imul(a ^ (a >>> 15), a | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

export const pick = <T>(r: Rng, items: readonly T[]): T => items[Math.floor(r() * items.length)]!;
export const between = (r: Rng, min: number, max: number) => min + Math.floor(r() * (max - min + 1));

export const SETTLED_GAMES = ['dice', 'limbo', 'plinko', 'keno'] as const;
export const GAMES = [...SETTLED_GAMES, 'mines', 'blackjack'] as const;
export type Game = (typeof GAMES)[number];
export type SettledGame = (typeof SETTLED_GAMES)[number];

/** Keys unique across processes and runs. */
let keySeq = 0;
const runTag = `${process.pid.toString(36)}${Date.now().toString(36)}`;
export const newKey = (label: string) => `${label}-${runTag}-${(++keySeq).toString(36)}`;

/** A JSON number of the player's currency: the amount in minor units written exactly. */
export function amountOf(p: Pick<Player, 'decimals'>, minor: bigint): number {
  return Number(fromMinor(minor, p.decimals));
}

/* ------------------------------------------------------------------ the settled games */

/** Random params of a settled game; `invalidDice` is the dice window refused after the debit (rolled back). */
export function settledParams(game: SettledGame, r: Rng, opts: { invalidDiceShare?: number } = {}): Record<string, unknown> {
  switch (game) {
    case 'dice':
      if (opts.invalidDiceShare && r() < opts.invalidDiceShare) return { target: 99, direction: 'over' };
      return { target: between(r, 500, 9500) / 100, direction: r() < 0.5 ? 'over' : 'under' };
    case 'limbo':
      return { target: between(r, 101, 2000) / 100 };
    case 'plinko':
      return { rows: between(r, 8, 16), risk: pick(r, ['low', 'medium', 'high', 'expert']) };
    case 'keno': {
      const pool = Array.from({ length: 40 }, (_, i) => i + 1);
      const picks = Array.from({ length: between(r, 1, 10) }, () => pool.splice(Math.floor(r() * pool.length), 1)[0]!);
      return { picks, risk: pick(r, ['classic', 'low', 'medium', 'high']) };
    }
  }
}

export interface RoundOutcome {
  game: Game;
  /** The round the provider opened (null: refused before any round, or never answered). */
  roundId: string | null;
  /** The last status the player saw. */
  status: string | null;
  /** The error code of the last refusal, when the round did not end normally. */
  code?: string;
  requests: number;
  /** Mines or Blackjack rounds the player could not finish (the end of the run picks them up). */
  unfinished?: boolean;
}

const statusOf = (a: Answer) => (typeof a.body.roundStatus === 'string' ? a.body.roundStatus : null);
const roundIdOf = (a: Answer) => (typeof a.body.roundId === 'string' ? a.body.roundId : null);

export async function playSettled(call: Caller, p: Player, game: SettledGame, amount: bigint, params: Record<string, unknown>): Promise<RoundOutcome> {
  const a = await call('POST', '/api/bets', { sessionId: p.sessionId, gameType: game, amount: amountOf(p, amount), idempotencyKey: newKey('bet'), params });
  return { game, roundId: roundIdOf(a), status: statusOf(a), requests: 1, ...(a.status === 200 ? {} : { code: a.body.code ?? `HTTP_${a.status}` }) };
}

/* ------------------------------------------------------------------ active rounds */

type ActiveGame = 'mines' | 'blackjack';

/** The player's open round of a game (any session of the player may continue it). */
export async function activeRound(call: Caller, p: Player, game: ActiveGame): Promise<Answer['body'] | null> {
  const a = await call('GET', `/api/${game}/rounds/active?sessionId=${encodeURIComponent(p.sessionId)}`);
  if (a.status !== 200) return null;
  const round = a.body.round as Answer['body'] | null | undefined;
  return round ?? null;
}

async function reload(call: Caller, p: Player, game: ActiveGame, roundId: string): Promise<Answer['body'] | null> {
  const a = await call('GET', `/api/${game}/rounds/${roundId}?sessionId=${encodeURIComponent(p.sessionId)}`);
  return a.status === 200 ? a.body : null;
}

/**
 * Drives an open round to its end with `step` (one action per call); an action that fails is
 * followed by a reload of the round. Gives up after `maxFailures` failures in a row.
 */
async function driveRound(
  call: Caller,
  p: Player,
  game: ActiveGame,
  first: Answer['body'],
  out: RoundOutcome,
  step: (round: Answer['body']) => { path: string; body: Record<string, unknown> } | null,
  maxFailures = 6,
): Promise<RoundOutcome> {
  let round = first;
  let failures = 0;
  for (let steps = 0; steps < 60; steps++) {
    out.status = (round.roundStatus as string | undefined) ?? null;
    if (round.roundStatus !== 'active') return out;
    const next = step(round);
    if (!next) return out;
    const a = await call('POST', next.path, next.body);
    out.requests += 1;
    if (a.status === 200) {
      round = a.body;
      failures = 0;
      continue;
    }
    out.code = a.body.code ?? `HTTP_${a.status}`;
    if (++failures > maxFailures) break;
    const fresh = await reload(call, p, game, out.roundId!);
    out.requests += 1;
    if (fresh) round = fresh;
  }
  out.unfinished = round.roundStatus === 'active';
  return out;
}

/** Starts a round, or takes over the player's open one (ACTIVE_ROUND_EXISTS); null when neither is playable. */
async function openRound(call: Caller, p: Player, game: ActiveGame, body: Record<string, unknown>, out: RoundOutcome): Promise<Answer['body'] | null> {
  const a = await call('POST', `/api/${game}/rounds`, body);
  out.requests += 1;
  if (a.status === 200) {
    out.roundId = roundIdOf(a);
    out.status = statusOf(a);
    return a.body;
  }
  out.code = a.body.code ?? `HTTP_${a.status}`;
  out.roundId = roundIdOf(a);
  out.status = statusOf(a);
  if (a.body.code === 'ACTIVE_ROUND_EXISTS') {
    const open = await activeRound(call, p, game);
    out.requests += 1;
    if (open && open.roundStatus === 'active') {
      out.roundId = String(open.roundId);
      return open;
    }
  }
  return null;
}

export interface MinesPlan {
  amount: bigint;
  mineCount: number;
  /** Tiles to reveal before cashing out (a mine may end the round earlier). */
  reveals: number;
}

export async function playMines(call: Caller, p: Player, r: Rng, plan: MinesPlan): Promise<RoundOutcome> {
  const out: RoundOutcome = { game: 'mines', roundId: null, status: null, requests: 0 };
  const round = await openRound(
    call,
    p,
    'mines',
    { sessionId: p.sessionId, amount: amountOf(p, plan.amount), idempotencyKey: newKey('mines'), mineCount: plan.mineCount },
    out,
  );
  if (!round) return out;
  return continueMines(call, p, r, round, out, plan.reveals);
}

export function continueMines(call: Caller, p: Player, r: Rng, round: Answer['body'], out: RoundOutcome, reveals: number): Promise<RoundOutcome> {
  const roundId = String(round.roundId);
  out.roundId = roundId;
  return driveRound(call, p, 'mines', round, out, (now) => {
    const result = (now.result ?? {}) as { revealed?: number[] };
    const revealed = result.revealed ?? [];
    if (revealed.length >= reveals)
      return { path: `/api/mines/rounds/${roundId}/cashout`, body: { sessionId: p.sessionId, idempotencyKey: newKey('cashout') } };
    const free = Array.from({ length: 25 }, (_, i) => i).filter((t) => !revealed.includes(t));
    return { path: `/api/mines/rounds/${roundId}/reveal`, body: { sessionId: p.sessionId, tile: pick(r, free), idempotencyKey: newKey('reveal') } };
  });
}

/* ------------------------------------------------------------------ Blackjack */

export type BlackjackPolicy = 'basic' | 'random';

interface HandView {
  cards: string[];
  value: number;
  soft: boolean;
}

const rankOf = (card: string) => card.slice(0, -1);
const cardValue = (card: string) => {
  const r = rankOf(card);
  return r === 'A' ? 11 : ['K', 'Q', 'J', '10'].includes(r) ? 10 : Number(r);
};

/** Basic strategy for these rules (unlimited decks, dealer stands on soft 17, double any two, split once). */
export function basicStrategy(hand: HandView, upCard: string, actions: readonly string[]): string {
  const can = (a: string) => actions.includes(a);
  const d = cardValue(upCard);
  const choose = (a: string, fallback: string) => (can(a) ? a : can(fallback) ? fallback : can('stand') ? 'stand' : actions[0]!);
  if (hand.cards.length === 2 && can('split')) {
    const v = cardValue(hand.cards[0]!);
    const split =
      v === 11 ||
      v === 8 ||
      (v === 9 && ![7, 10, 11].includes(d)) ||
      ((v === 7 || v === 3 || v === 2) && d <= 7) ||
      (v === 6 && d <= 6) ||
      (v === 4 && (d === 5 || d === 6));
    if (split) return 'split';
  }
  const t = hand.value;
  if (hand.soft) {
    if (t >= 20) return choose('stand', 'stand');
    if (t === 19) return d === 6 ? choose('double', 'stand') : choose('stand', 'stand');
    if (t === 18) return d <= 6 ? choose('double', 'stand') : d <= 8 ? choose('stand', 'stand') : choose('hit', 'stand');
    if (t === 17) return d >= 3 && d <= 6 ? choose('double', 'hit') : choose('hit', 'stand');
    if (t >= 15) return d >= 4 && d <= 6 ? choose('double', 'hit') : choose('hit', 'stand');
    return d >= 5 && d <= 6 ? choose('double', 'hit') : choose('hit', 'stand');
  }
  if (t >= 17) return choose('stand', 'stand');
  if (t >= 13) return d <= 6 ? choose('stand', 'stand') : choose('hit', 'stand');
  if (t === 12) return d >= 4 && d <= 6 ? choose('stand', 'stand') : choose('hit', 'stand');
  if (t === 11) return choose('double', 'hit');
  if (t === 10) return d <= 9 ? choose('double', 'hit') : choose('hit', 'stand');
  if (t === 9) return d >= 3 && d <= 6 ? choose('double', 'hit') : choose('hit', 'stand');
  return choose('hit', 'stand');
}

export interface BlackjackPlan {
  amount: bigint;
  policy: BlackjackPolicy;
}

export async function playBlackjack(call: Caller, p: Player, r: Rng, plan: BlackjackPlan): Promise<RoundOutcome> {
  const out: RoundOutcome = { game: 'blackjack', roundId: null, status: null, requests: 0 };
  const round = await openRound(call, p, 'blackjack', { sessionId: p.sessionId, amount: amountOf(p, plan.amount), idempotencyKey: newKey('bj') }, out);
  if (!round) return out;
  return continueBlackjack(call, p, r, round, out, plan.policy);
}

export function continueBlackjack(call: Caller, p: Player, r: Rng, round: Answer['body'], out: RoundOutcome, policy: BlackjackPolicy): Promise<RoundOutcome> {
  const roundId = String(round.roundId);
  out.roundId = roundId;
  return driveRound(call, p, 'blackjack', round, out, (now) => {
    const result = (now.result ?? {}) as { actions?: string[]; hands?: HandView[]; activeHand?: number | null; dealer?: { cards: string[] } };
    const actions = result.actions ?? [];
    if (actions.length === 0) return null;
    if (actions.includes('insurance')) {
      const take = policy === 'random' ? r() < 0.5 : false; // basic strategy never insures
      return { path: `/api/blackjack/rounds/${roundId}/insurance`, body: { sessionId: p.sessionId, idempotencyKey: newKey('ins'), takeInsurance: take } };
    }
    const hand = result.hands?.[result.activeHand ?? 0];
    const action = policy === 'random' || !hand || !result.dealer?.cards[0] ? pick(r, actions) : basicStrategy(hand, result.dealer.cards[0], actions);
    return { path: `/api/blackjack/rounds/${roundId}/${action}`, body: { sessionId: p.sessionId, idempotencyKey: newKey(action) } };
  });
}

/** Finishes the player's open Mines and Blackjack rounds (cash out / play on), e.g. at the end of a run. */
export async function finishOpenRounds(call: Caller, p: Player, r: Rng, policy: BlackjackPolicy = 'random'): Promise<RoundOutcome[]> {
  const out: RoundOutcome[] = [];
  const mines = await activeRound(call, p, 'mines');
  if (mines && mines.roundStatus === 'active') {
    const result = (mines.result ?? {}) as { revealed?: number[] };
    out.push(
      await continueMines(
        call,
        p,
        r,
        mines,
        { game: 'mines', roundId: String(mines.roundId), status: 'active', requests: 0 },
        Math.max(1, result.revealed?.length ?? 0),
      ),
    );
  }
  const bj = await activeRound(call, p, 'blackjack');
  if (bj && bj.roundStatus === 'active')
    out.push(await continueBlackjack(call, p, r, bj, { game: 'blackjack', roundId: String(bj.roundId), status: 'active', requests: 0 }, policy));
  return out;
}
