/**
 * The database: PostgreSQL through DATABASE_URL, or the embedded PGlite in DATA_DIR when it is
 * unset (CONTRACT.md §1). Both run the same migrations; every money rule is also a constraint
 * there (see migrations/).
 */
import { mkdirSync } from 'node:fs';
import path from 'node:path';
import knexPkg from 'knex';
import type { Knex } from 'knex';
import { DEFAULT_HOT_BATCHES } from '../config.js';
import { type BatchOptions, StatementBatches } from './statement-batches.js';
import { assertMigrated, migrate } from './migrate.js';

const knex = knexPkg.knex ?? (knexPkg as unknown as typeof knexPkg.knex);

export type Db = Knex;
export type Tx = Knex.Transaction;
/** Either the database or an open transaction: every data-access function takes one. */
export type Queryable = Knex | Knex.Transaction;

export interface DbHandle {
  db: Db;
  mode: 'postgres' | 'embedded';
  close(): Promise<void>;
}

/** `migrate: false` (MIGRATE_ON_START=false) only checks that the database is at the latest migration. */
export async function openDatabase(opts: {
  databaseUrl: string | undefined;
  dataDir: string;
  poolMax?: number;
  /** the hot statements' batches (statement-batches.ts); DEFAULT_HOT_BATCHES when not given */
  hotBatches?: BatchOptions;
  migrate?: boolean;
  embeddedTemplate?: string | null;
}): Promise<DbHandle> {
  let db: Db;
  let mode: DbHandle['mode'];
  if (opts.databaseUrl) {
    db = knex({
      client: 'pg',
      // The hot path's named statements (hotQuery) keep one generic plan: rounds and callbacks are
      // partitioned (migration 20261128131000) and a custom plan, pruned while planning, made
      // PostgreSQL plan every statement again (and evaluate the partition bounds' functions to do it).
      // The generic plan prunes when it starts (Subplans Removed). Unnamed statements are unaffected.
      connection: { connectionString: opts.databaseUrl, options: '-c plan_cache_mode=force_generic_plan' },
      pool: { min: 0, max: opts.poolMax ?? 10 },
      acquireConnectionTimeout: 10_000,
    });
    mode = 'postgres';
    batchOptions.set(db.client as object, opts.hotBatches ?? DEFAULT_HOT_BATCHES);
  } else {
    const { knexOnPglite, openPglite, TEMPLATE_FILE } = await loadEmbedded();
    const dir = path.resolve(opts.dataDir, 'pg');
    mkdirSync(dir, { recursive: true });
    // An empty directory starts from the build's migrated template (store/embedded-template.ts).
    const { pglite } = await openPglite(dir, opts.embeddedTemplate === undefined ? TEMPLATE_FILE : opts.embeddedTemplate);
    // the cluster is ready (loaded, or created) before knex's 60 s wait for its one connection starts
    await pglite.waitReady;
    db = knexOnPglite(pglite);
    mode = 'embedded';
  }
  try {
    if (opts.migrate === false) await assertMigrated(db);
    else await migrate(db);
    // the months of rounds and callbacks up to a month ahead (migrations 20261128131000, 20261128133000); a pod whose user may not
    // create tables leaves it to the migrating Job and the maintenance pass
    await db.raw("SELECT gp_ensure_time_partitions(interval '1 month')").catch((err: unknown) => {
      if (opts.migrate !== false) throw err;
    });
  } catch (err) {
    await db.destroy();
    throw err;
  }
  return { db, mode, close: () => db.destroy() };
}

/**
 * The embedded PostgreSQL (PGlite, an optional dependency) is loaded only when DATABASE_URL is
 * unset: the production image installs without optional dependencies and never carries it.
 */
async function loadEmbedded(): Promise<typeof import('./embedded-template.js')> {
  try {
    return await import('./embedded-template.js');
  } catch (err) {
    const e = err as NodeJS.ErrnoException;
    if (e.code === 'ERR_MODULE_NOT_FOUND' && /pglite/i.test(e.message)) {
      throw new Error(
        'DATABASE_URL is not set and the embedded PostgreSQL (@electric-sql/pglite, an optional dependency) is not installed, as in the production image: set DATABASE_URL',
        { cause: err },
      );
    }
    throw err;
  }
}

/**
 * A query's LIMIT written into its text, not bound as a parameter: `.limit(n, LIMIT_IN_TEXT)` (knex)
 * or `LIMIT ${sqlLimit(n)}` (raw SQL). Every connection plans with `plan_cache_mode =
 * force_generic_plan` (above: the hot path's named statements), and that holds for every other
 * statement too: a generic plan does not know a bound LIMIT and assumes it keeps a tenth of the
 * rows, so a page of 100 rows of a 10-million-row history was planned as a join of a million
 * (a hash join over every round, 10.6 s for the reconciliation's first page on the bench's 10 M
 * database; docs/performance.md). With the number in the text the plan reads one page.
 */
export const LIMIT_IN_TEXT = { skipBinding: true } as const;

/** A LIMIT's number for raw SQL text (LIMIT_IN_TEXT): a non-negative safe integer, else thrown. */
export function sqlLimit(n: number): string {
  if (!Number.isSafeInteger(n) || n < 0) throw new Error(`not a row limit: ${n}`);
  return String(n);
}

/** NUMERIC and int8 columns arrive as strings from pg and sometimes as numbers from PGlite. */
export function toBigInt(value: unknown): bigint {
  if (typeof value === 'bigint') return value;
  if (typeof value === 'number') {
    if (!Number.isSafeInteger(value)) throw new Error(`not an exact integer: ${value}`);
    return BigInt(value);
  }
  if (typeof value === 'string') return BigInt(value.includes('.') ? value.replace(/\.0*$/, '') : value);
  throw new Error(`not an integer column value: ${String(value)}`);
}

export function toNullableBigInt(value: unknown): bigint | null {
  return value === null || value === undefined ? null : toBigInt(value);
}

export function toIso(value: unknown): string {
  if (value instanceof Date) return value.toISOString();
  return new Date(String(value)).toISOString();
}

/**
 * Text from outside (a casino's answer) made storable: PostgreSQL text and jsonb refuse the NUL
 * character, so it (and every other control character but tab and newline) becomes U+FFFD;
 * `max` caps the length.
 */
export function storableText(value: string, max = 100_000): string {
  // eslint-disable-next-line no-control-regex
  const clean = value.replace(/[\u0000-\u0008\u000b\u000c\u000e-\u001f\u007f]/g, '\ufffd');
  return clean.length > max ? clean.slice(0, max) : clean;
}

/** Is this a unique-constraint violation (PostgreSQL 23505)? Optionally of a given constraint. */
export function isUniqueViolation(err: unknown, constraint?: string): boolean {
  const e = err as { code?: string; constraint?: string; message?: string } | null;
  if (!e || e.code !== '23505') return false;
  if (!constraint) return true;
  return e.constraint === constraint || (e.message ?? '').includes(constraint);
}

const numberedText = new Map<string, string>();

/**
 * A hot statement as a named prepared statement, sent straight to the pg connection (knex's
 * query runner costs more CPU than the statement itself on the hot path): PostgreSQL parses and
 * plans it once per connection, and describes its rows once per connection (hot-statement.ts). `sql` uses `?` placeholders; `name` must identify its exact
 * text. Inside a transaction, or on the embedded PGlite, it goes through knex as any statement.
 */
export async function hotQuery(db: Queryable, name: string, sql: string, values: unknown[]): Promise<{ rows: unknown[] }> {
  const client = (
    db as unknown as { client: { config: { client?: unknown }; acquireConnection(): Promise<PgConnection>; releaseConnection(c: PgConnection): void } }
  ).client;
  if ((db as { isTransaction?: boolean }).isTransaction || client.config.client !== 'pg') {
    return db.raw(sql, values as Knex.RawBinding[]).options({ name }) as unknown as Promise<{ rows: unknown[] }>;
  }
  let text = numberedText.get(name);
  if (text === undefined) {
    let n = 0;
    text = sql.replace(/\?/g, () => `$${++n}`);
    numberedText.set(name, text);
  }
  return batchesOf(db).run({ name, text, values });
}

const batches = new WeakMap<object, StatementBatches>();
const batchOptions = new WeakMap<object, BatchOptions>();

/** The hot statements' batches of a knex pool (statement-batches.ts), made on its first hot statement. */
export function batchesOf(db: Queryable): StatementBatches {
  const client = (db as unknown as { client: { acquireConnection(): Promise<PgConnection>; releaseConnection(c: PgConnection): void } }).client;
  let b = batches.get(client);
  if (!b) {
    b = new StatementBatches(
      { acquire: () => client.acquireConnection(), release: (c) => client.releaseConnection(c as PgConnection) },
      batchOptions.get(client) ?? DEFAULT_HOT_BATCHES,
    );
    batches.set(client, b);
  }
  return b;
}

interface PgConnection {
  query(q: object): unknown;
}
