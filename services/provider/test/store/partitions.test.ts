/**
 * Rounds and wallet callbacks are partitioned by month (migration 20261128131000, issue 25): the hot
 * queries read only the partition(s) they need, as EXPLAIN shows, whatever the history holds; the
 * months ahead are made by gp_ensure_time_partitions; a month is dropped whole.
 */
import knexPkg, { type Knex } from 'knex';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { newRoundId } from '../../src/infra/random.js';
import { roundSearchSql } from '../../src/rounds/round-store/reports.js';
import { callbacksOfRound, getRoundWithContext } from '../../src/rounds/round-store/reads.js';
import { callbackKeyOfRound, roundAt, roundAtValues } from '../../src/rounds/round-store/rows.js';
import { oldestPendingAges } from '../../src/rounds/pending-age.js';
import { pendingExtraDebitRollbacksQuery } from '../../src/rounds/round-store/work.js';
import { reconciliationRowsQuery } from '../../src/rounds/reconciliation.js';
import { createTestDatabase } from '../helpers/app.js';
import { insertCallbackRow } from '../helpers/callback-rows.js';

let db: Knex;
let drop: () => Promise<void>;
let pairId: string;

beforeAll(async () => {
  const d = await createTestDatabase();
  drop = d.drop;
  db = knexPkg.knex({ client: 'pg', connection: d.url, pool: { min: 0, max: 2 } });
  await db('operators').insert({
    operator_id: 'op',
    currency: 'USD',
    callback_base_url: 'sandbox://demo-casino',
    secret_enc: 'x',
    min_bet: 1,
    stake_step: 1,
    max_payout: 1000,
    enabled_games: JSON.stringify(['dice']),
  });
  await db('sessions').insert({
    session_id: 's1',
    operator_id: 'op',
    player_ref: 'p',
    currency: 'USD',
    game_type: null,
    launch_mode: 'lobby',
    launch_token_enc: 'x',
  });
  pairId = String(
    (await db('seed_pairs').insert({ operator_id: 'op', player_ref: 'p', server_seed: 'a', server_seed_hash: 'b', client_seed: 'c' }).returning('id'))[0].id,
  );
  await db.raw('SELECT gp_ensure_time_partitions(?::interval)', ['3 months']);
});
afterAll(async () => {
  await db?.destroy();
  await drop?.();
});

let nonce = 0;
/** A round (and its debit) of the month `at` falls in; `status` decides whether it is in flight. */
async function round(at: Date, status = 'settled'): Promise<string> {
  const id = newRoundId(at.getTime());
  await db('rounds').insert({
    round_id: id,
    created_at: db.raw('gp_round_time(?)', [id]),
    operator_id: 'op',
    player_ref: 'p',
    session_id: 's1',
    game_type: 'dice',
    currency: 'USD',
    amount: 10,
    total_staked: 10,
    params: '{}',
    seed_pair_id: pairId,
    nonce: ++nonce,
    client_seed: 'c',
    status,
  });
  await insertCallbackRow(db, id, { callback_status: 'succeeded' });
  return id;
}

/** The partitions a plan reads (EXPLAIN without ANALYZE: pruned at planning; with ANALYZE: also those never executed are left out). */
async function partitionsRead(sql: string, bindings: readonly Knex.Value[], analyze = false, settings: string[] = []): Promise<string[]> {
  const res = await db.transaction(async (tx): Promise<{ rows: { 'QUERY PLAN': string }[] }> => {
    for (const s of settings) await tx.raw(`SET LOCAL ${s}`);
    return (await tx.raw(`EXPLAIN (${analyze ? 'ANALYZE, ' : ''}COSTS OFF) ${sql}`, bindings)) as { rows: { 'QUERY PLAN': string }[] };
  });
  if (process.env.SHOW_PLANS) console.log(res.rows.map((r) => r['QUERY PLAN']).join('\n'));
  const lines = res.rows.map((r) => r['QUERY PLAN']).filter((l) => !/never executed/.test(l));
  const names = lines.flatMap((l) => [...l.matchAll(/ on ((?:rounds|wallet_callbacks)_(?:legacy|\d{4}_\d{2}))\b/g)].map((m) => m[1]!));
  return [...new Set(names)].sort();
}

/** The plan of a statement, as text. */
async function planOf(s: { sql: string; bindings: readonly Knex.Value[] }, settings: string[] = []): Promise<string> {
  const res = await db.transaction(async (tx): Promise<{ rows: { 'QUERY PLAN': string }[] }> => {
    for (const x of settings) await tx.raw(`SET LOCAL ${x}`);
    return (await tx.raw(`EXPLAIN (COSTS OFF) ${s.sql}`, s.bindings)) as { rows: { 'QUERY PLAN': string }[] };
  });
  const text = res.rows.map((r) => r['QUERY PLAN']).join('\n');
  if (process.env.SHOW_PLANS) console.log(text);
  return text;
}

const month = (d: Date) => `${d.getUTCFullYear()}_${String(d.getUTCMonth() + 1).padStart(2, '0')}`;

describe('monthly partitions of rounds and wallet callbacks', () => {
  const now = new Date();
  const nextMonth = new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth() + 1, 15));

  it('the months ahead exist, and the service may call for them again (nothing new)', async () => {
    const parts = (await db('time_partitions').where({ parent: 'rounds' }).orderBy('from_ts').pluck('name')) as string[];
    expect(parts[0]).toBe('rounds_legacy');
    expect(parts).toContain(`rounds_${month(now)}`);
    expect(parts).toContain(`rounds_${month(nextMonth)}`);
    const made = (await db.raw('SELECT gp_ensure_time_partitions(?::interval) AS made', ['3 months'])) as { rows: { made: number }[] };
    expect(Number(made.rows[0]!.made)).toBe(0);
  });

  it("the bet's statements by round id read the round's month only (rounds and callbacks)", async () => {
    const id = await round(now, 'debit_requested');
    await round(nextMonth);
    // storeDebitAndClose / storeCreditAndFinish / getRound: the round by id, its time bounded by the id
    expect(
      await partitionsRead(`UPDATE rounds SET updated_at = now() WHERE round_id = ? AND ${roundAt('created_at')} AND status = 'debit_requested'`, [
        id,
        ...roundAtValues(id),
      ]),
    ).toEqual([`rounds_${month(now)}`]);
    expect(await partitionsRead(`SELECT * FROM rounds WHERE round_id = ? AND ${roundAt('created_at')}`, [id, ...roundAtValues(id)])).toEqual([
      `rounds_${month(now)}`,
    ]);
    // the callback's result by its key (resultCtes) and a callback by its key (getCallback)
    expect(
      await partitionsRead(`UPDATE wallet_callbacks SET updated_at = now() WHERE idempotency_key = ? AND ${roundAt('round_created_at')}`, [
        `${id}:debit`,
        ...roundAtValues(id),
      ]),
    ).toEqual([`wallet_callbacks_${month(now)}`]);
    expect(
      await partitionsRead(`SELECT * FROM wallet_callbacks WHERE idempotency_key = ? AND ${roundAt('round_created_at')}`, [
        `${id}:debit`,
        ...roundAtValues(id),
      ]),
    ).toEqual([`wallet_callbacks_${month(now)}`]);
    // a round id from before the partitions (a UUIDv4): the legacy partition only
    const old = '6f1c2b8e-3d4a-4f5b-9c6d-7e8f9a0b1c2d';
    const legacy = await partitionsRead(`SELECT * FROM rounds WHERE round_id = ? AND ${roundAt('created_at')}`, [old, ...roundAtValues(old)]);
    expect(legacy).toContain('rounds_legacy');
    expect(legacy).not.toContain(`rounds_${month(nextMonth)}`);
  });

  it("a round's callbacks are read by their key's prefix: the round's month, the unique key's index (no index on round_id)", async () => {
    const id = await round(now, 'credit_pending');
    await round(now);
    await round(nextMonth);
    // the statement callbacksOfRound runs (and, per round, getRoundWithContext's and the pending ages' join)
    const sql = `SELECT * FROM wallet_callbacks WHERE ${callbackKeyOfRound('idempotency_key', '?::text')} AND ${roundAt('round_created_at')} AND round_id = ? ORDER BY id`;
    const bindings = [id, id, ...roundAtValues(id), id];
    expect(await partitionsRead(sql, bindings)).toEqual([`wallet_callbacks_${month(now)}`]);
    const plan = await planOf({ sql, bindings }, ['enable_seqscan = off']);
    expect(plan).toMatch(/(Index Scan using|Bitmap Index Scan on) wallet_callbacks_\d{4}_\d{2}_idempotency_key_round_created_at_key/);
    expect(plan).toMatch(/Index Cond: \(\(idempotency_key >= /);
    // and what they answer: this round's callbacks only
    expect((await callbacksOfRound(db, id)).map((c) => c.idempotencyKey)).toEqual([`${id}:debit`]);
    expect((await getRoundWithContext(db, id))?.callbacks.map((c) => c.idempotencyKey)).toEqual([`${id}:debit`]);
    expect(await oldestPendingAges(db)).toEqual([{ operatorId: 'op', operation: 'credit', seconds: expect.any(Number) as number }]);
  });

  it("the console's round search by player over a time range reads the months in the range", async () => {
    const from = new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth(), 1)).toISOString();
    const to = new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth() + 1, 1)).toISOString();
    // the statement searchRounds runs: per operator (the caller's profiles, or every operator), merged
    for (const operatorIds of [['op'], null]) {
      const s = roundSearchSql(db, { operatorIds, playerRef: 'p', from, to, limit: 50 });
      const read = await partitionsRead(s.sql, s.bindings);
      expect(read).toContain(`rounds_${month(now)}`);
      expect(read).not.toContain(`rounds_${month(nextMonth)}`);
      // and without a range: every month, each operator's newest first from its own index
      const plan = await planOf(roundSearchSql(db, { operatorIds, limit: 50 }), ['enable_seqscan = off']);
      expect(plan).toMatch(/Index Scan using rounds_\d{4}_\d{2}_operator_id_created_at_round_id_idx/);
      // the one sort is the merge of the operators' pages (at most limit + 1 rows each); each page is read in index order
      expect(plan.match(/Sort Key/g)).toHaveLength(1);
      expect(plan).toMatch(/-> {2}Limit\n\s+-> {2}(Merge )?Append\n\s+-> {2}Index Scan/);
    }
    // and without a range it still answers across every month (newest first)
    const all = await db.raw(`SELECT round_id FROM rounds WHERE operator_id = 'op' AND player_ref = 'p' ORDER BY created_at DESC, round_id DESC`);
    expect(all.rows.length).toBeGreaterThanOrEqual(2);
  });

  it("the reconciliation pages read each operator's callbacks in their (operator_id, created_at, id) index's order: no sort of the history (no index on id)", async () => {
    await round(now);
    await round(nextMonth);
    const after: [string, string] = [`${now.getUTCFullYear() + 1}-01-01T00:00:00.000000Z`, '1'];
    // one operator (a casino's signed request), a staff member's profiles, every operator; a first page and a later one
    for (const q of [{ operatorId: 'op' }, { operatorIds: ['op', 'op-none'] }, {}]) {
      for (const cursor of [null, after]) {
        const s = reconciliationRowsQuery(db, { ...q, limit: 50 }, cursor)!.toSQL();
        const plan = await planOf({ sql: s.sql, bindings: s.bindings as Knex.Value[] }, ['enable_seqscan = off']);
        const label = JSON.stringify([q, cursor]);
        expect(plan, label).toMatch(/Index Scan Backward using wallet_callbacks_\d{4}_\d{2}_operator_id_created_at_id_idx/);
        expect(plan, label).not.toMatch(/Seq Scan on wallet_callbacks/);
        // each operator's page: the months merged in the index's order (time, then id): no sort of its own
        expect(plan, label).toMatch(/Merge Append\n\s+Sort Key: c\.created_at DESC, c\.id DESC/);
        expect(plan, label).not.toMatch(/Incremental Sort/);
        // the callbacks are never sorted: at most the merge of the operators' pages
        expect((plan.match(/(?<!Incremental )Sort\n|(?<!Incremental )Sort \(|-> {2}Sort\b/g) ?? []).length, label).toBeLessThanOrEqual(q.operatorId ? 0 : 1);
      }
    }
    // what the pages answer: every callback once
    const rows = (await reconciliationRowsQuery(db, { limit: 500 }, null)!) as { idempotency_key: string }[];
    const stored = await db('wallet_callbacks').pluck('idempotency_key');
    expect(rows.map((r) => r.idempotency_key).sort()).toEqual([...stored].sort());
  });

  it("the reconciliation's first page, planned generically as every connection plans (store/db.ts), is planned as one page of rows", async () => {
    // 20,000 settled rounds with their debits, analysed (rolled back at the end). A LIMIT bound as a
    // parameter is planned as a tenth of the rows: on the bench's 10-million-round database that made
    // the first page a hash join of every round (10.6 s); written into the text, the plan knows the page.
    const tx = await db.transaction();
    try {
      const at = Date.now() - 60_000;
      const ids = Array.from({ length: 20_000 }, (_, i) => newRoundId(at + i));
      await tx.raw(
        `INSERT INTO rounds (round_id, created_at, operator_id, player_ref, session_id, game_type, currency, amount, total_staked, params, seed_pair_id, nonce, client_seed, status)
         SELECT id, gp_round_time(id), 'op', 'p', 's1', 'dice', 'USD', 10, 10, '{}', ?, 1000000 + n, 'c', 'settled' FROM unnest(?::text[]) WITH ORDINALITY AS u (id, n)`,
        [pairId, ids],
      );
      await tx.raw(
        `INSERT INTO wallet_callbacks (round_created_at, round_id, operator_id, player_ref, operation, purpose, idempotency_key, amount, currency, method, path, url, request_body, request_body_enc, callback_status)
         SELECT gp_round_time(id), id, 'op', 'p', 'debit', 'bet', id || ':debit', 10, 'USD', 'POST', '/wallet/debit', 'x', '{}', 'x', 'succeeded' FROM unnest(?::text[]) AS u (id)`,
        [ids],
      );
      await tx.raw('ANALYZE rounds, wallet_callbacks');
      await tx.raw('SET LOCAL plan_cache_mode = force_generic_plan');
      for (const q of [{ operatorId: 'op' }, {}]) {
        const native = reconciliationRowsQuery(tx, { ...q, limit: 100 }, null)!
          .toSQL()
          .toNative();
        await tx.raw(`PREPARE first_page AS ${native.sql}`);
        const args = native.bindings.map((b) => (typeof b === 'number' ? String(b) : `'${String(b)}'`)).join(', ');
        const res = (await tx.raw(`EXPLAIN EXECUTE first_page${args ? `(${args})` : ''}`)) as { rows: { 'QUERY PLAN': string }[] };
        await tx.raw('DEALLOCATE first_page');
        const plan = res.rows.map((r) => r['QUERY PLAN']).join('\n');
        if (process.env.SHOW_PLANS) console.log(plan);
        const label = JSON.stringify(q);
        // every Limit of the plan (each operator's page; the merged page) is estimated at one page, not a tenth of 20,000 rows
        const limits = [...plan.matchAll(/Limit {2}\(cost=[\d.]+ rows=(\d+)/g)].map((m) => Number(m[1]));
        expect(limits.length, label).toBeGreaterThan(0);
        for (const rows of limits) expect(rows, label).toBeLessThanOrEqual(101);
        expect(plan, label).toMatch(/Index Scan Backward using wallet_callbacks_\d{4}_\d{2}_operator_id_created_at_id_idx/);
      }
    } finally {
      await tx.rollback();
    }
  });

  it("the retry job's look-up of extra debits' pending rollbacks uses their partial index even as a cached generic plan (never a scan of every callback)", async () => {
    const native = pendingExtraDebitRollbacksQuery(db, { operatorId: 'op', playerRef: 'p', limit: 50 }).toSQL().toNative();
    const text = await db.transaction(async (tx) => {
      await tx.raw('SET LOCAL plan_cache_mode = force_generic_plan');
      await tx.raw('SET LOCAL enable_seqscan = off');
      await tx.raw(`PREPARE extra_rollbacks AS ${native.sql}`);
      const args = native.bindings.map((b) => (typeof b === 'number' ? String(b) : `'${String(b)}'`)).join(', ');
      const res = (await tx.raw(`EXPLAIN (COSTS OFF) EXECUTE extra_rollbacks(${args})`)) as { rows: { 'QUERY PLAN': string }[] };
      await tx.raw('DEALLOCATE extra_rollbacks');
      return res.rows.map((r) => r['QUERY PLAN']).join('\n');
    });
    if (process.env.SHOW_PLANS) console.log(text);
    // every partition is read through the partial index of extra debits' rollbacks (its index on id)
    expect(text).not.toMatch(/Seq Scan/);
    const scans = [...text.matchAll(/Index Scan using (\S+) on (wallet_callbacks_\S+)/g)];
    expect(scans.length).toBeGreaterThan(0);
    for (const [, index, table] of scans) expect(index).toBe(`${table}_id_idx`);
  });

  it('the retry claim reads only the months that hold a round in flight', async () => {
    const later = new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth() + 2, 10));
    await round(later); // settled: not in flight
    await round(now, 'credit_pending'); // in flight
    await db.raw('ANALYZE rounds_in_flight');
    const sql = `SELECT r.round_id FROM rounds_in_flight f JOIN rounds r ON r.round_id = f.round_id AND r.created_at = f.created_at WHERE status IN ('credit_pending', 'rollback_pending', 'debit_requested') ORDER BY r.updated_at LIMIT 10 FOR UPDATE OF r SKIP LOCKED`;
    // the plan a big rounds table gets (a few rounds in flight, millions of rounds): for each round in
    // flight, one index probe into the month its time names; this test's tiny tables would otherwise
    // be read whole, so the plan is pinned to that shape
    const read = await partitionsRead(sql, [], true, ['enable_hashjoin = off', 'enable_mergejoin = off', 'enable_seqscan = off', 'join_collapse_limit = 1']);
    expect(read).toContain(`rounds_${month(now)}`);
    expect(read).not.toContain(`rounds_${month(later)}`);
    expect(read).not.toContain('rounds_legacy');
  });

  it('a month is dropped whole (its rounds and callbacks) once it holds no round in flight', async () => {
    const before = new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth() + 2, 1)).toISOString();
    const drop = async () =>
      Number(((await db.raw('SELECT gp_drop_time_partitions(?::timestamptz) AS dropped', [before])) as { rows: { dropped: number }[] }).rows[0]!.dropped);
    // this month holds rounds in flight: it stays, and so does the next
    expect(await drop()).toBe(0);
    expect(
      await db('time_partitions')
        .where({ name: `rounds_${month(now)}` })
        .first(),
    ).toBeTruthy();
    // once they are final, both months go, callbacks with them; the history partition stays
    await db('rounds').whereIn('round_id', db('rounds_in_flight').select('round_id')).update({ status: 'settled' });
    expect(await drop()).toBe(2);
    expect(
      await db('time_partitions')
        .whereIn('name', [`rounds_${month(now)}`, `wallet_callbacks_${month(now)}`, `rounds_${month(nextMonth)}`])
        .count({ n: '*' }),
    ).toEqual([{ n: '0' }]);
    expect(await db('rounds').where('created_at', '<', before).whereNot('created_at', '<', db.raw("'-infinity'::timestamptz")).count({ n: '*' })).toEqual([
      { n: '0' },
    ]);
    expect(await db('time_partitions').where({ name: 'rounds_legacy' }).first()).toBeTruthy();
  });
});
