/**
 * Checking a stored round in the browser (issue 12: the game page's verifier): the same
 * recomputation as POST /api/verify (`verifyBet`), fed from a round answer (CONTRACT.md §12),
 * compared with what the round says happened, plus the steps for the curious — each HMAC
 * message with its digest, and each float with the four bytes it came from.
 *
 * Blackjack rounds store their cards and hands but not the player's actions; the actions are
 * found again by replaying the legal ones from the deal (a depth-first search the dealt cards
 * prune to a handful of paths), so the verifier recomputes the settled round and its payout.
 */
import { bytesToHex } from './hash.js';
import { BLACKJACK_FLOATS } from '../games/blackjack-cards.js';
import { applyBlackjackAction, isFinal, legalActions, startBlackjack, type BlackjackAction, type BlackjackState } from '../games/blackjack.js';
import { INSTANT_GAMES, isInstantGame, parseGameParams, type GameType } from '../games/games.js';
import { MINES_FLOATS } from '../games/mines.js';
import { roundDigest, bytesToFloat, type Nonce } from './stream.js';
import { hashServerSeed } from './seeds.js';
import { verifyBet, type VerifyOutput } from './verify.js';

/** How many floats a game's round takes (CONTRACT.md §10). */
export function floatsOfRound(gameType: GameType, params: unknown): number {
  if (gameType === 'mines') return MINES_FLOATS;
  if (gameType === 'blackjack') return BLACKJACK_FLOATS;
  if (!isInstantGame(gameType)) return 0;
  const game = INSTANT_GAMES[gameType] as { floatsNeeded(p: unknown): number };
  return game.floatsNeeded(parseGameParams(gameType, params));
}

export interface StreamStep {
  /** the HMAC message `clientSeed:nonce:round` */
  message: string;
  digestHex: string;
  /** the floats made of this digest: index, its 4 bytes in hex, the value */
  floats: { index: number; bytesHex: string; value: number }[];
}

/** The HMAC messages, digests and floats of the first `count` floats, digest by digest. */
export function streamSteps(serverSeed: string, clientSeed: string, nonce: Nonce, count: number): StreamStep[] {
  const steps: StreamStep[] = [];
  for (let round = 0; round * 8 < count; round += 1) {
    const digest = roundDigest(serverSeed, clientSeed, nonce, round);
    const floats = [];
    for (let j = 0; j < 8 && round * 8 + j < count; j += 1) {
      floats.push({ index: round * 8 + j, bytesHex: bytesToHex(digest.subarray(4 * j, 4 * j + 4)), value: bytesToFloat(digest, 4 * j) });
    }
    steps.push({ message: `${clientSeed}:${nonce}:${round}`, digestHex: bytesToHex(digest), floats });
  }
  return steps;
}

interface TargetHand {
  cards: readonly string[];
  doubled?: boolean;
}
export interface BlackjackTarget {
  dealer: { cards: readonly string[] };
  hands: readonly TargetHand[];
  insurance?: { taken: boolean | null };
}

const isPrefix = (a: readonly string[], b: readonly string[]) => a.length <= b.length && a.every((c, i) => c === b[i]);

/**
 * The actions that lead from the deal to the final table `target` (its hands' and the dealer's
 * cards), or null when none does: the deal does not come from these seeds.
 */
export function blackjackActionsOf(floats: readonly number[], amountMinor: bigint, target: BlackjackTarget, budget = 20_000): BlackjackAction[] | null {
  let visited = 0;
  const fits = (s: BlackjackState): boolean => {
    if (s.hands.length > target.hands.length) return false;
    if (target.insurance && s.insurance.taken !== null && target.insurance.taken !== null && s.insurance.taken !== target.insurance.taken) return false;
    return s.hands.every((h, i) => {
      const want = target.hands[i];
      if (!want || !isPrefix(h.cards, want.cards)) return false;
      if (h.status !== 'playing' && h.cards.length !== want.cards.length) return false;
      return !(h.doubled && want.doubled === false);
    });
  };
  const done = (s: BlackjackState) =>
    s.hands.length === target.hands.length &&
    s.hands.every(
      (h, i) => h.cards.length === target.hands[i]?.cards.length && (target.hands[i]?.doubled === undefined || h.doubled === target.hands[i]?.doubled),
    ) &&
    (target.insurance === undefined || s.insurance.taken === target.insurance.taken) &&
    s.dealer.length === target.dealer.cards.length &&
    s.dealer.every((c, i) => c === target.dealer.cards[i]);
  const search = (s: BlackjackState, path: BlackjackAction[]): BlackjackAction[] | null => {
    if ((visited += 1) > budget) return null;
    if (isFinal(s)) return done(s) ? path : null;
    for (const action of legalActions(s)) {
      const next = applyBlackjackAction(s, action).state;
      if (!fits(next)) continue;
      const found = search(next, [...path, action]);
      if (found) return found;
    }
    return null;
  };
  const start = startBlackjack(floats, amountMinor);
  return fits(start) ? search(start, []) : null;
}

export interface StoredRound {
  gameType: GameType;
  serverSeed: string;
  serverSeedHash: string;
  clientSeed: string;
  nonce: Nonce;
  amountMinor: bigint;
  currency: string;
  params: Record<string, unknown>;
  /** the round's `result` as answered */
  result: Record<string, unknown>;
  /** the payout the round credited (minor units), compared when given */
  payoutMinor?: bigint;
}

export interface RoundCheck {
  /** SHA-256 of the server seed equals the committed hash */
  hashMatches: boolean;
  /** the recomputation (null when the inputs could not be recomputed: `problem` says why) */
  recomputed: VerifyOutput | null;
  /** what was compared: the round's outcome as stored and as recomputed */
  compared: { what: string; stored: string; recomputed: string }[];
  /** every compared outcome is equal and the hash matches */
  verified: boolean;
  problem: string | null;
}

const text = (v: unknown): string => (Array.isArray(v) ? v.join(',') : String(v));

/** The parts of a result that decide a round, per game. */
function outcomeOf(gameType: GameType, r: Record<string, unknown>): Record<string, unknown> {
  switch (gameType) {
    case 'dice':
      return { roll: Number(r.roll).toFixed(2) };
    case 'limbo':
      return { result: Number(r.result).toFixed(2) };
    case 'plinko':
      return { path: r.path, bin: r.bin };
    case 'keno':
      return { drawn: r.drawn, hits: r.hits };
    case 'mines':
      return { mines: r.mines };
    case 'blackjack':
      return { cards: r.cards };
  }
}

/** Recomputes a stored round from its revealed seeds with the server's own rules, and compares. */
export function checkRound(round: StoredRound): RoundCheck {
  const hashMatches = hashServerSeed(round.serverSeed) === round.serverSeedHash.toLowerCase();
  let params: Record<string, unknown> = round.params;
  try {
    if (round.gameType === 'mines') {
      params = { mineCount: round.params.mineCount ?? round.result.mineCount, revealed: round.result.revealed ?? [] };
    } else if (round.gameType === 'blackjack') {
      const fl = floatsForCheck(round, BLACKJACK_FLOATS);
      const actions = blackjackActionsOf(fl, round.amountMinor, round.result as unknown as BlackjackTarget);
      if (!actions) return { hashMatches, recomputed: null, compared: [], verified: false, problem: 'no play of these cards leads to this table' };
      params = { actions };
    }
    const { payoutMinor: _stored, ...inputs } = round;
    const recomputed = verifyBet({ ...inputs, params, serverSeedHash: hashServerSeed(round.serverSeed) });
    const stored = outcomeOf(round.gameType, round.result);
    const again = outcomeOf(round.gameType, recomputed.result as Record<string, unknown>);
    const compared = Object.keys(stored).map((what) => ({ what, stored: text(stored[what]), recomputed: text(again[what]) }));
    if (round.payoutMinor !== undefined) compared.push({ what: 'payout', stored: String(round.payoutMinor), recomputed: String(recomputed.payoutMinor) });
    return {
      hashMatches,
      recomputed,
      compared,
      verified: hashMatches && compared.every((c) => c.stored === c.recomputed),
      problem: hashMatches ? null : 'the server seed does not hash to the committed hash',
    };
  } catch (err) {
    return { hashMatches, recomputed: null, compared: [], verified: false, problem: err instanceof Error ? err.message : String(err) };
  }
}

function floatsForCheck(round: StoredRound, count: number): number[] {
  return streamSteps(round.serverSeed, round.clientSeed, round.nonce, count).flatMap((s) => s.floats.map((f) => f.value));
}
