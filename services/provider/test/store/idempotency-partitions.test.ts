/**
 * Idempotency records are partitioned by the week their session began (migration 20261129100000,
 * issue 25): a key's statements read and write its session's week only (EXPLAIN shows it, through
 * the partitioned table and on the week the hot statements name), a key stays unique (a duplicate,
 * concurrent or not, is refused), and retention drops whole weeks of sessions that ended longer
 * ago than the retention period, never a younger week nor the legacy partition.
 */
import knexPkg, { type Knex } from 'knex';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { newSessionId } from '../../src/infra/random.js';
import { isKeyViolation, keyRecordQuery, type KeyScope } from '../../src/rounds/round-store/idempotency-records.js';
import { keyTable, loadTimePartitions } from '../../src/rounds/round-store/partitions.js';
import { dropIdempotencyWeeks } from '../../src/rounds/round-store/work.js';
import { answerKeyCte, claimKeyCte } from '../../src/rounds/round-store/writes.js';
import { createTestDatabase } from '../helpers/app.js';

let url: string;
let db: Knex;
let drop: () => Promise<void>;

beforeAll(async () => {
  const d = await createTestDatabase();
  drop = d.drop;
  url = d.url;
  db = knexPkg.knex({ client: 'pg', connection: d.url, pool: { min: 0, max: 4 } });
  await db.raw('SELECT gp_ensure_time_partitions()');
  await loadTimePartitions(db);
});
afterAll(async () => {
  await db?.destroy();
  await drop?.();
});

const DAY = 86_400_000;
/** Monday 00:00 UTC of the week `t` falls in (the weeks' bounds). */
const weekOf = (t: number): Date => {
  const d = new Date(t);
  const monday = Date.UTC(d.getUTCFullYear(), d.getUTCMonth(), d.getUTCDate()) - ((d.getUTCDay() + 6) % 7) * DAY;
  return new Date(monday);
};
const weekName = (t: number) => `idempotency_records_${weekOf(t).toISOString().slice(0, 10).replace(/-/g, '_')}`;

const scope = (sessionId: string, key = 'k'): KeyScope => ({ operatorId: 'op', sessionId, key, requestHash: 'h' });
const claim = (db: Knex | Knex.Transaction, s: KeyScope) =>
  db('idempotency_records').insert({
    operator_id: s.operatorId,
    session_id: s.sessionId,
    idempotency_key: s.key,
    request_hash: s.requestHash,
    session_at: db.raw('gp_session_time(?::text)', [s.sessionId]),
  });

/** The partitions of idempotency_records a plan reads (pruned ones and those never executed left out). */
async function partitionsRead(sql: string, bindings: readonly unknown[], settings: string[] = []): Promise<string[]> {
  const res = await db.transaction(async (tx): Promise<{ rows: { 'QUERY PLAN': string }[] }> => {
    for (const s of settings) await tx.raw(`SET LOCAL ${s}`);
    return (await tx.raw(`EXPLAIN (COSTS OFF) ${sql}`, bindings as Knex.RawBinding[])) as { rows: { 'QUERY PLAN': string }[] };
  });
  if (process.env.SHOW_PLANS) console.log(res.rows.map((r) => r['QUERY PLAN']).join('\n'));
  const names = res.rows.flatMap((r) => [...r['QUERY PLAN'].matchAll(/ on (idempotency_records_(?:legacy|\d{4}_\d{2}_\d{2}))\b/g)].map((m) => m[1]!));
  return [...new Set(names)].sort();
}

/** The partitions a prepared statement scans (the hot path's: a generic plan, pruned when it starts), and whether it pruned any. */
async function partitionsReadPrepared(sql: string, values: readonly unknown[]): Promise<{ read: string[]; removed: boolean }> {
  let n = 0;
  const text = sql.replace(/\?/g, () => `$${++n}`);
  const c = new (await import('pg')).default.Client({ connectionString: url });
  await c.connect();
  try {
    await c.query('BEGIN');
    await c.query('SET LOCAL plan_cache_mode = force_generic_plan');
    await c.query(`PREPARE q AS ${text}`);
    const args = values.map((v) => `'${String(v).replace(/'/g, "''")}'`).join(', ');
    const res = await c.query<{ 'QUERY PLAN': string }>(`EXPLAIN (ANALYZE, COSTS OFF, TIMING OFF, SUMMARY OFF) EXECUTE q(${args})`);
    await c.query('ROLLBACK');
    const lines = res.rows.map((r) => r['QUERY PLAN']);
    if (process.env.SHOW_PLANS) console.log(lines.join('\n'));
    // the partitions scanned (a generic plan of an UPDATE on the partitioned table still lists, and locks, every partition as a target)
    const read = lines
      .filter((l) => /Scan/.test(l) && !/never executed/.test(l))
      .flatMap((l) => [...l.matchAll(/ on (idempotency_records_(?:legacy|\d{4}_\d{2}_\d{2}))\b/g)].map((m) => m[1]!));
    return { read: [...new Set(read)].sort(), removed: lines.some((l) => /Subplans Removed/.test(l)) };
  } finally {
    await c.end();
  }
}

describe('idempotency records partitioned by the week their session began', () => {
  const now = Date.now();
  const nextWeek = weekOf(now).getTime() + 7 * DAY + 3_600_000;

  it('the weeks ahead exist; a session id is a UUIDv7 of its start and its records live in that week', async () => {
    const parts = (await db('time_partitions').where({ parent: 'idempotency_records' }).orderBy('from_ts').pluck('name')) as string[];
    expect(parts[0]).toBe('idempotency_records_legacy');
    expect(parts).toContain(weekName(now));
    expect(parts).toContain(weekName(now + 8 * DAY));
    const made = (await db.raw('SELECT gp_ensure_time_partitions() AS made')) as { rows: { made: number }[] };
    expect(Number(made.rows[0]!.made)).toBe(0);

    const s = newSessionId(now);
    expect(s).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-7[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}-[0-9a-f]{12}$/);
    await claim(db, scope(s));
    const row = (await db.raw('SELECT tableoid::regclass::text AS part, session_at FROM idempotency_records WHERE session_id = ?', [s])) as {
      rows: { part: string; session_at: Date }[];
    };
    expect(row.rows[0]!.part).toBe(weekName(now));
    expect(row.rows[0]!.session_at.getTime()).toBe(now);
    // the hot statements name that week
    expect(keyTable(db, s).records).toBe(weekName(now));
    // a session id from before the partitions (not a UUIDv7): the legacy partition
    await claim(db, scope('6f1c2b8e-3d4a-4f5b-9c6d-7e8f9a0b1c2d'));
    expect(keyTable(db, '6f1c2b8e-3d4a-4f5b-9c6d-7e8f9a0b1c2d').records).toBe('idempotency_records');
    expect(
      (
        (await db.raw(`SELECT tableoid::regclass::text AS part FROM idempotency_records WHERE session_id = '6f1c2b8e-3d4a-4f5b-9c6d-7e8f9a0b1c2d'`)) as {
          rows: { part: string }[];
        }
      ).rows[0]!.part,
    ).toBe('idempotency_records_legacy');
    // the partition key is the session's time and nothing else
    await expect(
      db('idempotency_records')
        .insert({ operator_id: 'op', session_id: s, idempotency_key: 'k2', request_hash: 'h', session_at: new Date(now + 1) })
        .then(() => undefined),
    ).rejects.toThrow(/idempotency_records_session_time|violates check constraint/);
  });

  it('a key is unique in its session: a duplicate is refused (through the table or its week), and of concurrent duplicates one wins', async () => {
    const s = newSessionId();
    await claim(db, scope(s, 'dup'));
    const dupe = await claim(db, scope(s, 'dup')).catch((e: unknown) => e);
    expect(isKeyViolation(dupe)).toBe(true);
    // the same key written straight into its week (as the hot statements do) is refused by the same index
    const direct = await db(weekName(Date.now()))
      .insert({ operator_id: 'op', session_id: s, idempotency_key: 'dup', request_hash: 'h', session_at: db.raw('gp_session_time(?::text)', [s]) })
      .catch((e: unknown) => e);
    expect(isKeyViolation(direct)).toBe(true);
    // the same key in another session is another key
    await claim(db, scope(newSessionId(), 'dup'));

    // concurrent duplicates: the hot path's claim CTE, eight at once
    const s2 = newSessionId();
    const k = claimKeyCte(db, { operatorId: 'op', sessionId: s2, key: 'race', requestHash: 'h' });
    const results = await Promise.allSettled(
      Array.from({ length: 8 }, () => db.raw(`WITH r AS (SELECT 'round-x'::text AS round_id)${k.sql} SELECT count(*) FROM k`, k.values as Knex.RawBinding[])),
    );
    expect(results.filter((r) => r.status === 'fulfilled')).toHaveLength(1);
    for (const r of results) if (r.status === 'rejected') expect(isKeyViolation(r.reason)).toBe(true);
    expect(Number((await db('idempotency_records').where({ session_id: s2 }).count<{ n: string }[]>({ n: '*' }))[0]!.n)).toBe(1);
  });

  it("a key's lookup and the hot answer's update read its session's week only", async () => {
    const s = newSessionId();
    await claim(db, scope(s, 'look'));
    await claim(db, scope(newSessionId(nextWeek), 'look'));
    // the lookup of a retry (findKeyRecord)
    const q = keyRecordQuery(db, scope(s, 'look')).toSQL().toNative();
    expect(await partitionsRead(q.sql.replace(/\$\d+/g, '?'), q.bindings)).toEqual([weekName(Date.now())]);
    // the answer's update (storeCreditAndFinish, storeDebitAndActivate): the week named in the statement
    const answer = answerKeyCte(db, { claim: { operatorId: 'op', sessionId: s, key: 'look', requestHash: 'h' }, body: '{}', roundStatus: 'settled' });
    expect(answer.sql).toContain(`UPDATE ${weekName(Date.now())} `);
    const stmt = `WITH r AS (SELECT 1)${answer.sql} SELECT 1`;
    expect((await partitionsReadPrepared(stmt, answer.values)).read).toEqual([weekName(Date.now())]);
    // and through the partitioned table (a week this pod does not list yet): pruned when the generic plan starts
    const viaParent = answerKeyCte(
      db,
      { claim: { operatorId: 'op', sessionId: s, key: 'look', requestHash: 'h' }, body: '{}', roundStatus: 'settled' },
      {
        records: 'idempotency_records',
        tag: '',
        named: false,
      },
    );
    const parent = await partitionsReadPrepared(`WITH r AS (SELECT 1)${viaParent.sql} SELECT 1`, viaParent.values);
    expect(parent.removed).toBe(true);
    expect(parent.read).toEqual([weekName(Date.now())]);
    // and the claim's insert goes into that week by name
    expect(claimKeyCte(db, { operatorId: 'op', sessionId: s, key: 'x', requestHash: 'h' }).sql).toContain(`INSERT INTO ${weekName(Date.now())} `);
  });

  it('retention drops whole weeks of sessions that ended more than the retention period ago; younger weeks and the legacy partition stay', async () => {
    const young = newSessionId(nextWeek);
    await claim(db, scope(young, 'young'));
    const sessionMaxMs = DAY;
    const retentionMs = 7 * DAY;
    // now: nothing has ended long enough ago
    expect(await dropIdempotencyWeeks(db, { sessionMaxMs, retentionMs })).toBe(0);
    // the weeks before this one go first: a template database migrated in an earlier week (the test
    // run's, made once) starts with the end of that week, which this week's checks below must not count
    await dropIdempotencyWeeks(db, { now: new Date(weekOf(Date.now()).getTime() + sessionMaxMs + retentionMs), sessionMaxMs, retentionMs });
    // a session begun on this week's last instant may run a day more; its keys are kept seven days after that
    const weekEnd = weekOf(Date.now()).getTime() + 7 * DAY;
    expect(await dropIdempotencyWeeks(db, { now: new Date(weekEnd + sessionMaxMs + retentionMs - 1), sessionMaxMs, retentionMs })).toBe(0);
    const dropped = await dropIdempotencyWeeks(db, { now: new Date(weekEnd + sessionMaxMs + retentionMs), sessionMaxMs, retentionMs });
    expect(dropped).toBeGreaterThanOrEqual(1);
    const parts = (await db('time_partitions').where({ parent: 'idempotency_records' }).pluck('name')) as string[];
    expect(parts).not.toContain(weekName(Date.now()));
    expect(parts).toContain(weekName(nextWeek));
    expect(parts).toContain('idempotency_records_legacy');
    const left = (await db('idempotency_records').pluck('idempotency_key')) as string[];
    expect(left.sort()).toEqual(['k', 'look', 'young']); // the legacy record, next week's two
    // the dropped week's table is gone, and the hot path no longer names it
    expect(((await db.raw(`SELECT to_regclass(?) AS t`, [weekName(Date.now())])) as { rows: { t: string | null }[] }).rows[0]!.t).toBeNull();
    expect(keyTable(db, newSessionId()).records).toBe('idempotency_records');
  });
});
