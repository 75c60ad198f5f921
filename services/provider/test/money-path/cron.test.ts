/**
 * SPEC.md "Pending retries", endpoint rule 9, "Authentication" 5, "Limits" (cron limit 1..100);
 * CONTRACT.md §1, §12 and §13: GET /api/cron/wallet-retries and the retries a new session starts.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PAID, openRound } from '../../src/rounds/money-path/opening.js';
import { operatorFor } from '../../src/rounds/money-path/callbacks.js';
import { exactBody } from '../../src/rounds/money-path/callback-bytes.js';
import { httpTransport } from '../../src/wallet/wallet-client.js';
import { ADMIN_TOKEN, adminHeaders, createTestApp, type TestApp } from '../helpers/app.js';
import { secretOf, startWorld, type Player, type World } from '../helpers/casino.js';

let w: World;
let a1: Player;
let a2: Player;
let b1: Player;
beforeAll(async () => {
  w = await startWorld([{ operatorId: 'op-a' }, { operatorId: 'op-b' }]);
  a1 = await w.player('cron-a1', { operatorId: 'op-a' });
  a2 = await w.player('cron-a2', { operatorId: 'op-a' });
  b1 = await w.player('cron-b1', { operatorId: 'op-b' });
});
afterAll(async () => w?.close());

type Summary = { scanned: number; retried: number; succeeded: number; stillPending: number; items: { roundId: string; operation: string; outcome: string }[] };
const summary = (res: { body: unknown }) => res.body as Summary;
const idsOf = (s: Summary) => s.items.map((i) => i.roundId).sort();

/** A settled result whose credit the casino did not confirm: credit_pending. */
async function pendingCredit(pl: Player): Promise<string> {
  w.casino.setFaults([{ path: '/wallet/credit', kind: 'status', status: 503, times: 2 }]);
  const res = await w.bet(pl, 'dice', 1, { target: 50, direction: 'over' });
  w.casino.clearFaults();
  expect(res.body.roundStatus, res.text).toBe('credit_pending');
  return res.body.roundId!;
}

/** A failed settlement whose rollback the casino did not confirm: rollback_pending. */
async function pendingRollback(pl: Player): Promise<string> {
  w.casino.setFaults([{ path: '/wallet/rollback', kind: 'status', status: 503, times: 2 }]);
  const res = await w.bet(pl, 'dice', 1, { target: 99, direction: 'over' });
  w.casino.clearFaults();
  expect(res.body.roundStatus, res.text).toBe('rollback_pending');
  return res.body.roundId!;
}

describe('the cron route is protected by CRON_SECRET', () => {
  it('answers 401 UNAUTHORIZED without a bearer token, with a wrong one, and with the admin token', async () => {
    for (const bearer of ['', 'wrong-secret-0123456789', ADMIN_TOKEN]) {
      const res = await w.cron('', bearer);
      expect(res.status).toBe(401);
      expect(res.body.code).toBe('UNAUTHORIZED');
    }
  });

  it('limit is an integer 1..100', async () => {
    for (const limit of ['0', '101', '-1', '2.5', 'many']) {
      const res = await w.cron(`limit=${limit}`);
      expect(res.status, limit).toBe(400);
      expect(res.body.code).toBe('VALIDATION_ERROR');
    }
    for (const limit of ['1', '100']) expect((await w.cron(`limit=${limit}`)).status).toBe(200);
  });

  it('answers the summary of CONTRACT.md §12 when nothing is pending', async () => {
    const res = await w.cron();
    expect(res.body).toEqual({ scanned: 0, retried: 0, succeeded: 0, stillPending: 0, items: [] });
  });
});

describe('what one call retries', () => {
  it('is scoped by operatorId and playerRef, and retries credits and rollbacks with their original keys', async () => {
    const ra1 = await pendingCredit(a1);
    const ra2 = await pendingRollback(a2);
    const rb1 = await pendingCredit(b1);

    const onlyB = summary(await w.cron('operatorId=op-b'));
    expect(onlyB.items).toEqual([{ roundId: rb1, operation: 'credit', outcome: 'succeeded' }]);
    expect(onlyB).toMatchObject({ scanned: 1, retried: 1, succeeded: 1, stillPending: 0 });

    const onlyA2 = summary(await w.cron('operatorId=op-a&playerRef=cron-a2'));
    expect(onlyA2.items).toEqual([{ roundId: ra2, operation: 'rollback', outcome: 'succeeded' }]);
    expect(await w.dbRound(ra1)).toMatchObject({ status: 'credit_pending' });

    const byPlayer = summary(await w.cron('playerRef=cron-a1'));
    expect(byPlayer.items).toEqual([{ roundId: ra1, operation: 'credit', outcome: 'succeeded' }]);

    expect(await w.dbRound(ra1)).toMatchObject({ status: 'settled' });
    expect(await w.dbRound(ra2)).toMatchObject({ status: 'cancelled' });
    expect(await w.dbRound(rb1)).toMatchObject({ status: 'settled' });
    expect(w.requestsOf(`${ra1}:credit`).map((r) => r.status)).toEqual([503, 503, 200]);
    expect(w.requestsOf(`${ra2}:debit:rollback`).map((r) => r.status)).toEqual([503, 503, 200]);
  });

  it('a round the casino still does not confirm stays pending and is reported so', async () => {
    const r = await pendingCredit(a1);
    w.casino.setFaults([{ path: '/wallet/credit', kind: 'drop', times: 2 }]);
    const first = summary(await w.cron('operatorId=op-a'));
    w.casino.clearFaults();
    expect(first.items).toEqual([{ roundId: r, operation: 'credit', outcome: 'pending' }]);
    expect(first).toMatchObject({ scanned: 1, retried: 1, succeeded: 0, stillPending: 1 });
    expect(summary(await w.cron('operatorId=op-a')).items).toEqual([{ roundId: r, operation: 'credit', outcome: 'succeeded' }]);
  });

  it('limit caps the rounds one call claims', async () => {
    const ids = [await pendingCredit(a1), await pendingCredit(a2), await pendingCredit(b1)];
    const first = summary(await w.cron('limit=2'));
    expect(first.scanned).toBe(2);
    const second = summary(await w.cron('limit=2'));
    expect(second.scanned).toBe(1);
    expect([...idsOf(first), ...idsOf(second)].sort()).toEqual([...ids].sort());
  });

  it('a debit whose worker stopped (debit_requested past its lease) is rolled back; the casino then refuses that debit if it arrives', async () => {
    const deps = w.t.services.money;
    const session = await deps.sessions.get(deps.db, a1.sessionId);
    const operator = await operatorFor(deps, 'op-a');
    const opened = await openRound(
      deps,
      { session, operator, gameType: 'dice', amount: 100n, params: { target: 50, direction: 'over' }, clientSeed: undefined },
      { claim: null, funding: PAID },
    );
    const roundId = opened.round.roundId;
    // not yet: its lease runs
    expect(idsOf(summary(await w.cron()))).not.toContain(roundId);
    await deps
      .db('rounds')
      .where({ round_id: roundId })
      .update({ lease_until: new Date(Date.now() - 1000) });
    const res = summary(await w.cron());
    expect(res.items).toEqual([{ roundId, operation: 'rollback', outcome: 'succeeded' }]);
    expect(await w.dbRound(roundId)).toMatchObject({ status: 'cancelled' });
    // the unanswered debit is recorded the same way as a Blackjack extra debit left by a stopped worker (one rule, money-path/extra-debits.ts)
    expect(
      await deps
        .db('wallet_callbacks')
        .where({ idempotency_key: `${roundId}:debit` })
        .first(),
    ).toMatchObject({ callback_status: 'failed', error_code: 'CASINO_TIMEOUT' });
    expect(w.ledger(roundId).map((tx) => [tx.type, tx.amount])).toEqual([['rollback', 0n]]);
    // the debit the dead worker never sent arrives now: refused
    const late = await deps.wallet.call(operator, '/wallet/debit', exactBody(deps.box, opened.debit!), opened.debit!.idempotencyKey);
    expect(late).toMatchObject({ kind: 'refused', statusCode: 400, casinoCode: 'DEBIT_ROLLED_BACK' });
    expect(w.ledger(roundId).map((tx) => tx.type)).toEqual(['rollback']);
  });
});

describe('duplicate invocations are safe (endpoint rule 9)', () => {
  it('three cron calls at once never retry the same round twice', async () => {
    const players = [a1, a2, b1];
    const ids: string[] = [];
    for (let i = 0; i < 8; i++) ids.push(await pendingCredit(players[i % 3]!));
    w.casino.clearRequests();
    const calls = await Promise.all([w.cron('limit=3'), w.cron('limit=3'), w.cron('limit=3')]);
    for (const c of calls) expect(c.status).toBe(200);
    const retried = calls.flatMap((c) => idsOf(summary(c)));
    expect(new Set(retried).size).toBe(retried.length);
    // whatever the first three did not claim, one more call finishes
    await w.cron('limit=100');
    for (const id of ids) {
      expect(w.requestsOf(`${id}:credit`), id).toHaveLength(1);
      expect(w.ledger(id).filter((tx) => tx.type === 'credit')).toHaveLength(1);
      expect(await w.dbRound(id)).toMatchObject({ status: 'settled' });
    }
  });
});

describe('a new session of the player also runs its retries', () => {
  it("retries that player's pending credits and rollbacks in the background, and nobody else's", async () => {
    const credit = await pendingCredit(a1);
    const rollback = await pendingRollback(a1);
    const other = await pendingCredit(a2);
    await w.newSession(a1);
    await Promise.all([...w.t.services.background]);
    expect(await w.dbRound(credit)).toMatchObject({ status: 'settled' });
    expect(await w.dbRound(rollback)).toMatchObject({ status: 'cancelled' });
    expect(await w.dbRound(other)).toMatchObject({ status: 'credit_pending' });
    expect(w.requestsOf(`${credit}:credit`).map((r) => r.status)).toEqual([503, 503, 200]);
    await w.cron();
  });
});

describe('in production (NODE_ENV=production)', () => {
  // The test casino listens on loopback, which production refuses to call (test/security/callback-address.test.ts):
  // these production apps get the development transport.
  const loopbackTransport = () => httpTransport({ production: false });
  let prod: TestApp | undefined;
  afterAll(async () => prod?.close());
  const prodCron = (app: TestApp, query = '') =>
    app.app.inject({
      method: 'GET',
      url: `/api/cron/wallet-retries${query ? `?${query}` : ''}`,
      headers: { authorization: 'Bearer test-cron-secret-0123456789' },
    });

  it('a call without operatorId and without READINESS_OPERATOR_ID is WALLET_RETRY_OPERATOR_REQUIRED; with operatorId it runs for that operator', async () => {
    const ra = await pendingCredit(a1);
    const rb = await pendingCredit(b1);
    prod = await createTestApp({ databaseUrl: w.t.config.databaseUrl, env: { NODE_ENV: 'production' }, httpTransport: loopbackTransport() });
    const refused = await prodCron(prod);
    expect(refused.statusCode).toBe(400);
    expect(refused.json().code).toBe('WALLET_RETRY_OPERATOR_REQUIRED');
    expect(await w.dbRound(ra)).toMatchObject({ status: 'credit_pending' });
    const scoped = await prodCron(prod, 'operatorId=op-b');
    expect(scoped.json().items).toEqual([{ roundId: rb, operation: 'credit', outcome: 'succeeded' }]);
    expect(await w.dbRound(ra)).toMatchObject({ status: 'credit_pending' });
    await prod.close();
    prod = undefined;
    await w.cron();
  });

  it('without operatorId the call is scoped to READINESS_OPERATOR_ID, not to every operator', async () => {
    const ra = await pendingCredit(a2);
    const rb = await pendingCredit(b1);
    prod = await createTestApp({
      databaseUrl: w.t.config.databaseUrl,
      env: { NODE_ENV: 'production', READINESS_OPERATOR_ID: 'op-a' },
      httpTransport: loopbackTransport(),
    });
    const res = await prodCron(prod);
    expect(res.statusCode).toBe(200);
    expect(res.json().items).toEqual([{ roundId: ra, operation: 'credit', outcome: 'succeeded' }]);
    expect(await w.dbRound(rb)).toMatchObject({ status: 'credit_pending' });
    expect((await prodCron(prod, 'operatorId=op-b')).json().items).toEqual([{ roundId: rb, operation: 'credit', outcome: 'succeeded' }]);
    expect((await prod.app.inject({ method: 'GET', url: '/api/cron/wallet-retries' })).statusCode).toBe(401);
  });

  it('production accepts only https:// callback bases', async () => {
    const app = prod!;
    const profile = { currency: 'USD', sharedSecret: secretOf('op-x'), minBet: 0.1, stakeStep: 0.01, maxPayout: 100 };
    const http = await app.app.inject({
      method: 'PUT',
      url: '/api/admin/operators/op-x',
      headers: adminHeaders,
      payload: { ...profile, callbackBaseUrl: 'http://casino.example' },
    });
    expect(http.statusCode).toBe(400);
    expect(http.json().code).toBe('VALIDATION_ERROR');
    const https = await app.app.inject({
      method: 'PUT',
      url: '/api/admin/operators/op-x',
      headers: adminHeaders,
      payload: { ...profile, callbackBaseUrl: 'https://casino.example/wallet-api' },
    });
    expect(https.statusCode).toBe(201);
  });
});
