/**
 * Re-verification of stored rounds from their revealed seeds (CONTRACT.md §9, §10, §12).
 *
 * Through the provider's public API only (robust to its internal refactors): the stored round
 * (`GET /api/bets/{roundId}`, after the player's seed pair was rotated) is recomputed with
 * `POST /api/verify` and both must agree on result, multiplier and payout. On top of that an
 * independent implementation here, written from CONTRACT.md §9–§10 and not from the provider's
 * code, checks the seed hash, the dice roll, the limbo result, the Mines positions and the
 * Blackjack card stream. Blackjack's actions are read back from the final hands.
 */
import { createHash, createHmac } from 'node:crypto';
import { request, sameJson } from './client.js';

/* ------------------------------------------------------------------ CONTRACT.md §9, independently */

/** The first `count` stream words (big-endian uint32) of (serverSeed, clientSeed, nonce). */
export function streamWords(serverSeed: string, clientSeed: string, nonce: number | string, count: number): number[] {
  const words: number[] = [];
  for (let round = 0; words.length < count; round++) {
    const d = createHmac('sha256', Buffer.from(serverSeed, 'utf8')).update(`${clientSeed}:${nonce}:${round}`, 'utf8').digest();
    for (let i = 0; i < 32 && words.length < count; i += 4) words.push(d.readUInt32BE(i));
  }
  return words;
}

/** floor(word / 2^32 × n), exactly. */
const scaled = (word: number, n: number) => Number((BigInt(word) * BigInt(n)) >> 32n);

export const sha256Hex = (text: string) => createHash('sha256').update(text, 'utf8').digest('hex');

/** Dice roll as text with 2 decimals: floor(f0 × 10001) / 100. */
export function diceRoll(words: number[]): string {
  const v = scaled(words[0]!, 10001);
  return `${Math.floor(v / 100)}.${String(v % 100).padStart(2, '0')}`;
}

/** Limbo result as text with 2 decimals: max(1.00, floor(99·10^8 / (floor(f0 × 10^8) + 1)) / 100). */
export function limboResult(words: number[]): string {
  const q = 9_900_000_000n / (BigInt(scaled(words[0]!, 100_000_000)) + 1n);
  const v = q < 100n ? 100n : q;
  return `${v / 100n}.${String(v % 100n).padStart(2, '0')}`;
}

/** Mines positions, ascending. */
export function minesOf(words: number[], mineCount: number): number[] {
  const pool = Array.from({ length: 25 }, (_, i) => i);
  const taken: number[] = [];
  for (let i = 0; i < 24; i++) taken.push(pool.splice(scaled(words[i]!, 25 - i), 1)[0]!);
  return taken.slice(0, mineCount).sort((a, b) => a - b);
}

const CARDS = ['2', '3', '4', '5', '6', '7', '8', '9', '10', 'J', 'Q', 'K', 'A'].flatMap((r) => ['D', 'H', 'S', 'C'].map((s) => `${r}${s}`));
export const blackjackCards = (words: number[]) => words.slice(0, 52).map((w) => CARDS[scaled(w, 52)]!);

/* ------------------------------------------------------------------ Blackjack actions from the final hands */

interface Hand {
  cards: string[];
  value: number;
  doubled: boolean;
  status: string;
}

interface BlackjackResult {
  dealer: { cards: string[]; value: number };
  hands: Hand[];
  insurance: { offered: boolean; taken: boolean | null };
}

const rank = (c: string) => c.slice(0, -1);

/**
 * The actions a final Blackjack round was played with, in order (the `params.actions` of
 * `POST /api/verify`): the insurance decision, a split, then per hand its hits (or its double)
 * and a stand when the hand stopped below 21. Hands that stop by themselves (21, bust, split
 * aces, a round ended by a dealer or player blackjack) take no action.
 */
export function blackjackActions(r: BlackjackResult): string[] {
  const actions: string[] = [];
  if (r.insurance.offered && r.insurance.taken !== null) actions.push(r.insurance.taken ? 'insurance' : 'decline_insurance');
  const dealerBlackjack = r.dealer.cards.length === 2 && r.dealer.value === 21;
  const split = r.hands.length === 2;
  const first = r.hands[0]!;
  const playerBlackjack = !split && first.cards.length === 2 && first.value === 21;
  if (dealerBlackjack || playerBlackjack) return actions;
  if (split) actions.push('split');
  if (split && rank(first.cards[0]!) === 'A') return actions; // split aces: one card each, they stand
  for (const h of r.hands) {
    if (h.doubled) {
      actions.push('double');
      continue;
    }
    for (let i = 2; i < h.cards.length; i++) actions.push('hit');
    if (h.status === 'stood' && h.value < 21) actions.push('stand');
  }
  return actions;
}

/* ------------------------------------------------------------------ the driver */

export interface StoredRound {
  roundId: string;
  gameType: string;
  currency: string;
}

const FINAL_PAID = ['settled', 'cashed_out', 'busted'];

const same = sameJson;

export interface ReverifyOutcome {
  verified: number;
  discrepancies: string[];
}

/**
 * Re-verifies every given round (final and paid: settled, cashed_out, busted) against the
 * provider processes (round-robin), `parallel` at a time.
 */
export async function reverifyRounds(
  origins: string[],
  rounds: (StoredRound & { status: string })[],
  opts: { parallel?: number; onProgress?: (done: number) => void } = {},
): Promise<ReverifyOutcome> {
  const todo = rounds.filter((r) => FINAL_PAID.includes(r.status));
  const discrepancies: string[] = [];
  let verified = 0;
  let next = 0;
  let turn = 0;
  const origin = () => origins[turn++ % origins.length]!;
  const fetchOk = async (method: 'GET' | 'POST', path: string, body?: unknown) => {
    for (let attempt = 0; ; attempt++) {
      const a = await request(origin(), method, path, body);
      if (a.status !== 0 && a.status < 500) return a;
      if (attempt >= 5) return a;
      await new Promise((r) => setTimeout(r, 200));
    }
  };
  const one = async (r: StoredRound) => {
    const problem = (what: string) => discrepancies.push(`reverify ${r.roundId} (${r.gameType}): ${what}`);
    const view = await fetchOk('GET', `/api/bets/${r.roundId}`);
    if (view.status !== 200) return problem(`GET /api/bets answered ${view.status} ${view.text.slice(0, 200)}`);
    const b = view.body as unknown as {
      bet: { gameType: string; amount: number; currency: string; params: Record<string, unknown>; payout: number; multiplier: number };
      result: Record<string, unknown>;
      fairness: { serverSeedHash: string; clientSeed: string; nonce: number; serverSeed?: string };
    };
    const f = b.fairness;
    if (!f.serverSeed) return problem('the server seed is not revealed after the rotation');
    if (sha256Hex(f.serverSeed) !== f.serverSeedHash) return problem('sha256(serverSeed) is not the committed serverSeedHash');

    // independent recomputation
    const words = streamWords(f.serverSeed, f.clientSeed, f.nonce, 52);
    const result = b.result;
    if (r.gameType === 'dice' && Number(result.roll).toFixed(2) !== diceRoll(words))
      problem(`dice roll ${String(result.roll)} ≠ ${diceRoll(words)} recomputed`);
    if (r.gameType === 'limbo' && Number(result.result).toFixed(2) !== limboResult(words))
      problem(`limbo result ${String(result.result)} ≠ ${limboResult(words)} recomputed`);
    if (r.gameType === 'mines' && !same(result.mines, minesOf(words, Number(result.mineCount))))
      problem(`mines ${JSON.stringify(result.mines)} ≠ ${JSON.stringify(minesOf(words, Number(result.mineCount)))} recomputed`);
    if (r.gameType === 'blackjack' && !same(result.cards, blackjackCards(words))) problem('the 52 cards differ from the recomputed stream');

    // the provider's own verification of the stored inputs
    let params: unknown = b.bet.params;
    if (r.gameType === 'mines') params = { mineCount: result.mineCount, revealed: result.revealed };
    if (r.gameType === 'blackjack') params = { actions: blackjackActions(result as unknown as BlackjackResult) };
    const v = await fetchOk('POST', '/api/verify', {
      gameType: r.gameType,
      serverSeed: f.serverSeed,
      serverSeedHash: f.serverSeedHash,
      clientSeed: f.clientSeed,
      nonce: f.nonce,
      amount: b.bet.amount,
      currency: b.bet.currency,
      params,
    });
    if (v.status !== 200) return problem(`POST /api/verify answered ${v.status} ${v.text.slice(0, 300)}`);
    const vb = v.body as { result: Record<string, unknown>; payout: number; multiplier: number };
    if (vb.payout !== b.bet.payout) problem(`payout ${b.bet.payout} ≠ ${vb.payout} verified`);
    if (r.gameType === 'mines') {
      if (!same(vb.result.mines, result.mines) || !same(vb.result.revealed, result.revealed)) problem('mines or revealed tiles differ from the verified round');
    } else if (!same(vb.result, result)) {
      problem(`result differs from the verified one: stored ${JSON.stringify(result).slice(0, 300)} verified ${JSON.stringify(vb.result).slice(0, 300)}`);
    }
    if (vb.multiplier !== b.bet.multiplier) problem(`multiplier ${b.bet.multiplier} ≠ ${vb.multiplier} verified`);
    verified += 1;
  };
  await Promise.all(
    Array.from({ length: opts.parallel ?? 8 }, async () => {
      for (let i = next++; i < todo.length; i = next++) {
        await one(todo[i]!);
        if (i % 1000 === 0) opts.onProgress?.(i);
      }
    }),
  );
  return { verified, discrepancies };
}
