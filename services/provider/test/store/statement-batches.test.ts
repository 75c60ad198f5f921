/**
 * Hot statements of concurrent requests sent together as one transaction (store/statement-batches.ts),
 * against a real PostgreSQL: each statement answers its own rows, only once the batch has committed;
 * a refused statement leaves nothing of its batch written, and every statement of it runs again
 * alone, the refused one answering its own error; statements parsed in a refused batch still run on
 * that connection; a lost connection is that error for every statement, none sent again.
 */
import knexPkg, { type Knex } from 'knex';
import pg from 'pg';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { StatementBatches, type PgClient } from '../../src/store/statement-batches.js';
import { hotQuery } from '../../src/store/db.js';
import { createTestDatabase } from '../helpers/app.js';

let db: Knex;
let url: string;
let drop: () => Promise<void>;

interface KnexClient {
  acquireConnection(): Promise<PgClient>;
  releaseConnection(c: PgClient): void;
}

const INSERT = { name: 'batch_t_insert', text: 'INSERT INTO batch_t (id, note) VALUES ($1, $2) RETURNING id, note' };

beforeAll(async () => {
  const d = await createTestDatabase();
  drop = d.drop;
  url = d.url;
  // one connection: a batch and the statements sent again after it share it
  db = knexPkg.knex({ client: 'pg', connection: d.url, pool: { min: 0, max: 1 } });
  await db.raw('CREATE TABLE batch_t (id int PRIMARY KEY, note text NOT NULL)');
});
afterAll(async () => {
  await db?.destroy();
  await drop?.();
});
beforeEach(async () => {
  await db.raw('TRUNCATE batch_t');
});

async function backendsRunning(other: pg.Client, text: string): Promise<number[]> {
  const r = await other.query('SELECT pid FROM pg_stat_activity WHERE pid <> pg_backend_pid() AND query LIKE $1', [`%${text}%`]);
  return r.rows.map((row: { pid: number }) => row.pid);
}

/** Waits until a backend runs `text`, then ends it with `end`. */
async function endBackendRunning(other: pg.Client, text: string, end: (pid: number) => Promise<unknown>): Promise<void> {
  for (let i = 0; i < 200; i++) {
    const pids = await backendsRunning(other, text);
    if (pids.length) {
      await end(pids[0]!);
      return;
    }
    await new Promise((res) => setTimeout(res, 10));
  }
  throw new Error(`no backend ran ${text}`);
}

/** Batches on a pool (the test's, or `on`), one batch out at a time: what arrives meanwhile waits and goes together. */
function batchesOnPool(on: Knex = db): StatementBatches {
  const client = (on as unknown as { client: KnexClient }).client;
  return new StatementBatches({ acquire: () => client.acquireConnection(), release: (c) => client.releaseConnection(c) }, { inFlight: 1, maxBatch: 16 });
}

describe('statement batches', () => {
  it('sends the statements that wait together, and each answers its own rows', async () => {
    const b = batchesOnPool();
    const answers = await Promise.all(Array.from({ length: 12 }, (_, i) => b.run({ ...INSERT, values: [i, `note ${i}`] })));
    expect(answers.map((a) => a.rows)).toEqual(Array.from({ length: 12 }, (_, i) => [{ id: i, note: `note ${i}` }]));
    // the first went alone (nothing was out), the eleven that waited behind it in one batch
    expect(b.counts).toEqual({ statements: 12, batches: 2, resent: 0 });
    expect((await db('batch_t').count<{ count: string }[]>('* as count'))[0]!.count).toBe('12');
  });

  it('answers a statement only once its batch has committed', async () => {
    const b = batchesOnPool();
    const other = new pg.Client({ connectionString: url });
    await other.connect();
    try {
      const seen: number[] = [];
      await Promise.all(
        Array.from({ length: 6 }, (_, i) =>
          b.run({ ...INSERT, values: [i, 'x'] }).then(async () => {
            // another connection sees the row the moment its statement answers
            const r = await other.query('SELECT count(*)::int AS n FROM batch_t WHERE id = $1', [i]);
            seen.push(r.rows[0].n as number);
          }),
        ),
      );
      expect(seen).toEqual([1, 1, 1, 1, 1, 1]);
      expect(b.counts.batches).toBe(2);
    } finally {
      await other.end();
    }
  });

  it('a refused statement leaves nothing of its batch written; the others go again in a batch, the refused one alone answers its own error', async () => {
    await db('batch_t').insert({ id: 100, note: 'taken' });
    const b = batchesOnPool();
    const ids = [1, 2, 100, 3, 4];
    const settled = await Promise.allSettled([b.run({ ...INSERT, values: [0, 'first'] }), ...ids.map((id) => b.run({ ...INSERT, values: [id, 'n'] }))]);
    expect(settled.map((s) => s.status)).toEqual(['fulfilled', 'fulfilled', 'fulfilled', 'rejected', 'fulfilled', 'fulfilled']);
    const refused = (settled[3] as PromiseRejectedResult).reason as { code?: string; constraint?: string };
    expect(refused.code).toBe('23505');
    expect(refused.constraint).toBe('batch_t_pkey');
    // the batch of five failed at its third: the two before it went again with the two after it (which never ran), the refused one alone
    expect(b.counts).toEqual({ statements: 1 + 5 + 4 + 1, batches: 4, resent: 3 });
    expect((await db('batch_t').orderBy('id').select('id')).map((r) => r.id)).toEqual([0, 1, 2, 3, 4, 100]);
  });

  it('two batches that deadlock: PostgreSQL refuses one, and its statements go again; every caller gets its answer once', async () => {
    await db('batch_t').insert([
      { id: 1, note: '0' },
      { id: 2, note: '0' },
    ]);
    const own = knexPkg.knex({ client: 'pg', connection: url, pool: { min: 0, max: 2 } });
    const client = (own as unknown as { client: KnexClient }).client;
    const b = new StatementBatches({ acquire: () => client.acquireConnection(), release: (c) => client.releaseConnection(c) }, { inFlight: 2, maxBatch: 3 });
    try {
      const bump = (id: number) =>
        b.run({ name: 'batch_t_bump', text: 'UPDATE batch_t SET note = (note::int + 1)::text WHERE id = $1 RETURNING note', values: [id] });
      const nap = () => b.run({ name: 'batch_t_nap', text: 'SELECT pg_sleep(0.2) AS slept', values: [] });
      // two naps fill both slots; behind them two batches of three: 1 then 2, and 2 then 1
      const busy = [nap(), nap()];
      const settled = await Promise.allSettled([bump(1), nap(), bump(2), bump(2), nap(), bump(1), ...busy]);
      expect(settled.map((x) => x.status)).toEqual(Array(8).fill('fulfilled'));
      // each row bumped twice: no bump lost, none applied twice
      expect((await db('batch_t').orderBy('id').select('id', 'note')).map((r) => `${r.id}:${r.note}`)).toEqual(['1:2', '2:2']);
      // one batch was refused (deadlock detected): its first two went again, its third alone
      expect(b.counts.resent).toBe(3);
    } finally {
      await own.destroy();
    }
  });

  it('statements parsed in a refused batch (theirs, or skipped after the refusal) run on that connection afterwards', async () => {
    await db('batch_t').insert({ id: 7, note: 'taken' });
    const b = batchesOnPool();
    const fresh = (n: number) => ({ name: `batch_t_fresh_${n}`, text: `INSERT INTO batch_t (id, note) VALUES ($1, $2 || '${n}') RETURNING id` });
    // the first goes alone; the next three wait: a statement parsed before the refusal, the refused one, one parsed after it
    const settled = await Promise.allSettled([
      b.run({ ...INSERT, values: [50, 'a'] }),
      b.run({ ...fresh(1), values: [51, 'b'] }),
      b.run({ ...fresh(2), values: [7, 'c'] }),
      b.run({ ...fresh(3), values: [53, 'd'] }),
    ]);
    expect(settled.map((s) => s.status)).toEqual(['fulfilled', 'fulfilled', 'rejected', 'fulfilled']);
    // and again, batched, on the same (the pool's one) connection
    const again = await Promise.all([
      b.run({ ...INSERT, values: [60, 'e'] }),
      b.run({ ...fresh(1), values: [61, 'f'] }),
      b.run({ ...fresh(2), values: [62, 'g'] }),
      b.run({ ...fresh(3), values: [63, 'h'] }),
    ]);
    expect(again.map((a) => a.rows)).toEqual([[{ id: 60, note: 'e' }], [{ id: 61 }], [{ id: 62 }], [{ id: 63 }]]);
  });

  it('a backend ended under its batch (FATAL) is that error for every statement, and none is sent again (the connection is gone)', async () => {
    // a pool of its own: its one connection ends here
    const own = knexPkg.knex({ client: 'pg', connection: url, pool: { min: 0, max: 1 } });
    const b = batchesOnPool(own);
    const other = new pg.Client({ connectionString: url });
    await other.connect();
    try {
      const first = b.run({ name: 'batch_t_sleep', text: 'SELECT pg_sleep(0.3) AS slept', values: [] });
      const waiting = [
        b.run({ ...INSERT, values: [1, 'a'] }),
        b.run({ name: 'batch_t_sleep1', text: 'SELECT pg_sleep(1) AS slept', values: [] }),
        b.run({ ...INSERT, values: [2, 'b'] }),
      ];
      // their outcomes taken at once: they fail while the test waits below
      const outcomes = Promise.allSettled(waiting);
      await first;
      await endBackendRunning(other, 'pg_sleep(1)', (pid) => other.query('SELECT pg_terminate_backend($1)', [pid]));
      const settled = await outcomes;
      expect(settled.map((s) => s.status)).toEqual(['rejected', 'rejected', 'rejected']);
      expect(((settled[0] as PromiseRejectedResult).reason as { code?: string }).code).toBe('57P01');
      expect(b.counts.resent).toBe(0);
      // rolled back with the backend (read on the other connection: the pool's one is the ended one until its socket closes)
      expect((await other.query('SELECT count(*)::int AS n FROM batch_t')).rows).toEqual([{ n: 0 }]);
    } finally {
      await other.end();
      await own.destroy();
    }
  });

  it('a connection lost under its batch (the outcome unknown) is that error for every statement, and none is sent again', async () => {
    // a pool of its own: its one connection ends here
    const own = knexPkg.knex({ client: 'pg', connection: url, pool: { min: 0, max: 1 } });
    const client = (own as unknown as { client: KnexClient }).client;
    let last: PgClient | null = null;
    const b = new StatementBatches(
      {
        acquire: async () => (last = await client.acquireConnection()),
        release: (c) => client.releaseConnection(c),
      },
      { inFlight: 1, maxBatch: 16 },
    );
    const other = new pg.Client({ connectionString: url });
    await other.connect();
    try {
      const first = b.run({ name: 'batch_t_sleep', text: 'SELECT pg_sleep(0.3) AS slept', values: [] });
      const waiting = [
        b.run({ ...INSERT, values: [1, 'a'] }),
        b.run({ name: 'batch_t_sleep1', text: 'SELECT pg_sleep(1) AS slept', values: [] }),
        b.run({ ...INSERT, values: [2, 'b'] }),
      ];
      // their outcomes taken at once: they fail while the test waits below
      const outcomes = Promise.allSettled(waiting);
      await first;
      // this side's socket closed while the backend sleeps in the batch's second statement
      await endBackendRunning(other, 'pg_sleep(1)', async () =>
        (last as unknown as { connection: { stream: { destroy(): void } } }).connection.stream.destroy(),
      );
      const settled = await outcomes;
      expect(settled.map((s) => s.status)).toEqual(['rejected', 'rejected', 'rejected']);
      expect(b.counts.resent).toBe(0);
      // The backend did not know: it ran the rest and committed at the Sync. Sent again, the two
      // rows would have been written twice — which is why a lost connection is never re-sent.
      for (let i = 0; i < 100 && (await backendsRunning(other, 'pg_sleep(1)')).length > 0; i++) await new Promise((res) => setTimeout(res, 50));
      expect((await other.query('SELECT id FROM batch_t ORDER BY id')).rows.map((r: { id: number }) => r.id)).toEqual([1, 2]);
    } finally {
      await other.end();
      await own.destroy();
    }
  });

  it('hotQuery goes through them: concurrent hot statements of the pool answer as alone', async () => {
    const answers = await Promise.all(
      Array.from({ length: 20 }, (_, i) => hotQuery(db, 'batch_t_hot', 'INSERT INTO batch_t (id, note) VALUES (?, ?) RETURNING id', [i, 'h'])),
    );
    expect(answers.map((a) => a.rows)).toEqual(Array.from({ length: 20 }, (_, i) => [{ id: i }]));
  });
});
