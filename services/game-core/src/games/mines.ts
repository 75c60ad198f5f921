/**
 * Mines (CONTRACT.md §10, §12, §13): positions from 24 floats (pool = [0..24], take and remove
 * pool[floor(f_i × (25 − i))], the first mineCount taken are the mines); after k safe reveals the
 * multiplier is floor(0.99 × C(25,k) / C(25 − mineCount, k)) to 4 decimals, exact in integers;
 * cashout needs k ≥ 1; revealing every safe tile cashes out; a reveal that brings the payout to
 * maxPayout or above cashes out with payout = maxPayout. The round state is a plain JSON object.
 */
import { z } from 'zod';
import { RuleError } from '../errors.js';
import { applyMultiplier } from '../money/index.js';
import type { BetLimits } from '../money/index.js';
import { floorMul, multiplierNumber } from './exact.js';

export const MINES_TILES = 25;
export const MINES_FLOATS = 24;

export const minesParamsSchema = z.object({ mineCount: z.number().int().min(1).max(24).default(3) }).prefault({});
export type MinesParams = z.infer<typeof minesParamsSchema>;

export type MinesStatus = 'active' | 'busted' | 'cashed_out';

export interface MinesState {
  mineCount: number;
  /** ascending; secret until the round is final */
  mines: number[];
  /** tiles in reveal order (a mine hit is the last one) */
  revealed: number[];
  status: MinesStatus;
}

export interface MinesResultView {
  mineCount: number;
  revealed: number[];
  /** cashout multiplier now; 0 before the first reveal and when busted */
  multiplier: number;
  /** multiplier after one more safe reveal; null when the round is final */
  nextMultiplier: number | null;
  /** ascending, only when final */
  mines?: number[];
}

export function minesFloatsNeeded(): number {
  return MINES_FLOATS;
}

function checkMineCount(mineCount: number): void {
  if (!Number.isInteger(mineCount) || mineCount < 1 || mineCount > 24) throw new RangeError(`mineCount must be 1..24: ${mineCount}`);
}

/** The mines, ascending, from the round's floats (only the first mineCount are consulted). */
export function minePositions(floats: readonly number[], mineCount: number): number[] {
  checkMineCount(mineCount);
  const pool = Array.from({ length: MINES_TILES }, (_, i) => i);
  const taken: number[] = [];
  for (let i = 0; i < MINES_FLOATS; i += 1) {
    const f = floats[i];
    if (f === undefined) throw new RangeError(`mines needs ${MINES_FLOATS} floats`);
    taken.push(...pool.splice(floorMul(f, MINES_TILES - i), 1));
  }
  return taken.slice(0, mineCount).sort((a, b) => a - b);
}

export function binomial(n: number, k: number): bigint {
  if (k < 0 || k > n) return 0n;
  let r = 1n;
  for (let i = 1; i <= k; i += 1) r = (r * BigInt(n - k + i)) / BigInt(i);
  return r;
}

/**
 * floor(0.99 × C(25,k) / C(25 − m, k)) scaled by 10^4 = floor(9900 × C(25,k) / C(25 − m,k)),
 * for k = 0..25 − m (k = 0 gives the formula's 0.99; the view shows 0 before the first reveal).
 */
export function minesMultiplier4(k: number, mineCount: number): bigint {
  checkMineCount(mineCount);
  if (!Number.isInteger(k) || k < 0 || k > MINES_TILES - mineCount) throw new RangeError(`k must be 0..${MINES_TILES - mineCount}: ${k}`);
  return (9900n * binomial(MINES_TILES, k)) / binomial(MINES_TILES - mineCount, k);
}

/** The largest multiplier a round reaches: every safe tile revealed. */
export function minesMaxMultiplier4(params: MinesParams): bigint {
  return minesMultiplier4(MINES_TILES - params.mineCount, params.mineCount);
}

export function startMines(floats: readonly number[], mineCount: number): MinesState {
  return { mineCount, mines: minePositions(floats, mineCount), revealed: [], status: 'active' };
}

export function safeReveals(state: MinesState): number {
  return state.status === 'busted' ? state.revealed.length - 1 : state.revealed.length;
}

export function isMinesFinal(state: MinesState): boolean {
  return state.status !== 'active';
}

/** The §10 multiplier of the reveals so far; 0 before the first reveal and when busted. */
export function cashoutMultiplier(state: MinesState): bigint {
  const k = safeReveals(state);
  if (state.status === 'busted' || k === 0) return 0n;
  return minesMultiplier4(k, state.mineCount);
}

/** The multiplier one more safe reveal gives; null when the round is final. */
export function nextMultiplier(state: MinesState): bigint | null {
  if (state.status !== 'active') return null;
  const k = safeReveals(state) + 1;
  return k <= MINES_TILES - state.mineCount ? minesMultiplier4(k, state.mineCount) : null;
}

/** Payout of the state: 0 when busted, else floor(amount × multiplier) capped at maxPayout. */
export function minesPayout(state: MinesState, amountMinor: bigint, limits?: Pick<BetLimits, 'maxPayout'>): bigint {
  const payout = applyMultiplier(amountMinor, cashoutMultiplier(state));
  return limits && payout > limits.maxPayout ? limits.maxPayout : payout;
}

/**
 * CONTRACT.md §10: when the reveals bring the payout to maxPayout or above, the round cashes out
 * (its payout is then maxPayout, see minesPayout). Leaves other states unchanged.
 */
export function applyMaxPayoutCap(state: MinesState, amountMinor: bigint, limits: Pick<BetLimits, 'maxPayout'>): { state: MinesState; capped: boolean } {
  if (state.status !== 'active' || safeReveals(state) === 0) return { state, capped: false };
  if (applyMultiplier(amountMinor, cashoutMultiplier(state)) < limits.maxPayout) return { state, capped: false };
  return { state: { ...state, status: 'cashed_out' }, capped: true };
}

export interface RevealOutcome {
  state: MinesState;
  hit: 'safe' | 'mine';
  final: boolean;
  /** why the round ended with this reveal, null while it goes on */
  reason: 'mine' | 'all_safe' | 'max_payout' | null;
}

/**
 * Reveals a tile. Throws ROUND_NOT_ACTIVE on a final state, TILE_ALREADY_REVEALED for a repeat,
 * VALIDATION_ERROR for a tile outside 0..24. With `cap` the maxPayout rule is applied too.
 */
export function revealTile(state: MinesState, tile: number, cap?: { amountMinor: bigint; limits: Pick<BetLimits, 'maxPayout'> }): RevealOutcome {
  if (state.status !== 'active') throw new RuleError('ROUND_NOT_ACTIVE', 'the round is over');
  if (!Number.isInteger(tile) || tile < 0 || tile >= MINES_TILES) throw new RuleError('VALIDATION_ERROR', 'tile must be an integer 0..24');
  if (state.revealed.includes(tile)) throw new RuleError('TILE_ALREADY_REVEALED', `tile ${tile} is already revealed`);
  const revealed = [...state.revealed, tile];
  if (state.mines.includes(tile)) {
    return { state: { ...state, revealed, status: 'busted' }, hit: 'mine', final: true, reason: 'mine' };
  }
  const next: MinesState = { ...state, revealed };
  if (revealed.length === MINES_TILES - state.mineCount) {
    return { state: { ...next, status: 'cashed_out' }, hit: 'safe', final: true, reason: 'all_safe' };
  }
  if (cap) {
    const capped = applyMaxPayoutCap(next, cap.amountMinor, cap.limits);
    if (capped.capped) return { state: capped.state, hit: 'safe', final: true, reason: 'max_payout' };
  }
  return { state: next, hit: 'safe', final: false, reason: null };
}

/** Cashes out. ACTION_NOT_AVAILABLE before the first reveal (CONTRACT.md §13). */
export function cashoutMines(state: MinesState): MinesState {
  if (state.status !== 'active') throw new RuleError('ROUND_NOT_ACTIVE', 'the round is over');
  if (safeReveals(state) === 0) throw new RuleError('ACTION_NOT_AVAILABLE', 'cashout needs at least one revealed tile');
  return { ...state, status: 'cashed_out' };
}

/** The result object of CONTRACT.md §12; the mines only once the round is final. */
export function minesResultView(state: MinesState): MinesResultView {
  const next = nextMultiplier(state);
  const view: MinesResultView = {
    mineCount: state.mineCount,
    revealed: [...state.revealed],
    multiplier: multiplierNumber(cashoutMultiplier(state)),
    nextMultiplier: next === null ? null : multiplierNumber(next),
  };
  if (isMinesFinal(state)) view.mines = [...state.mines];
  return view;
}
