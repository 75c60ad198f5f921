/**
 * SPEC.md "Reconciliation rows", CONTRACT.md §6, §7, §12 and §13: GET /api/reconciliation for the
 * platform administrator and for casino backends signing with their operator secret (scoped to
 * that operator), and the signed GET /api/bets/{roundId}.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { adminHeaders } from '../helpers/app.js';
import { operatorSigned, startWorld, type Player, type World } from '../helpers/casino.js';

let w: World;
let r1: Player;
let r2: Player;
const rounds: { settled: string[]; cancelled: string; pending: string; other: string } = { settled: [], cancelled: '', pending: '', other: '' };

beforeAll(async () => {
  w = await startWorld([{ operatorId: 'op-r1' }, { operatorId: 'op-r2' }]);
  r1 = await w.player('recon-1', { operatorId: 'op-r1' });
  r2 = await w.player('recon-2', { operatorId: 'op-r2' });
  for (const [game, params] of [
    ['dice', { target: 50, direction: 'over' }],
    ['limbo', { target: 2 }],
    ['keno', { picks: [1, 2, 3] }],
  ] as const) {
    rounds.settled.push((await w.bet(r1, game, 1.25, params)).body.roundId!);
  }
  rounds.cancelled = (await w.bet(r1, 'dice', 2, { target: 99, direction: 'over' })).body.roundId!;
  w.casino.setFaults([{ path: '/wallet/credit', kind: 'status', status: 503, times: 2 }]);
  rounds.pending = (await w.bet(r1, 'plinko', 0.5, { rows: 8 })).body.roundId!;
  w.casino.clearFaults();
  rounds.other = (await w.bet(r2, 'dice', 3, { target: 50, direction: 'under' })).body.roundId!;
});
afterAll(async () => w?.close());

type Row = {
  type: string;
  roundId: string;
  operatorId: string;
  playerRef: string;
  gameType: string;
  amount: number;
  currency: string;
  casinoTransactionId: string | null;
  idempotencyKey: string;
  status: string;
  createdAt: string;
};
const rowsOf = (res: { body: unknown }) => (res.body as { rows: Row[] }).rows;
const signedGet = (operatorId: string, target: string, opts: Parameters<typeof operatorSigned>[3] = {}) =>
  w.call('GET', target, undefined, operatorSigned(operatorId, 'GET', target, opts));

describe('the platform administrator', () => {
  it("reads every operator's rows with the admin token; no token is 401 UNAUTHORIZED", async () => {
    const res = await w.call('GET', '/api/reconciliation?limit=500', undefined, adminHeaders);
    expect(res.status).toBe(200);
    const rows = rowsOf(res);
    expect(new Set(rows.map((r) => r.operatorId))).toEqual(new Set(['op-r1', 'op-r2']));
    expect(rows).toHaveLength(3 * 2 + 2 + 2 + 2);
    expect((res.body as { nextCursor: unknown }).nextCursor).toBeNull();
    const none = await w.call('GET', '/api/reconciliation');
    expect(none.status).toBe(401);
    expect(none.body.code).toBe('UNAUTHORIZED');
    expect((await w.call('GET', '/api/reconciliation', undefined, { authorization: 'Bearer wrong' })).body.code).toBe('UNAUTHORIZED');
  });

  it('a row per debit, credit and rollback, matching the casino ledger', async () => {
    const rows = rowsOf(await w.call('GET', '/api/reconciliation?operatorId=op-r1&limit=500', undefined, adminHeaders));
    const settled = rounds.settled[0]!;
    const ledger = w.ledger(settled);
    const debit = rows.find((r) => r.idempotencyKey === `${settled}:debit`)!;
    expect(debit).toEqual({
      type: 'debit',
      roundId: settled,
      operatorId: 'op-r1',
      playerRef: r1.playerRef,
      gameType: 'dice',
      amount: 1.25,
      currency: 'USD',
      casinoTransactionId: ledger[0]!.casinoTransactionId,
      idempotencyKey: `${settled}:debit`,
      status: 'succeeded',
      createdAt: expect.stringMatching(/Z$/),
    });
    const credit = rows.find((r) => r.idempotencyKey === `${settled}:credit`)!;
    expect(credit).toMatchObject({ type: 'credit', casinoTransactionId: ledger[1]!.casinoTransactionId, amount: Number(ledger[1]!.amount) / 100 });
    expect(rows.find((r) => r.idempotencyKey === `${rounds.cancelled}:debit:rollback`)).toMatchObject({ type: 'rollback', amount: 2, status: 'succeeded' });
    expect(rows.find((r) => r.idempotencyKey === `${rounds.pending}:credit`)).toMatchObject({
      type: 'credit_pending',
      status: 'pending',
      casinoTransactionId: null,
    });
  });

  it('filters by type', async () => {
    const rollbacks = rowsOf(await w.call('GET', '/api/reconciliation?type=rollback', undefined, adminHeaders));
    expect(rollbacks.map((r) => [r.type, r.roundId])).toEqual([['rollback', rounds.cancelled]]);
    const pending = rowsOf(await w.call('GET', '/api/reconciliation?type=credit_pending', undefined, adminHeaders));
    expect(pending.map((r) => r.roundId)).toEqual([rounds.pending]);
    expect((await w.call('GET', '/api/reconciliation?type=refund', undefined, adminHeaders)).body.code).toBe('VALIDATION_ERROR');
  });

  it('pages with a cursor through every row once, newest first', async () => {
    const all = rowsOf(await w.call('GET', '/api/reconciliation?operatorId=op-r1&limit=500', undefined, adminHeaders));
    const paged: Row[] = [];
    let cursor: string | null = null;
    let pages = 0;
    do {
      const res = await w.call('GET', `/api/reconciliation?operatorId=op-r1&limit=3${cursor ? `&cursor=${cursor}` : ''}`, undefined, adminHeaders);
      expect(res.status).toBe(200);
      const page = rowsOf(res);
      expect(page.length).toBeLessThanOrEqual(3);
      paged.push(...page);
      cursor = (res.body as { nextCursor: string | null }).nextCursor;
      pages += 1;
    } while (cursor && pages < 20);
    expect(pages).toBe(Math.ceil(all.length / 3));
    expect(paged).toEqual(all);
    const times = all.map((r) => Date.parse(r.createdAt));
    expect([...times].sort((a, b) => b - a)).toEqual(times);
  });

  it('checks limit (1..500), cursor and times', async () => {
    for (const q of ['limit=0', 'limit=501', 'cursor=abc', 'from=yesterday']) {
      const res = await w.call('GET', `/api/reconciliation?${q}`, undefined, adminHeaders);
      expect(res.status, q).toBe(400);
      expect(res.body.code).toBe('VALIDATION_ERROR');
    }
    const future = new Date(Date.now() + 3_600_000).toISOString();
    expect(rowsOf(await w.call('GET', `/api/reconciliation?from=${future}`, undefined, adminHeaders))).toEqual([]);
  });
});

describe('a casino backend signing with its operator secret (CONTRACT.md §6)', () => {
  it("reads only its own operator's rows, the request target (query string included) signed", async () => {
    const res = await signedGet('op-r1', '/api/reconciliation?limit=500');
    expect(res.status, res.text).toBe(200);
    const rows = rowsOf(res);
    expect(rows.length).toBe(3 * 2 + 2 + 2);
    expect(new Set(rows.map((r) => r.operatorId))).toEqual(new Set(['op-r1']));
    const own = await signedGet('op-r2', '/api/reconciliation?operatorId=op-r2&type=debit');
    expect(rowsOf(own).map((r) => r.roundId)).toEqual([rounds.other]);
  });

  it('asking for another operator is 403 FORBIDDEN', async () => {
    const res = await signedGet('op-r1', '/api/reconciliation?operatorId=op-r2');
    expect(res.status).toBe(403);
    expect(res.body.code).toBe('FORBIDDEN');
  });

  it('a reused nonce is SIGNATURE_REPLAYED', async () => {
    const nonce = 'replayed-nonce-0123456789';
    expect((await signedGet('op-r1', '/api/reconciliation?limit=1', { nonce })).status).toBe(200);
    const again = await signedGet('op-r1', '/api/reconciliation?limit=1', { nonce });
    expect(again.status).toBe(401);
    expect(again.body.code).toBe('SIGNATURE_REPLAYED');
  });

  it('a timestamp outside the clock skew is SIGNATURE_STALE', async () => {
    // Each timestamp is taken when its request is signed, right before it is sent, and a minute
    // away from the 300 s edge: the clock moves while a request travels (a second ticking during
    // a slow request turned now + 301 into an accepted now + 300), and no test depends on how fast
    // requests are answered.
    const at = (offset: number) => ({ timestamp: Math.floor(Date.now() / 1000) + offset });
    for (const offset of [-360, 360]) {
      const res = await signedGet('op-r1', '/api/reconciliation', at(offset));
      expect(res.status).toBe(401);
      expect(res.body.code).toBe('SIGNATURE_STALE');
    }
    for (const offset of [-240, 240]) expect((await signedGet('op-r1', '/api/reconciliation', at(offset))).status).toBe(200);
  });

  it('a wrong secret, another signed target, an unknown operator or a malformed nonce is SIGNATURE_INVALID', async () => {
    const wrongSecret = await signedGet('op-r1', '/api/reconciliation', { secret: 'not-the-secret-of-op-r1-000' });
    expect(wrongSecret.body.code).toBe('SIGNATURE_INVALID');
    const otherTarget = await w.call('GET', '/api/reconciliation?limit=500', undefined, operatorSigned('op-r1', 'GET', '/api/reconciliation'));
    expect(otherTarget.body.code).toBe('SIGNATURE_INVALID');
    const unknown = await signedGet('op-nobody', '/api/reconciliation', { secret: 'whatever-secret-0123456789' });
    expect(unknown.body.code).toBe('SIGNATURE_INVALID');
    const shortNonce = await signedGet('op-r1', '/api/reconciliation', { nonce: 'short' });
    expect(shortNonce.status).toBe(401);
    expect(shortNonce.body.code).toBe('SIGNATURE_INVALID');
  });

  it('missing signature headers are SIGNATURE_REQUIRED', async () => {
    const res = await w.call('GET', '/api/reconciliation', undefined, { 'x-operator-id': 'op-r1' });
    expect(res.status).toBe(401);
    expect(res.body.code).toBe('SIGNATURE_REQUIRED');
  });

  it("GET /api/bets/{roundId} signed by the round's operator answers it; by another operator 403 FORBIDDEN", async () => {
    const target = `/api/bets/${rounds.settled[0]}`;
    const own = await signedGet('op-r1', target);
    expect(own.status).toBe(200);
    expect(own.body.roundId).toBe(rounds.settled[0]);
    const other = await signedGet('op-r2', target);
    expect(other.status).toBe(403);
    expect(other.body.code).toBe('FORBIDDEN');
  });

  it('the admin API takes no operator signatures', async () => {
    const res = await signedGet('op-r1', '/api/admin/operators');
    expect(res.status).toBe(401);
    expect(res.body.code).toBe('UNAUTHORIZED');
  });

  it('a pending credit row becomes a credit row once the retry confirms it', async () => {
    await w.cron('limit=10');
    const rows = rowsOf(await signedGet('op-r1', '/api/reconciliation?limit=500'));
    expect(rows.find((r) => r.idempotencyKey === `${rounds.pending}:credit`)).toMatchObject({
      type: 'credit',
      status: 'succeeded',
      casinoTransactionId: expect.any(String),
    });
    expect(rows.filter((r) => r.type.endsWith('_pending'))).toEqual([]);
  });
});

describe('pages by time, then id (the callbacks have no index on id: migration 20261206004000)', () => {
  it("pages every operator's rows once each, newest first, callbacks of the same time in both operators", async () => {
    // three times for all the callbacks of the world: most rows share their time with others, of
    // either operator, so the page boundaries fall inside a time and the id decides
    const db = w.t.services.db;
    await db.raw(`UPDATE wallet_callbacks SET created_at = now() - interval '1 hour' + (id % 3) * interval '1 millisecond'`);
    const all = rowsOf(await w.call('GET', '/api/reconciliation?limit=500', undefined, adminHeaders));
    const stored = await db('wallet_callbacks').count<{ n: string }[]>({ n: '*' });
    expect(all).toHaveLength(Number(stored[0]!.n));
    const times = all.map((r) => Date.parse(r.createdAt));
    expect([...times].sort((a, b) => b - a)).toEqual(times);
    expect(new Set(times).size).toBe(3);
    for (const query of ['', '&operatorId=op-r1', '&type=debit']) {
      const expected = query === '&operatorId=op-r1' ? all.filter((r) => r.operatorId === 'op-r1') : query ? all.filter((r) => r.type === 'debit') : all;
      const paged: Row[] = [];
      let cursor: string | null = null;
      let pages = 0;
      do {
        const res = await w.call('GET', `/api/reconciliation?limit=2${query}${cursor ? `&cursor=${cursor}` : ''}`, undefined, adminHeaders);
        expect(res.status, res.text).toBe(200);
        paged.push(...rowsOf(res));
        cursor = (res.body as { nextCursor: string | null }).nextCursor;
        pages += 1;
      } while (cursor && pages < 50);
      expect(paged, query).toEqual(expected);
    }
  });

  it('a cursor is opaque: a callback id (the cursor before) or anything not answered is VALIDATION_ERROR', async () => {
    for (const cursor of [
      '12',
      'abc',
      Buffer.from('["x","1"]').toString('base64url'),
      Buffer.from('["2026-12-06T10:00:00.000000Z","1e3"]').toString('base64url'),
      Buffer.from('["2026-12-06 10:00:00+00","1"]').toString('base64url'),
    ]) {
      const res = await w.call('GET', `/api/reconciliation?cursor=${cursor}`, undefined, adminHeaders);
      expect(res.status, cursor).toBe(400);
      expect(res.body.code).toBe('VALIDATION_ERROR');
    }
  });
});
