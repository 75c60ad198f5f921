/**
 * Money is conserved (SPEC.md "States and transitions", wallet rules 3–5; CONTRACT.md §4, §11):
 * several players bet the four games many times against an HTTP casino that fails at random on
 * every wallet path (slow, timed out, 5xx, 429, dropped, applied-then-failed, refused, 409).
 * Then the cron route runs until nothing is pending, and the casino ledger and the service's
 * rounds must agree to the minor unit.
 */
import { setTimeout as sleep } from 'node:timers/promises';
import type { FaultRule, Transaction } from '@gp/reference-casino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { drainRetries, newKey, startWorld, type Answer, type Player, type World } from '../helpers/casino.js';

const PLAYERS = 8;
const BETS_PER_PLAYER = 40;
const START_BALANCE = 200_000n; // 2000.00 USD
const LONGEST_FAULT_MS = 1_500; // past the callback timeout below

let w: World;
let players: Player[];
beforeAll(async () => {
  // A timeout with room for a busy machine: a slow answer in time must not count as unanswered.
  w = await startWorld([{ operatorId: 'op-cons', minBet: 0.01, stakeStep: 0.01, maxPayout: 1_000_000 }], { env: { CALLBACK_TIMEOUT_MS: '1000' } });
  players = [];
  for (let i = 0; i < PLAYERS; i++) players.push(await w.player(`cons-${i}`, { balance: '2000' }));
});
afterAll(async () => w?.close());

/**
 * Every kind of fault on every money path. Those without an answer stay rare enough not to open
 * the wallet circuit (5 unanswered attempts in a row); rollbacks, far fewer, fail more often.
 */
function faults(): FaultRule[] {
  const rules: FaultRule[] = [];
  for (const path of ['/wallet/debit', '/wallet/credit', '/wallet/rollback']) {
    const x = path === '/wallet/rollback' ? 4 : 1;
    rules.push(
      { path, kind: 'status', status: 503, probability: 0.015 * x },
      { path, kind: 'status', status: 429, probability: 0.01 * x },
      { path, kind: 'drop', probability: 0.015 * x },
      { path, kind: 'delay', ms: LONGEST_FAULT_MS, probability: 0.015 * x }, // past the timeout, applied later
      { path, kind: 'delay', ms: 40, probability: 0.03 }, // slow but in time
      { path, kind: 'delay-then-drop', ms: 100, probability: 0.01 * x },
      { path, kind: 'ambiguous', probability: 0.015 * x },
      { path, kind: 'ambiguous', mode: 'drop', probability: 0.01 * x },
      path === '/wallet/debit'
        ? { path, kind: 'refuse', code: 'RESPONSIBLE_GAMING_LIMIT', probability: 0.015 }
        : { path, kind: 'refuse', status: 401, code: 'SIGNATURE_INVALID', probability: 0.015 * x },
    );
  }
  rules.push({ path: '/wallet/debit', kind: 'refuse', status: 409, code: 'IDEMPOTENCY_CONFLICT', probability: 0.01 });
  return rules;
}

/** A deterministic little RNG for the bets themselves. */
function rng(seed: number) {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = Math.imul(a ^ (a >>> 15), a | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

function randomBet(r: () => number): { game: string; params: Record<string, unknown> } {
  const pick = r();
  if (pick < 0.08) return { game: 'dice', params: { target: 99, direction: 'over' } }; // refused after the debit, rolled back
  if (pick < 0.3) {
    const target = Math.round((5 + r() * 90) * 100) / 100;
    return { game: 'dice', params: { target, direction: r() < 0.5 ? 'over' : 'under' } };
  }
  if (pick < 0.55) return { game: 'limbo', params: { target: Math.round((1.01 + r() * 20) * 100) / 100 } };
  if (pick < 0.8) return { game: 'plinko', params: { rows: 8 + Math.floor(r() * 9), risk: ['low', 'medium', 'high', 'expert'][Math.floor(r() * 4)] } };
  const pool = Array.from({ length: 40 }, (_, i) => i + 1);
  const picks = Array.from({ length: 1 + Math.floor(r() * 10) }, () => pool.splice(Math.floor(r() * pool.length), 1)[0]!);
  return { game: 'keno', params: { picks, risk: ['classic', 'low', 'medium', 'high'][Math.floor(r() * 4)] } };
}

interface Outcome {
  player: Player;
  answer: Answer;
}

async function playerSession(p: Player, seed: number): Promise<Outcome[]> {
  const r = rng(seed);
  const out: Outcome[] = [];
  for (let i = 0; i < BETS_PER_PLAYER; i++) {
    const { game, params } = randomBet(r);
    const amount = (1 + Math.floor(r() * 500)) / 100;
    const key = newKey(`cons-${p.playerRef}`);
    const duplicate = r();
    let answer: Answer;
    if (duplicate < 0.08) {
      // a double click: the same request twice at once
      const [first, second] = await Promise.all([w.bet(p, game, amount, params, key), w.bet(p, game, amount, params, key)]);
      expect(second.status).toBe(first.status);
      expect(second.body).toEqual(first.body);
      answer = first;
    } else {
      answer = await w.bet(p, game, amount, params, key);
      if (duplicate < 0.2) {
        // a client retry after the answer: the same answer, no new callback
        const again = await w.bet(p, game, amount, params, key);
        expect(again.status).toBe(answer.status);
        expect(again.body).toEqual(answer.body);
      }
    }
    out.push({ player: p, answer });
  }
  return out;
}

interface RoundRow {
  round_id: string;
  player_ref: string;
  status: string;
  amount: string;
  payout: string | null;
}

describe('money conservation under random wallet faults', () => {
  it('every debit is closed by exactly one credit or one rollback, and the casino and the service agree to the minor unit', async () => {
    w.casino.setFaults(faults(), 20261123);
    const outcomes = (await Promise.all(players.map((p, i) => playerSession(p, 1000 + i)))).flat();

    // Answers: a settled or credit_pending bet, or an error that names its round; at most a few refused by an open circuit.
    const withRound = outcomes.filter((o) => typeof o.answer.body.roundId === 'string');
    for (const o of outcomes) {
      if (o.answer.status === 200) expect(['settled', 'credit_pending']).toContain(o.answer.body.roundStatus);
      else if (o.answer.body.roundId) expect(['cancelled', 'rollback_pending', 'error']).toContain(o.answer.body.roundStatus);
      else expect(o.answer.body.code, o.answer.text).toBe('CASINO_NETWORK_ERROR');
    }
    expect(withRound.length).toBeGreaterThanOrEqual(200);
    const statuses = new Set(withRound.map((o) => o.answer.body.roundStatus));
    for (const s of ['settled', 'credit_pending', 'cancelled', 'error']) expect(statuses, s).toContain(s);

    // The retries run under the same faults until nothing is pending, then once more after the slowest request landed.
    await drainRetries(w, { pauseMs: 50 });
    w.casino.clearFaults();
    await sleep(LONGEST_FAULT_MS + 150);
    await drainRetries(w);

    const db = w.t.services.db;
    const rounds: RoundRow[] = await db('rounds').where({ operator_id: 'op-cons' });
    expect(rounds.length).toBe(withRound.length);
    // every round is final
    for (const r of rounds) expect(['settled', 'cancelled', 'error'], r.round_id).toContain(r.status);
    // every callback is confirmed, or a debit that failed for good
    const open = await db('wallet_callbacks')
      .where({ operator_id: 'op-cons' })
      .andWhere((q) => {
        q.where('callback_status', 'pending').orWhere((q2) => {
          q2.where('callback_status', 'failed').whereNot('operation', 'debit');
        });
      });
    expect(open).toEqual([]);

    const ledger = w.casino.transactions().filter((tx) => tx.operatorId === 'op-cons');
    // no idempotency key was applied twice
    const keys = ledger.map((tx) => tx.idempotencyKey);
    expect(new Set(keys).size).toBe(keys.length);

    const byRound = new Map<string, Transaction[]>();
    for (const tx of ledger) byRound.set(tx.roundId, [...(byRound.get(tx.roundId) ?? []), tx]);
    const roundIds = new Set(rounds.map((r) => r.round_id));
    for (const id of byRound.keys()) expect(roundIds.has(id), `ledger round ${id} unknown to the service`).toBe(true);

    const callbacks = await db('wallet_callbacks').where({ operator_id: 'op-cons', callback_status: 'succeeded' });
    const txIdOf = new Map<string, string>(
      callbacks.map((c: { idempotency_key: string; casino_transaction_id: string }) => [c.idempotency_key, c.casino_transaction_id]),
    );

    const log = w.casino.requests();
    const expected = new Map<string, bigint>(players.map((p) => [p.playerRef, START_BALANCE]));
    for (const r of rounds) {
      const txs = byRound.get(r.round_id) ?? [];
      const debits = txs.filter((tx) => tx.type === 'debit');
      const credits = txs.filter((tx) => tx.type === 'credit');
      const rollbacks = txs.filter((tx) => tx.type === 'rollback');
      const amount = BigInt(r.amount);
      const trail = `${r.round_id} (${r.status}): ${JSON.stringify(log.filter((q) => q.idempotencyKey?.startsWith(r.round_id)).map((q) => [q.path, q.status, q.code, q.fault]))}`;
      expect(debits.length, trail).toBeLessThanOrEqual(1);
      // each debit is closed by exactly one credit or one rollback
      if (debits.length === 1) {
        expect(debits[0]!.amount).toBe(amount);
        expect(credits.length + rollbacks.length, trail).toBe(1);
      }
      if (r.status === 'settled') {
        expect([debits.length, credits.length, rollbacks.length], trail).toEqual([1, 1, 0]);
        expect(credits[0]!.amount, trail).toBe(BigInt(r.payout!));
        expect(txIdOf.get(`${r.round_id}:debit`)).toBe(debits[0]!.casinoTransactionId);
        expect(txIdOf.get(`${r.round_id}:credit`)).toBe(credits[0]!.casinoTransactionId);
        expected.set(r.player_ref, expected.get(r.player_ref)! - amount + BigInt(r.payout!));
      } else if (r.status === 'cancelled') {
        expect([credits.length, rollbacks.length], trail).toEqual([0, 1]);
        // a debit the casino applied is refunded in full; one it never applied is rolled back with 0 and refused if it comes late
        expect(rollbacks[0]!.amount, trail).toBe(debits.length === 1 ? amount : 0n);
        expect(rollbacks[0]!.debitIdempotencyKey).toBe(`${r.round_id}:debit`);
      } else {
        // error: the casino refused the debit; no money moved and no rollback was sent
        expect(txs, trail).toEqual([]);
        expect(w.requestsOf(`${r.round_id}:debit:rollback`)).toEqual([]);
      }
    }
    // every player's casino balance = start − stakes of debited-and-not-rolled-back rounds + credits
    for (const p of players) expect(w.balance(p), p.playerRef).toBe(expected.get(p.playerRef));

    // the casino never saw a conflicting reuse of a key nor a bad signature or replayed nonce it did not inject itself
    const unexpected = w.casino.requests().filter((r) => !r.fault && (r.status === 409 || r.status === 401 || (r.status !== null && r.status >= 500)));
    expect(unexpected).toEqual([]);
  }, 180_000); // a ceiling for a busy machine, not a timing assertion
});
