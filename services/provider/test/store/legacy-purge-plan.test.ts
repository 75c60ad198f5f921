/**
 * The retention pass of the legacy idempotency records (round-store/work.ts legacyPurgeSql, every
 * WALLET_RETRY_SWEEP_S) finds them by `created_at`'s index (migration 20261207000000): with a
 * history of records none of which is old enough, a pass reads nothing, where it read the whole
 * partition (7 to 48 s a pass on the bench's 10-million-round history; issue 25, the thirteenth
 * session) — and it still removes what is old enough.
 */
import { randomUUID } from 'node:crypto';
import knexPkg, { type Knex } from 'knex';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { legacyPurgeSql, purgeLegacyIdempotencyRecords } from '../../src/rounds/round-store/work.js';
import { createTestDatabase } from '../helpers/app.js';

let db: Knex;
let drop: () => Promise<void>;

beforeAll(async () => {
  const d = await createTestDatabase();
  drop = d.drop;
  db = knexPkg.knex({ client: 'pg', connection: d.url, pool: { min: 0, max: 2 } });
});
afterAll(async () => {
  await db?.destroy();
  await drop?.();
});

it("finds the records old enough by created_at's index, and removes only those", async () => {
  // 20,000 records of sessions from before the partitioning (UUIDv4 ids: the legacy partition), of the last days, without rounds
  await db.raw(
    `INSERT INTO idempotency_records (operator_id, session_id, session_at, idempotency_key, request_hash, state, created_at)
     SELECT 'op', s.id, gp_session_time(s.id), 'k-' || g, 'h', 'completed', now() - (g % 5000) * interval '1 minute'
     FROM generate_series(1, 20000) g, LATERAL (SELECT gen_random_uuid()::text || '' AS id) s`,
  );
  // and three of a year ago
  for (let i = 0; i < 3; i++) {
    const id = randomUUID();
    await db.raw(
      `INSERT INTO idempotency_records (operator_id, session_id, session_at, idempotency_key, request_hash, state, created_at)
       VALUES ('op', ?, gp_session_time(?), 'old', 'h', 'completed', now() - interval '1 year')`,
      [id, id],
    );
  }
  await db.raw('ANALYZE idempotency_records');
  expect((await db('idempotency_records_legacy').count<{ count: string }[]>('* as count'))[0]!.count).toBe('20003');

  const olderThan = new Date(Date.now() - 30 * 24 * 3600_000);
  const res = (await db.raw(`EXPLAIN (COSTS OFF) ${legacyPurgeSql(5000)}`, [olderThan, null, null])) as { rows: { 'QUERY PLAN': string }[] };
  const plan = res.rows.map((r) => r['QUERY PLAN']).join('\n');
  if (process.env.SHOW_PLANS) console.log(plan);
  expect(plan).toMatch(/Index (Only )?Scan using idempotency_records_legacy_created_at|Bitmap Index Scan on idempotency_records_legacy_created_at/);
  expect(plan).not.toMatch(/Seq Scan on idempotency_records_legacy k/);

  expect(await purgeLegacyIdempotencyRecords(db, { olderThan })).toBe(3);
  expect((await db('idempotency_records_legacy').count<{ count: string }[]>('* as count'))[0]!.count).toBe('20000');
});
