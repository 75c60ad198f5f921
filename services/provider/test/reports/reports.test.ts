/**
 * Issue 26 item 3: the reporting API. The GGR report's figures equal the sums of
 * GET /api/reconciliation's rows over the same range (confirmed rows, per UTC day × game ×
 * currency); a player's rounds come newest first in bounded pages; one round's details; CSV; a
 * casino's signed request reads only its own operator (403 FORBIDDEN otherwise).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { adminHeaders } from '../helpers/app.js';
import { operatorSigned, startWorld, type Player, type World } from '../helpers/casino.js';

let w: World;
let a1: Player;
let a2: Player;
let b1: Player;
const ids: string[] = [];
let from = '';
let to = '';
beforeAll(async () => {
  from = new Date(Date.now() - 60_000).toISOString();
  w = await startWorld([{ operatorId: 'rep-a' }, { operatorId: 'rep-b' }]);
  a1 = await w.player('rep-a1', { operatorId: 'rep-a' });
  a2 = await w.player('rep-a2', { operatorId: 'rep-a' });
  b1 = await w.player('rep-b1', { operatorId: 'rep-b' });
  for (let i = 0; i < 6; i++) ids.push((await w.bet(a1, 'dice', 1 + i, { target: 50, direction: i % 2 ? 'over' : 'under' })).body.roundId!);
  for (let i = 0; i < 3; i++) ids.push((await w.bet(a2, 'limbo', 2, { target: 1.5 + i })).body.roundId!);
  await w.bet(a2, 'keno', 1, { picks: [1, 2, 3], risk: 'classic' });
  await w.bet(b1, 'dice', 5, { target: 50, direction: 'over' });
  // a rolled-back debit, and a credit still pending (not confirmed: in neither side's totals)
  w.casino.setFaults([{ path: '/wallet/debit', kind: 'status', status: 503, times: 2 }]);
  expect((await w.bet(a1, 'dice', 3, { target: 50, direction: 'over' })).body.roundStatus).toBe('cancelled');
  w.casino.setFaults([{ path: '/wallet/credit', kind: 'status', status: 503, times: 2 }]);
  expect((await w.bet(a1, 'dice', 4, { target: 50, direction: 'over' })).body.roundStatus).toBe('credit_pending');
  w.casino.clearFaults();
  to = new Date(Date.now() + 60_000).toISOString();
});
afterAll(async () => w?.close());

const cents = (v: unknown) => BigInt(Math.round(Number(v) * 100));
type Row = { type: string; roundId: string; gameType: string; currency: string; amount: number; status: string; createdAt: string };

async function allReconciliation(operatorId: string): Promise<Row[]> {
  const rows: Row[] = [];
  let cursor = '';
  for (;;) {
    const res = await w.call(
      'GET',
      `/api/reconciliation?operatorId=${operatorId}&from=${from}&to=${to}&limit=3${cursor ? `&cursor=${cursor}` : ''}`,
      undefined,
      adminHeaders,
    );
    expect(res.status, res.text).toBe(200);
    rows.push(...(res.body.rows as Row[]));
    if (!res.body.nextCursor) return rows;
    cursor = String(res.body.nextCursor);
  }
}

describe('GET /api/reports/ggr', () => {
  it('equals the reconciliation rows of the same range, per day, game and currency, across pages', async () => {
    const recon = await allReconciliation('rep-a');
    const expected = new Map<string, { stakes: bigint; payouts: bigint; rollbacks: bigint; rounds: Set<string> }>();
    for (const r of recon.filter((x) => x.status === 'succeeded')) {
      const k = `${r.createdAt.slice(0, 10)}|${r.gameType}|${r.currency}`;
      const e = expected.get(k) ?? { stakes: 0n, payouts: 0n, rollbacks: 0n, rounds: new Set<string>() };
      if (r.type === 'debit') e.stakes += cents(r.amount);
      if (r.type === 'credit') e.payouts += cents(r.amount);
      if (r.type === 'rollback') e.rollbacks += cents(r.amount);
      e.rounds.add(r.roundId);
      expected.set(k, e);
    }
    const got: Record<string, unknown>[] = [];
    let cursor = '';
    for (;;) {
      const res = await w.call(
        'GET',
        `/api/reports/ggr?operatorId=rep-a&from=${from}&to=${to}&limit=1${cursor ? `&cursor=${cursor}` : ''}`,
        undefined,
        adminHeaders,
      );
      expect(res.status, res.text).toBe(200);
      got.push(...(res.body.rows as Record<string, unknown>[]));
      if (!res.body.nextCursor) break;
      cursor = String(res.body.nextCursor);
    }
    expect(got.length).toBe(expected.size);
    expect(expected.size).toBeGreaterThanOrEqual(3); // dice, limbo, keno
    for (const g of got) {
      const e = expected.get(`${g.day}|${g.gameType}|${g.currency}`);
      expect(e, JSON.stringify(g)).toBeDefined();
      expect(g.operatorId).toBe('rep-a');
      expect(cents(g.stakes)).toBe(e!.stakes);
      expect(cents(g.payouts) + cents(g.freeBetPayouts)).toBe(e!.payouts);
      expect(cents(g.rollbacks)).toBe(e!.rollbacks);
      expect(g.rounds).toBe(e!.rounds.size);
      expect(cents(g.ggr)).toBe(e!.stakes - e!.payouts - e!.rollbacks);
    }
    const dice = got.find((g) => g.gameType === 'dice')!;
    expect(cents(dice.rollbacks)).toBe(300n); // the cancelled bet's rollback
  });

  it('is signed by the casino and scoped to it; another operator is 403 FORBIDDEN', async () => {
    const target = `/api/reports/ggr?from=${from}&to=${to}`;
    const own = await w.call('GET', target, undefined, operatorSigned('rep-a', 'GET', target));
    expect(own.status, own.text).toBe(200);
    expect((own.body.rows as { operatorId: string }[]).every((r) => r.operatorId === 'rep-a')).toBe(true);
    const other = `/api/reports/ggr?operatorId=rep-b&from=${from}&to=${to}`;
    const res = await w.call('GET', other, undefined, operatorSigned('rep-a', 'GET', other));
    expect(res.status).toBe(403);
    expect(res.body.code).toBe('FORBIDDEN');
    expect((await w.call('GET', '/api/reports/ggr')).status).toBe(401);
  });

  it('answers CSV with format=csv, and refuses an unbounded or reversed range', async () => {
    const json = await w.call('GET', `/api/reports/ggr?operatorId=rep-a&from=${from}&to=${to}`, undefined, adminHeaders);
    const res = await w.t.app.inject({ method: 'GET', url: `/api/reports/ggr?operatorId=rep-a&from=${from}&to=${to}&format=csv`, headers: adminHeaders });
    expect(res.statusCode).toBe(200);
    expect(res.headers['content-type']).toMatch(/text\/csv/);
    const lines = res.body.trim().split('\r\n');
    expect(lines[0]).toBe('day,operatorId,gameType,currency,rounds,stakes,payouts,freeBetPayouts,rollbacks,ggr');
    expect(lines.length).toBe((json.body.rows as unknown[]).length + 1);
    for (const q of [`from=${to}&to=${from}`, 'from=2020-01-01T00:00:00Z&to=2022-01-01T00:00:00Z']) {
      const bad = await w.call('GET', `/api/reports/ggr?${q}`, undefined, adminHeaders);
      expect(bad.status, q).toBe(400);
      expect(bad.body.code).toBe('VALIDATION_ERROR');
    }
  });
});

describe('game recall', () => {
  it("a player's rounds, newest first, in pages, with results", async () => {
    const seen: { roundId: string; createdAt: string; result: unknown; roundStatus: string }[] = [];
    let cursor = '';
    for (;;) {
      const res = await w.call(
        'GET',
        `/api/reports/players/rep-a1/rounds?operatorId=rep-a&limit=3${cursor ? `&cursor=${cursor}` : ''}`,
        undefined,
        adminHeaders,
      );
      expect(res.status, res.text).toBe(200);
      seen.push(...(res.body.rounds as typeof seen));
      if (!res.body.nextCursor) break;
      cursor = String(res.body.nextCursor);
    }
    expect(seen.length).toBe(8); // six bets, the cancelled one, the pending one
    expect(new Set(seen.map((r) => r.roundId)).size).toBe(8);
    for (let i = 1; i < seen.length; i++) expect(seen[i - 1]!.createdAt >= seen[i]!.createdAt).toBe(true);
    expect(seen.filter((r) => r.roundStatus === 'settled').every((r) => r.result !== null)).toBe(true);
    const target = '/api/reports/players/rep-b1/rounds?operatorId=rep-b';
    expect((await w.call('GET', target, undefined, operatorSigned('rep-a', 'GET', target))).status).toBe(403);
    expect((await w.call('GET', '/api/reports/players/rep-a1/rounds', undefined, adminHeaders)).body.code).toBe('VALIDATION_ERROR');
  });

  it("one round's details, own operator only", async () => {
    const t1 = `/api/reports/rounds/${ids[0]}`;
    const own = await w.call('GET', t1, undefined, operatorSigned('rep-a', 'GET', t1));
    expect(own.status, own.text).toBe(200);
    expect(own.body).toMatchObject({ roundId: ids[0], bet: { operatorId: 'rep-a', playerRef: 'rep-a1' } });
    expect(Array.isArray(own.body.casinoCallbackAudit)).toBe(true);
    const other = await w.call('GET', t1, undefined, operatorSigned('rep-b', 'GET', t1));
    expect(other.status).toBe(403);
  });
});
