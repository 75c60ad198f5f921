/** Runs the knex migrations of the repository's top-level migrations/ folder. */
import { readdirSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import type { Knex } from 'knex';
import type pg from 'pg';

const here = path.dirname(fileURLToPath(import.meta.url));
/** src/store or dist/store → the repository root's migrations/. */
export const MIGRATIONS_DIR = path.resolve(here, '../../../../migrations');

interface MigrationModule {
  up(knex: Knex): Promise<void>;
  down(knex: Knex): Promise<void>;
}

/** The migration files of migrations/, in order (`only`: a subset, e.g. for a test's older template). */
function sourceOf(only?: (name: string) => boolean): Knex.MigrationSource<string> {
  return { ...source, getMigrations: async () => (await source.getMigrations([])).filter((n) => !only || only(n)) };
}

const source: Knex.MigrationSource<string> = {
  async getMigrations() {
    return readdirSync(MIGRATIONS_DIR)
      .filter((f) => f.endsWith('.js'))
      .sort();
  },
  getMigrationName(name) {
    return name;
  },
  async getMigration(name): Promise<MigrationModule> {
    return (await import(pathToFileURL(path.join(MIGRATIONS_DIR, name)).href)) as MigrationModule;
  },
};

/** Key of the PostgreSQL advisory lock that serialises migrators. */
const MIGRATION_LOCK_KEY = 7_211_202_401;

/**
 * Runs every migration the database has not run yet; answers the names it ran. On PostgreSQL,
 * migrators that start together (several pods, two Jobs) wait for each other on an advisory lock
 * held by a connection of its own (outside the pool; closing it frees the lock): knex's own lock
 * lives in a table that the first run creates, and two runs on an empty database race to create it.
 */
export async function migrate(db: Knex, opts: { only?: (name: string) => boolean } = {}): Promise<string[]> {
  const latest = async () => ((await db.migrate.latest({ migrationSource: opts.only ? sourceOf(opts.only) : source })) as [number, string[]])[1];
  const connection = db.client.config.connection as string | pg.ClientConfig | undefined;
  // The embedded PGlite is one process on one connection: nothing to wait for.
  if (db.client.config.client !== 'pg' || !connection || typeof connection === 'function') return latest();
  // pg is loaded only here: the embedded default (PGlite) never needs it
  const { default: pgClient } = await import('pg');
  const lock = new pgClient.Client(connection);
  await lock.connect();
  try {
    await lock.query('select pg_advisory_lock($1)', [MIGRATION_LOCK_KEY]);
    return await latest();
  } finally {
    await lock.end();
  }
}

/**
 * The migrations of this build that the database has not run, read without writing anything
 * (knex's own list() would create its tables). Migrations the database ran that this build does
 * not know are newer releases' (expand-only, docs/operations.md) and are not counted.
 */
export async function pendingMigrations(db: Knex): Promise<string[]> {
  const all = await source.getMigrations([]);
  const ran = (await db.schema.hasTable('knex_migrations')) ? new Set(await db('knex_migrations').pluck('name')) : new Set<string>();
  return all.filter((name) => !ran.has(name));
}

/** MIGRATE_ON_START=false: refuse to start on a database that is not at this build's latest migration. */
export async function assertMigrated(db: Knex): Promise<void> {
  const pending = await pendingMigrations(db);
  if (pending.length > 0) {
    throw new Error(
      `the database is not at the latest migration (${pending.length} pending: ${pending.join(', ')}); ` +
        'run node services/provider/dist/migrate-cli.js (the migration Job) or start with MIGRATE_ON_START=true',
    );
  }
}
