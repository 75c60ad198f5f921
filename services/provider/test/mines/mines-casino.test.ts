/**
 * Mines against a real HTTP casino (the reference casino, which checks our signatures): the
 * casino's ledger holds exactly one debit and one credit per round (credit 0 on a bust), also
 * with two app instances racing on one round, a failing credit, the maxPayout cap and the
 * abandoned-round sweep (SPEC.md endpoint rule 5, CONTRACT.md §10, §11, §13).
 */
import { startReferenceCasino, type ReferenceCasino } from '@gp/reference-casino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { creditKey, debitKey } from '../../src/rounds/money-path/callbacks.js';
import { createTestApp, type TestApp } from '../helpers/app.js';
import { callbacksOf, cashout, casinoOperator, casinoSession, cron, get, key, minesOf, reveal, safeTilesOf, startOk, statusOf } from './helpers.js';

const OP = 'op-mines';
const OP_CAP = 'op-mines-cap';
const SECRET = 'mines-casino-secret-0123456789';
const SECRET_CAP = 'mines-capped-secret-0123456789';

let casino: ReferenceCasino;
let t: TestApp;
let t2: TestApp;
beforeAll(async () => {
  casino = await startReferenceCasino({
    operators: { [OP]: { secret: SECRET, currency: 'USD', decimals: 2 }, [OP_CAP]: { secret: SECRET_CAP, currency: 'USD', decimals: 2 } },
  });
  t = await createTestApp();
  // A second pod: same database, same Redis (same key prefix, so the same round locks).
  t2 = await createTestApp({ databaseUrl: t.config.databaseUrl, redisKeyPrefix: t.config.redisKeyPrefix });
  await casinoOperator(t, casino, OP, SECRET, { maxPayout: 1000 });
  await casinoOperator(t, casino, OP_CAP, SECRET_CAP, { maxPayout: 5 });
});
afterAll(async () => {
  await t2?.close();
  await t?.close();
  await casino?.close();
});

/** The casino's own record of a round: `type:amount` in minor units. */
const ledgerOf = (roundId: string) =>
  casino
    .transactions()
    .filter((x) => x.roundId === roundId)
    .map((x) => `${x.type}:${x.amount}`);

describe('end to end over HTTP', () => {
  it('start → reveal → cashout: the casino books one debit and one credit', async () => {
    const s = await casinoSession(t, casino, OP, 'c-happy');
    const started = await startOk(t, s, { amount: 10, mineCount: 3 });
    expect(started).toMatchObject({ roundStatus: 'active', balance: 90 });
    const [a] = await safeTilesOf(t, started.roundId);
    expect((await reveal(t, s, started.roundId, a!)).json()).toMatchObject({ roundStatus: 'active', result: { revealed: [a], multiplier: 1.125 } });
    expect(ledgerOf(started.roundId)).toEqual(['debit:1000']);
    const final = (await cashout(t, s, started.roundId)).json();
    expect(final).toMatchObject({ roundStatus: 'cashed_out', balance: 101.25, bet: { payout: 11.25, multiplier: 1.125 } });
    expect(ledgerOf(started.roundId)).toEqual(['debit:1000', 'credit:1125']);
    expect(casino.balanceOf('c-happy', 'USD')).toBe(10_125n);
    const keys = casino
      .transactions()
      .filter((x) => x.roundId === started.roundId)
      .map((x) => x.idempotencyKey);
    expect(keys).toEqual([debitKey(started.roundId), creditKey(started.roundId)]);
    expect(final.casinoTransactions.credit).toBe(casino.transactions().find((x) => x.idempotencyKey === creditKey(started.roundId))?.casinoTransactionId);
  });

  it('start → a mine: the casino books one debit and one credit of 0', async () => {
    const s = await casinoSession(t, casino, OP, 'c-bust');
    const { roundId } = await startOk(t, s, { amount: 5, mineCount: 12 });
    const final = (await reveal(t, s, roundId, (await minesOf(t, roundId))[0]!)).json();
    expect(final).toMatchObject({ roundStatus: 'busted', balance: 95, bet: { payout: 0, multiplier: 0 } });
    expect(ledgerOf(roundId)).toEqual(['debit:500', 'credit:0']);
  });

  it('a refused debit (INSUFFICIENT_FUNDS) ends the round `error` and frees the player for a new round', async () => {
    const s = await casinoSession(t, casino, OP, 'c-poor');
    const res = await t.app.inject({ method: 'POST', url: '/api/mines/rounds', payload: { sessionId: s, amount: 500, idempotencyKey: key() } });
    expect(res.json()).toMatchObject({ code: 'INSUFFICIENT_FUNDS', roundStatus: 'error' });
    expect(await statusOf(t, res.json().roundId)).toBe('error');
    expect((await get(t, `/api/mines/rounds/active?sessionId=${s}`)).json()).toEqual({ round: null });
    expect((await startOk(t, s, { amount: 1 })).roundStatus).toBe('active');
  });
});

describe('a debit the casino does not confirm', () => {
  it('an ambiguous start debit is rolled back: the error carries the round (cancelled), the key replays it, the player may start again', async () => {
    const s = await casinoSession(t, casino, OP, 'c-debit-fault');
    casino.setFaults([{ path: '/wallet/debit', kind: 'status', status: 503 }]);
    const k = key('start');
    let failed;
    try {
      failed = await t.app.inject({ method: 'POST', url: '/api/mines/rounds', payload: { sessionId: s, amount: 3, idempotencyKey: k } });
    } finally {
      casino.clearFaults();
    }
    expect(failed.statusCode).toBe(502);
    expect(failed.json()).toMatchObject({ code: 'CASINO_HTTP_RETRYABLE', roundStatus: 'cancelled' });
    const roundId: string = failed.json().roundId;
    expect(ledgerOf(roundId)).toEqual(['rollback:0']);
    const replay = await t.app.inject({ method: 'POST', url: '/api/mines/rounds', payload: { sessionId: s, amount: 3, idempotencyKey: k } });
    expect(replay.json()).toMatchObject({ code: 'CASINO_HTTP_RETRYABLE', roundId, roundStatus: 'cancelled' });
    expect(casino.balanceOf('c-debit-fault', 'USD')).toBe(10_000n);
    expect((await startOk(t, s, { amount: 3 })).roundStatus).toBe('active');
  });
});

describe('maxPayout (CONTRACT.md §10): Mines caps instead of refusing', () => {
  it('a bet whose best payout passes maxPayout is accepted; the reveal that reaches it cashes out with payout = maxPayout', async () => {
    const s = await casinoSession(t, casino, OP_CAP, 'c-cap');
    // 20 mines: 4.95× after one safe tile, 29.7× after two; maxPayout is 5.00
    const { roundId } = await startOk(t, s, { amount: 1, mineCount: 20 });
    const [a, b] = await safeTilesOf(t, roundId);
    expect((await reveal(t, s, roundId, a!)).json()).toMatchObject({ roundStatus: 'active', result: { multiplier: 4.95, nextMultiplier: 29.7 } });
    const capped = (await reveal(t, s, roundId, b!)).json();
    expect(capped.roundStatus).toBe('cashed_out');
    expect(capped.bet).toMatchObject({ payout: 5, multiplier: 5, won: true });
    expect(capped.result).toMatchObject({ revealed: [a, b], multiplier: 29.7, nextMultiplier: null });
    expect(ledgerOf(roundId)).toEqual(['debit:100', 'credit:500']);
  });
});

describe('two pods racing on one round', () => {
  it('concurrent cashouts with different keys: one cashes out, the other is ROUND_NOT_ACTIVE; one credit', async () => {
    const s = await casinoSession(t, casino, OP, 'c-race-cashout');
    const { roundId } = await startOk(t, s, { amount: 2 });
    await reveal(t, s, roundId, (await safeTilesOf(t, roundId))[0]!);
    const answers = await Promise.all([cashout(t, s, roundId), cashout(t2, s, roundId)]);
    const codes = answers.map((r) => (r.statusCode === 200 ? r.json().roundStatus : r.json().code)).sort();
    expect(codes).toEqual(['ROUND_NOT_ACTIVE', 'cashed_out']);
    expect(ledgerOf(roundId)).toEqual(['debit:200', 'credit:225']);
    expect(await callbacksOf(t, roundId)).toEqual(['debit:200', 'credit:225']);
  });

  it('the same cashout key on both pods: one credit, both answer the same final bet', async () => {
    const s = await casinoSession(t, casino, OP, 'c-race-same-key');
    const { roundId } = await startOk(t, s, { amount: 2 });
    await reveal(t, s, roundId, (await safeTilesOf(t, roundId))[0]!);
    const k = key('cashout');
    const [x, y] = await Promise.all([cashout(t, s, roundId, k), cashout(t2, s, roundId, k)]);
    expect(x.statusCode, x.body).toBe(200);
    expect(y.statusCode, y.body).toBe(200);
    const strip = (b: Record<string, unknown>) => ({ ...b, balance: undefined });
    expect(strip(y.json())).toEqual(strip(x.json()));
    expect(x.json().roundStatus).toBe('cashed_out');
    expect(ledgerOf(roundId)).toEqual(['debit:200', 'credit:225']);
  });

  it('concurrent reveals of one tile: one reveals it, the other is TILE_ALREADY_REVEALED', async () => {
    const s = await casinoSession(t, casino, OP, 'c-race-reveal');
    const { roundId } = await startOk(t, s, { amount: 1 });
    const [a] = await safeTilesOf(t, roundId);
    const answers = await Promise.all([reveal(t, s, roundId, a!), reveal(t2, s, roundId, a!)]);
    const codes = answers.map((r) => (r.statusCode === 200 ? r.json().roundStatus : r.json().code)).sort();
    expect(codes).toEqual(['TILE_ALREADY_REVEALED', 'active']);
    const row = await t.services.db('rounds').where({ round_id: roundId }).first();
    expect(row.state.revealed).toEqual([a]);
    expect(row.version).toBe(1);
  });

  it('a reveal of a mine racing a cashout: exactly one of them closes the round, with one credit', async () => {
    const s = await casinoSession(t, casino, OP, 'c-race-mixed');
    const { roundId } = await startOk(t, s, { amount: 1 });
    await reveal(t, s, roundId, (await safeTilesOf(t, roundId))[0]!);
    const mine = (await minesOf(t, roundId))[0]!;
    const answers = await Promise.all([reveal(t, s, roundId, mine), cashout(t2, s, roundId)]);
    const ok = answers.filter((r) => r.statusCode === 200);
    expect(ok).toHaveLength(1);
    expect(answers.find((r) => r.statusCode !== 200)!.json().code).toBe('ROUND_NOT_ACTIVE');
    const status = await statusOf(t, roundId);
    expect(ok[0]!.json().roundStatus).toBe(status);
    expect(ledgerOf(roundId)).toEqual(['debit:100', status === 'busted' ? 'credit:0' : 'credit:112']);
  });

  it('without a shared lock (pods on different Redis prefixes), the version check alone keeps it to one credit', async () => {
    const loose = await createTestApp({ databaseUrl: t.config.databaseUrl });
    try {
      const s = await casinoSession(t, casino, OP, 'c-race-nolock');
      const { roundId } = await startOk(t, s, { amount: 2 });
      await reveal(t, s, roundId, (await safeTilesOf(t, roundId))[0]!);
      const answers = await Promise.all([cashout(t, s, roundId), cashout(loose, s, roundId), cashout(t2, s, roundId)]);
      expect(answers.filter((r) => r.statusCode === 200)).toHaveLength(1);
      for (const r of answers.filter((x) => x.statusCode !== 200)) expect(r.json().code).toBe('ROUND_NOT_ACTIVE');
      expect(ledgerOf(roundId)).toEqual(['debit:200', 'credit:225']);
    } finally {
      await loose.close();
    }
  });

  it('without a shared lock, concurrent reveals of different tiles never lose one: the state holds exactly the answered ones', async () => {
    const pods = [t, await createTestApp({ databaseUrl: t.config.databaseUrl }), await createTestApp({ databaseUrl: t.config.databaseUrl })];
    try {
      const s = await casinoSession(t, casino, OP, 'c-race-nolock-reveal');
      const { roundId } = await startOk(t, s, { amount: 1, mineCount: 1 });
      const tiles = (await safeTilesOf(t, roundId)).slice(0, 3);
      const answers = await Promise.all(tiles.map((tile, i) => reveal(pods[i]!, s, roundId, tile)));
      const revealed = tiles.filter((_, i) => answers[i]!.statusCode === 200);
      for (const r of answers.filter((x) => x.statusCode !== 200)) expect(r.json().code).toBe('ROUND_NOT_ACTIVE');
      expect(revealed.length).toBeGreaterThanOrEqual(1);
      const row = await t.services.db('rounds').where({ round_id: roundId }).first();
      expect([...row.state.revealed].sort()).toEqual([...revealed].sort());
      expect(row.version).toBe(revealed.length);
    } finally {
      await pods[1]!.close();
      await pods[2]!.close();
    }
  });
});

describe('a credit the casino does not confirm', () => {
  it('cashout answers credit_pending; the cron retries the same credit key and the round ends cashed_out', async () => {
    const s = await casinoSession(t, casino, OP, 'c-credit-fault');
    const { roundId } = await startOk(t, s, { amount: 4 });
    await reveal(t, s, roundId, (await safeTilesOf(t, roundId))[0]!);
    casino.setFaults([{ path: '/wallet/credit', kind: 'status', status: 503 }]);
    const cashoutKey = key('cashout');
    let pending;
    try {
      pending = await cashout(t, s, roundId, cashoutKey);
      expect(pending.statusCode, pending.body).toBe(200);
      expect(pending.json()).toMatchObject({ roundStatus: 'credit_pending', bet: { payout: 4.5, multiplier: 1.125 } });
      expect(pending.json().result.mines).toEqual(await minesOf(t, roundId));
      expect(ledgerOf(roundId)).toEqual(['debit:400']);
      // the same key replays; a new one finds the round closed; nothing is credited meanwhile
      expect((await cashout(t, s, roundId, cashoutKey)).json()).toEqual(pending.json());
      expect((await cashout(t, s, roundId)).json().code).toBe('ROUND_NOT_ACTIVE');
      expect((await get(t, `/api/mines/rounds/active?sessionId=${s}`)).json()).toEqual({ round: null });
    } finally {
      casino.clearFaults();
    }
    const run = await cron(t, OP);
    expect(run.statusCode, run.body).toBe(200);
    expect(run.json().items).toContainEqual({ roundId, operation: 'credit', outcome: 'succeeded' });
    expect(await statusOf(t, roundId)).toBe('cashed_out');
    expect(ledgerOf(roundId)).toEqual(['debit:400', 'credit:450']);
    const credits = casino.requests().filter((r) => r.path === '/wallet/credit' && r.idempotencyKey === creditKey(roundId));
    expect(credits.length).toBe(3); // two attempts at cashout, one from the cron: always the same key
    // the cashout key now answers the final round
    const replay = (await cashout(t, s, roundId, cashoutKey)).json();
    expect(replay).toMatchObject({ roundId, roundStatus: 'cashed_out', bet: { payout: 4.5 } });
    const again = await cron(t, OP);
    expect(again.json().items.filter((i: { roundId: string }) => i.roundId === roundId)).toEqual([]);
    expect(ledgerOf(roundId)).toEqual(['debit:400', 'credit:450']);
  });

  it('a bust whose zero credit fails ends busted after the retry', async () => {
    const s = await casinoSession(t, casino, OP, 'c-bust-fault');
    const { roundId } = await startOk(t, s, { amount: 1 });
    casino.setFaults([{ path: '/wallet/credit', kind: 'drop' }]);
    try {
      const res = await reveal(t, s, roundId, (await minesOf(t, roundId))[0]!);
      expect(res.json()).toMatchObject({ roundStatus: 'credit_pending', bet: { payout: 0, multiplier: 0 } });
    } finally {
      casino.clearFaults();
    }
    await cron(t, OP);
    expect(await statusOf(t, roundId)).toBe('busted');
    expect(ledgerOf(roundId)).toEqual(['debit:100', 'credit:0']);
  });
});

describe('abandoned rounds (policy `cashout`, after 24 h idle by default)', () => {
  it('the cron cashes out an idle round with a revealed tile, and leaves an idle round with none open', async () => {
    const s1 = await casinoSession(t, casino, OP, 'c-abandoned-played');
    const played = await startOk(t, s1, { amount: 2, mineCount: 3 });
    const [a, b] = await safeTilesOf(t, played.roundId);
    await reveal(t, s1, played.roundId, a!);
    await reveal(t, s1, played.roundId, b!);
    const s2 = await casinoSession(t, casino, OP, 'c-abandoned-untouched');
    const untouched = await startOk(t, s2, { amount: 2 });
    const fresh = await casinoSession(t, casino, OP, 'c-abandoned-recent');
    const recent = await startOk(t, fresh, { amount: 2 });
    await reveal(t, fresh, recent.roundId, (await safeTilesOf(t, recent.roundId))[0]!);

    await t.services
      .db('rounds')
      .whereIn('round_id', [played.roundId, untouched.roundId])
      .update({ updated_at: t.services.db.raw("now() - interval '25 hours'") });
    const run = await cron(t, OP);
    expect(run.statusCode, run.body).toBe(200);
    expect(run.json().items).toContainEqual({ roundId: played.roundId, operation: 'credit', outcome: 'succeeded' });

    expect(await statusOf(t, played.roundId)).toBe('cashed_out');
    expect(ledgerOf(played.roundId)).toEqual(['debit:200', 'credit:257']);
    const view = (await get(t, `/api/mines/rounds/${played.roundId}?sessionId=${s1}`)).json();
    expect(view).toMatchObject({ roundStatus: 'cashed_out', bet: { payout: 2.57, multiplier: 1.2857 }, result: { revealed: [a, b] } });

    expect(await statusOf(t, untouched.roundId)).toBe('active');
    const kept = await t.services.db('rounds').where({ round_id: untouched.roundId }).first('updated_at');
    expect(Date.now() - new Date(kept.updated_at).getTime()).toBeLessThan(3_600_000); // not reclaimed until idle again
    expect(ledgerOf(untouched.roundId)).toEqual(['debit:200']);
    expect((await get(t, `/api/mines/rounds/active?sessionId=${s2}`)).json().round.roundId).toBe(untouched.roundId);
    expect(await statusOf(t, recent.roundId)).toBe('active');

    // a second run does not credit again
    await cron(t, OP);
    expect(ledgerOf(played.roundId)).toEqual(['debit:200', 'credit:257']);
  });
});
