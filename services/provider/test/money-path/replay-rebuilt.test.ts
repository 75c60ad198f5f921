/**
 * A settled bet's answer is not stored with its key (issue 25, the ninth session): the statement
 * that settles the round leaves the key's record as its claim, and a replay rebuilds the answer
 * from the round and its stored callbacks (bets.ts `betAnswer`). CONTRACT.md §13: the same key and
 * request answer what the first answered — these hold the rebuilt answer to the original. Identical
 * requests at once meet the rebuild too: endpoint-rules.test.ts "five identical requests at once".
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { newKey, startWorld, type Player, type World } from '../helpers/casino.js';

let w: World;
let p: Player;
beforeAll(async () => {
  w = await startWorld([{ operatorId: 'op-replay', minBet: 0.1, maxBet: 50, maxPayout: 5000 }]);
  p = await w.player('replay-1', { operatorId: 'op-replay', balance: '500' });
});
afterAll(async () => w?.close());

const record = async (key: string) =>
  (await w.t.services.db('idempotency_records').where({ idempotency_key: key }).select('state', 'response_body', 'round_id')) as {
    state: string;
    response_body: unknown;
    round_id: string;
  }[];

describe("a settled bet's replay rebuilds its answer", () => {
  it('the key keeps its claim only, and the replay answers exactly what the bet answered, balance included', async () => {
    const key = newKey('rebuilt');
    const first = await w.bet(p, 'dice', 1, { target: 50, direction: 'over' }, key);
    expect(first.status, first.text).toBe(200);
    expect(first.body.roundStatus).toBe('settled');
    expect(first.body.balance).toBeDefined();
    expect(await record(key)).toEqual([{ state: 'in_progress', response_body: null, round_id: first.body.roundId }]);
    const again = await w.bet(p, 'dice', 1, { target: 50, direction: 'over' }, key);
    expect(again.status, again.text).toBe(200);
    expect(again.body).toEqual(first.body);
    expect(w.requestsOf(`${first.body.roundId}:debit`)).toHaveLength(1);
    // the same key with another request is still a conflict
    expect((await w.bet(p, 'dice', 2, { target: 50, direction: 'over' }, key)).body.code).toBe('IDEMPOTENCY_CONFLICT');
  });

  it('after the seed pair is revealed the replay still answers as the bet did: no server seed', async () => {
    const key = newKey('rebuilt-revealed');
    const first = await w.bet(p, 'limbo', 1, { target: 2 }, key);
    expect(first.status, first.text).toBe(200);
    expect((first.body.fairness as Record<string, unknown>).serverSeed).toBeUndefined();
    const rotated = await w.call('POST', '/api/fairness/rotate', { sessionId: p.sessionId });
    expect(rotated.status, rotated.text).toBe(200);
    // the round's own view shows the seed once revealed; the bet's answer does not change
    expect(((await w.round(first.body.roundId!)).body.fairness as Record<string, unknown>).serverSeed).toBeDefined();
    const again = await w.bet(p, 'limbo', 1, { target: 2 }, key);
    expect(again.body).toEqual(first.body);
  });

  it("a credit answered without a balance: the answer carries the debit's, and so does the replay", async () => {
    const key = newKey('rebuilt-no-balance');
    w.casino.setFaults([{ path: '/wallet/credit', kind: 'huge', bytes: 200, applied: true, times: 1 }]);
    const first = await w.bet(p, 'dice', 1, { target: 50, direction: 'under' }, key);
    w.casino.clearFaults();
    expect(first.status, first.text).toBe(200);
    expect(first.body.roundStatus).toBe('settled');
    const debit = w.ledger(first.body.roundId!).find((tx) => tx.type === 'debit')!;
    expect(first.body.balance).toBeDefined();
    expect(Math.round(Number(first.body.balance) * 100)).toBe(Number(debit.balanceAfter)); // USD: 2 decimals
    const again = await w.bet(p, 'dice', 1, { target: 50, direction: 'under' }, key);
    expect(again.body).toEqual(first.body);
  });
});
