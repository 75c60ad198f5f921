/**
 * A hot statement describes its rows once per connection (store/hot-statement.ts): the next
 * executions send no Describe and parse their rows with the kept description — the same rows,
 * typed the same, as pg's own path; errors answered as before and the connection still usable.
 */
import knexPkg, { type Knex } from 'knex';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { hotQuery } from '../../src/store/db.js';
import { createTestDatabase } from '../helpers/app.js';

let db: Knex;
let drop: () => Promise<void>;

const SELECT = `SELECT id, amount, at, doc, note FROM hot_t WHERE id >= ? ORDER BY id`;
const INSERT = `INSERT INTO hot_t (id, amount, at, doc, note) VALUES (?, ?, ?, ?, ?) RETURNING id, amount, at, doc, note`;

beforeAll(async () => {
  const d = await createTestDatabase();
  drop = d.drop;
  // one connection: every statement below runs on the same one
  db = knexPkg.knex({ client: 'pg', connection: d.url, pool: { min: 0, max: 1 } });
  await db.raw('CREATE TABLE hot_t (id int PRIMARY KEY, amount numeric NOT NULL, at timestamptz NOT NULL, doc jsonb, note text)');
});
afterAll(async () => {
  await db?.destroy();
  await drop?.();
});

/** Counts the Describe messages pg sends on the pool's one connection. */
async function countDescribes(): Promise<{ count(): number }> {
  const client = (
    db as unknown as { client: { acquireConnection(): Promise<{ connection: { describe(...a: unknown[]): void } }>; releaseConnection(c: unknown): void } }
  ).client;
  const conn = await client.acquireConnection();
  let n = 0;
  const original = conn.connection.describe.bind(conn.connection);
  conn.connection.describe = (...a: unknown[]) => {
    n += 1;
    original(...a);
  };
  client.releaseConnection(conn);
  return { count: () => n };
}

describe('hotQuery describes a statement once per connection', () => {
  it('answers the same typed rows as pg, with one Describe for many executions', async () => {
    const describes = await countDescribes();
    const at = new Date('2026-11-28T10:00:00.123Z');
    const inserted = [];
    for (let i = 1; i <= 4; i++) {
      const res = await hotQuery(db, 'test_hot_insert', INSERT, [
        i,
        `${i}00.5`,
        at,
        JSON.stringify({ n: i, big: '12345678901234567890' }),
        i % 2 ? null : `note ${i}`,
      ]);
      inserted.push(...res.rows);
    }
    expect(inserted).toEqual(
      [1, 2, 3, 4].map((i) => ({ id: i, amount: `${i}00.5`, at, doc: { n: i, big: '12345678901234567890' }, note: i % 2 ? null : `note ${i}` })),
    );
    const viaPg = (await db.raw<{ rows: unknown[] }>(SELECT.replace('?', '1'))).rows;
    for (let k = 0; k < 3; k++) expect((await hotQuery(db, 'test_hot_select', SELECT, [1])).rows).toEqual(viaPg);
    // no rows: the kept description still answers an empty list
    expect((await hotQuery(db, 'test_hot_select', SELECT, [99])).rows).toEqual([]);
    // two statements, each described on its first execution only (knex's raw text without values sends none)
    expect(describes.count()).toBe(2);
    // each row its own object (the kept empty row is copied, never shared)
    const [a, b] = (await hotQuery(db, 'test_hot_select', SELECT, [1])).rows as Array<Record<string, unknown>>;
    a!.note = 'changed';
    expect(b!.note).toBe('note 2');
    expect(((await hotQuery(db, 'test_hot_select', SELECT, [1])).rows[0] as Record<string, unknown>).note).toBeNull();
  });

  it('answers an error as before and leaves the connection usable', async () => {
    await expect(hotQuery(db, 'test_hot_insert', INSERT, [1, '1', new Date(), null, null])).rejects.toMatchObject({ code: '23505' });
    await expect(hotQuery(db, 'test_hot_insert', INSERT, [5, 'not a number', new Date(), null, null])).rejects.toMatchObject({ code: '22P02' });
    const res = await hotQuery(db, 'test_hot_insert', INSERT, [5, '5', new Date('2026-01-01T00:00:00Z'), null, 'five']);
    expect(res.rows).toEqual([{ id: 5, amount: '5', at: new Date('2026-01-01T00:00:00Z'), doc: null, note: 'five' }]);
  });

  it('describes again on a new connection', async () => {
    await db.destroy();
    db.initialize();
    const describes = await countDescribes();
    expect((await hotQuery(db, 'test_hot_select', SELECT, [5])).rows).toHaveLength(1);
    expect((await hotQuery(db, 'test_hot_select', SELECT, [5])).rows).toHaveLength(1);
    expect(describes.count()).toBe(1);
  });
});
