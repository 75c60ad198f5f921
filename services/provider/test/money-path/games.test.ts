/**
 * SPEC.md "Round / bet", endpoint rules 1 and 8, CONTRACT.md §4 and §12: the four single-request
 * games settle end to end against an HTTP casino (one debit, one credit, amount 0 for a loss),
 * and GET /api/bets/{roundId} shows the round with its callback trail and no secret.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { secretOf, startWorld, type Player, type World } from '../helpers/casino.js';

let w: World;
let p: Player;
beforeAll(async () => {
  w = await startWorld([{ operatorId: 'op-games', minBet: 0.1, stakeStep: 0.01, maxPayout: 100_000 }]);
  p = await w.player('games-1', { balance: '1000' });
});
afterAll(async () => w?.close());

type Audit = {
  method: string;
  path: string;
  url: string;
  idempotencyKey: string;
  attemptCount: number;
  requestBody: Record<string, unknown>;
  responseBody: Record<string, unknown>;
  statusCode: number;
  callbackStatus: string;
  errorMessage: string | null;
  createdAt: string;
};

const cases: [string, Record<string, unknown>, string[]][] = [
  ['dice', { target: 50.5, direction: 'over' }, ['roll', 'target', 'direction', 'winChance']],
  ['limbo', { target: 2.5 }, ['result', 'target']],
  ['plinko', { rows: 12, risk: 'medium' }, ['rows', 'risk', 'path', 'bin']],
  ['keno', { picks: [3, 7, 11, 19, 23, 31, 40], risk: 'high' }, ['picks', 'drawn', 'hits', 'risk']],
];

describe('a settled bet of each game', () => {
  it.each(cases)('%s: one debit of the stake, one credit of the payout, the latest casino balance', async (gameType, params, resultFields) => {
    const before = w.balance(p);
    const res = await w.bet(p, gameType, 2.5, params);
    expect(res.status, res.text).toBe(200);
    const bet = res.body as {
      roundId: string;
      roundStatus: string;
      bet: Record<string, unknown>;
      result: Record<string, unknown>;
      fairness: Record<string, unknown>;
      casinoTransactions: Record<string, unknown>;
      balance: number;
    };
    expect(bet.roundStatus).toBe('settled');
    expect(bet.bet).toMatchObject({ gameType, amount: 2.5, currency: 'USD', params, operatorId: 'op-games', playerRef: p.playerRef });
    expect(Object.keys(bet.result).sort()).toEqual([...resultFields].sort());
    expect(bet.fairness).toMatchObject({ clientSeed: expect.any(String), nonce: expect.any(Number), serverSeedHash: expect.stringMatching(/^[0-9a-f]{64}$/) });
    expect(bet.fairness).not.toHaveProperty('serverSeed');

    const ledger = w.ledger(bet.roundId);
    expect(ledger.map((tx) => [tx.type, tx.idempotencyKey])).toEqual([
      ['debit', `${bet.roundId}:debit`],
      ['credit', `${bet.roundId}:credit`],
    ]);
    const [debit, credit] = ledger;
    expect(debit!.amount).toBe(250n);
    const payout = Math.round((bet.bet.payout as number) * 100);
    expect(credit!.amount).toBe(BigInt(payout));
    expect(bet.casinoTransactions).toEqual({ debit: debit!.casinoTransactionId, credit: credit!.casinoTransactionId, rollback: null, extraDebits: [] });
    expect(bet.bet.won).toBe(payout > 250);
    expect(w.balance(p)).toBe(before - 250n + BigInt(payout));
    expect(BigInt(Math.round(bet.balance * 100))).toBe(w.balance(p));
    const stored = await w.dbRound(bet.roundId);
    expect(stored).toMatchObject({ status: 'settled', amount: '250', payout: String(payout) });
  });

  it('a losing bet is closed by a credit of amount 0', async () => {
    // limbo 1000000× is (almost) never reached; a cheap stake keeps it under maxPayout
    let lost: { roundId: string } | undefined;
    for (let i = 0; i < 5 && !lost; i++) {
      const res = await w.bet(p, 'limbo', 0.1, { target: 900_000 });
      expect(res.status, res.text).toBe(200);
      if (res.body.bet && (res.body.bet as { payout: number }).payout === 0) lost = res.body as { roundId: string };
    }
    expect(lost).toBeDefined();
    const credit = w.ledger(lost!.roundId).find((tx) => tx.type === 'credit');
    expect(credit).toMatchObject({ amount: 0n, idempotencyKey: `${lost!.roundId}:credit` });
    const stored = (await w.round(lost!.roundId)).body as { roundStatus: string; bet: { multiplier: number; won: boolean } };
    expect(stored).toMatchObject({ roundStatus: 'settled', bet: { multiplier: 0, won: false } });
  });
});

describe('GET /api/bets/{roundId}', () => {
  it('shows the stored round, its fairness proof, the casino references and one audit record per callback key', async () => {
    const placed = await w.bet(p, 'keno', 1, { picks: [1, 2, 3], risk: 'classic' });
    const roundId = placed.body.roundId!;
    const res = await w.round(roundId);
    expect(res.status).toBe(200);
    const body = res.body as Record<string, unknown> & { casinoCallbackAudit: Audit[] };
    const { balance: _b, ...placedWithoutBalance } = placed.body as Record<string, unknown>;
    expect(body).toMatchObject({ ...placedWithoutBalance, bet: { ...(placed.body.bet as object), settledAt: expect.any(String) } });
    expect(body).not.toHaveProperty('balance');
    const audit = body.casinoCallbackAudit;
    expect(audit.map((a) => a.idempotencyKey)).toEqual([`${roundId}:debit`, `${roundId}:credit`]);
    for (const a of audit) {
      expect(a).toMatchObject({ method: 'POST', attemptCount: 1, statusCode: 200, callbackStatus: 'succeeded', errorMessage: null });
      expect(a.url).toBe(`${w.casino.url}${a.path}`);
      expect(a.requestBody).toMatchObject({ operatorId: 'op-games', playerRef: p.playerRef, roundId, currency: 'USD' });
      expect(a.responseBody).toMatchObject({ casinoTransactionId: expect.any(String), currency: 'USD' });
    }
    expect(audit[0]!.requestBody.launchToken).toBe('[redacted]');
  });

  it('never shows the launch token, the operator secret or a signature', async () => {
    const placed = await w.bet(p, 'plinko', 1, { rows: 16, risk: 'expert' });
    const res = await w.round(placed.body.roundId!);
    expect(res.text).not.toContain(p.launchToken);
    expect(res.text).not.toContain(secretOf('op-games'));
    expect(res.text.toLowerCase()).not.toContain('signature');
    expect(res.text.toLowerCase()).not.toContain('nonce":"');
    expect(placed.text).not.toContain(p.launchToken);
  });

  it('an unknown round is a 400 ROUND_NOT_FOUND; an id over 200 characters a VALIDATION_ERROR', async () => {
    const unknown = await w.round('00000000-0000-4000-8000-000000000000');
    expect(unknown.status).toBe(400);
    expect(unknown.body.code).toBe('ROUND_NOT_FOUND');
    expect((await w.round('x'.repeat(200))).body.code).toBe('ROUND_NOT_FOUND');
    expect((await w.round('x'.repeat(201))).body.code).toBe('VALIDATION_ERROR');
  });
});
