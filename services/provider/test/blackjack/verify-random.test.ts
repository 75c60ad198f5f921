/**
 * Provable fairness of Blackjack end to end: 30 rounds dealt by the committed seed (no scripting)
 * and played with random legal actions through the API; then the seed is rotated and every
 * settlement recomputed with POST /api/verify (params.actions): cards, payout, multiplier and
 * total staked must match what was credited.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, type TestApp } from '../helpers/app.js';
import { act, demoLedger, demoSession, insurance, ok, post, start } from './helpers.js';

let t: TestApp;
let sessionId: string;
beforeAll(async () => {
  t = await createTestApp();
  sessionId = await demoSession(t, 'bj-random');
});
afterAll(async () => t?.close());

/** mulberry32: a seeded RNG, so a failure can be replayed. */
function rng(seed: number) {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let x = a;
    x = Math.imul(x ^ (x >>> 15), x | 1);
    x ^= x + Math.imul(x ^ (x >>> 7), x | 61);
    return ((x ^ (x >>> 14)) >>> 0) / 4294967296;
  };
}

interface Played {
  roundId: string;
  amount: number;
  actions: string[];
  final: any; // eslint-disable-line @typescript-eslint/no-explicit-any
}

describe('30 random rounds recomputed with POST /api/verify', () => {
  it('every settlement matches the recomputation from the revealed seed', async () => {
    const random = rng(20261123);
    const played: Played[] = [];
    for (let i = 0; i < 30; i++) {
      const amount = [0.5, 1, 2.25, 3.33][i % 4]!;
      let round = await ok(start(t, sessionId, { amount, ...(i % 5 === 0 ? { clientSeed: `random-${i}` } : {}) }));
      const actions: string[] = [];
      while (round.roundStatus === 'active') {
        const available: string[] = round.result.actions;
        expect(available.length).toBeGreaterThan(0);
        const choice = available[Math.floor(random() * available.length)]!;
        if (choice === 'insurance') {
          const take = random() < 0.5;
          actions.push(take ? 'insurance' : 'decline_insurance');
          round = await ok(insurance(t, sessionId, round.roundId, take));
        } else {
          actions.push(choice);
          round = await ok(act(t, sessionId, round.roundId, choice));
        }
        expect(round.result.cards === undefined).toBe(round.roundStatus === 'active');
      }
      expect(round.roundStatus).toBe('settled');
      played.push({ roundId: round.roundId, amount, actions, final: round });
    }
    // the run exercised the common actions (double included: an extra debit)
    const kinds = new Set(played.flatMap((p) => p.actions));
    for (const a of ['hit', 'stand', 'double']) expect(kinds).toContain(a);

    const rotated = await ok(post(t, '/api/fairness/rotate', { sessionId }));
    for (const p of played) {
      const stored = await ok(t.app.inject({ method: 'GET', url: `/api/bets/${p.roundId}` }));
      expect(stored.fairness.serverSeed).toBe(rotated.previousServerSeed);
      const verified = await ok(
        post(t, '/api/verify', {
          gameType: 'blackjack',
          serverSeed: rotated.previousServerSeed,
          serverSeedHash: stored.fairness.serverSeedHash,
          clientSeed: stored.fairness.clientSeed,
          nonce: stored.fairness.nonce,
          amount: p.amount,
          params: { actions: p.actions },
        }),
      );
      expect(verified.payout).toBe(stored.bet.payout);
      expect(verified.multiplier).toBe(stored.bet.multiplier);
      expect(verified.won).toBe(stored.bet.won);
      expect(verified.totalStaked).toBe(stored.bet.totalStaked);
      expect(verified.result).toEqual(stored.result);
      expect(stored.result).toEqual(p.final.result);
      // the money the demo casino moved: the stakes debited, the payout credited once
      const ledger = await demoLedger(t, p.roundId);
      expect(ledger.filter((l) => l.operation === 'credit').map((l) => l.amount)).toEqual([Math.round(stored.bet.payout * 100)]);
      expect(ledger.filter((l) => l.operation === 'debit').reduce((a, l) => a + l.amount, 0)).toBe(Math.round(stored.bet.totalStaked * 100));
    }
  });
});
