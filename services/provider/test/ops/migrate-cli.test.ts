import { readdirSync } from 'node:fs';
import { MIGRATIONS_DIR } from '../../src/store/migrate.js';
/**
 * The migration command of the image (OPS-CONTRACT.md: node services/provider/dist/migrate-cli.js,
 * the Helm hook Job and the k8s/ Job) and MIGRATE_ON_START=false (pods that only check), against
 * the real PostgreSQL.
 */
import { randomBytes } from 'node:crypto';
import knexPkg from 'knex';
import { afterAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config.js';
import { openDatabase } from '../../src/store/db.js';
import { pendingMigrations } from '../../src/store/migrate.js';
import { createTestDatabase } from '../helpers/app.js';
import { runCli } from '../helpers/cli.js';
import { adminUrl, databaseUrl } from '../helpers/env.js';

/** The migrations of this build, in order. */
const MIGRATIONS = readdirSync(MIGRATIONS_DIR)
  .filter((f) => f.endsWith('.js'))
  .sort();

const created: string[] = [];

/** An empty database (no migration ever ran), dropped after the file. */
async function emptyDatabase(): Promise<string> {
  const name = `gp_t_${randomBytes(6).toString('hex')}`;
  const admin = knexPkg.knex({ client: 'pg', connection: adminUrl(), pool: { min: 0, max: 1 } });
  try {
    await admin.raw('CREATE DATABASE ??', [name]);
  } finally {
    await admin.destroy();
  }
  created.push(name);
  return databaseUrl(name);
}

async function withDb<T>(url: string, fn: (db: knexPkg.Knex) => Promise<T>): Promise<T> {
  const db = knexPkg.knex({ client: 'pg', connection: url, pool: { min: 0, max: 1 } });
  try {
    return await fn(db);
  } finally {
    await db.destroy();
  }
}

afterAll(async () => {
  const admin = knexPkg.knex({ client: 'pg', connection: adminUrl(), pool: { min: 0, max: 1 } });
  try {
    for (const name of created) await admin.raw('DROP DATABASE IF EXISTS ?? WITH (FORCE)', [name]);
  } finally {
    await admin.destroy();
  }
});

describe('MIGRATE_ON_START', () => {
  it('is true by default and read from "true"/"false"/"1"/"0"', () => {
    expect(loadConfig({}).migrateOnStart).toBe(true);
    expect(loadConfig({ MIGRATE_ON_START: 'false' }).migrateOnStart).toBe(false);
    expect(loadConfig({ MIGRATE_ON_START: '0' }).migrateOnStart).toBe(false);
    expect(loadConfig({ MIGRATE_ON_START: 'true' }).migrateOnStart).toBe(true);
    expect(loadConfig({ MIGRATE_ON_START: '1' }).migrateOnStart).toBe(true);
    expect(() => loadConfig({ MIGRATE_ON_START: 'no' })).toThrow(/MIGRATE_ON_START/);
  });

  it('false: refuses a database that is not at the latest migration, naming what is pending, and writes nothing', async () => {
    const url = await emptyDatabase();
    const pending = new RegExp(`not at the latest migration \\(${MIGRATIONS.length} pending: ${MIGRATIONS.join(', ').replace(/\./g, '\\.')}\\).*migrate-cli`);
    await expect(openDatabase({ databaseUrl: url, dataDir: '.data', migrate: false })).rejects.toThrow(pending);
    const tables = await withDb(url, (db) => db('pg_tables').where({ schemaname: 'public' }).pluck('tablename'));
    expect(tables).toEqual([]);
  });

  it('false: starts on a migrated database, and on one a newer release already migrated further', async () => {
    const database = await createTestDatabase();
    try {
      const h = await openDatabase({ databaseUrl: database.url, dataDir: '.data', migrate: false });
      expect((await h.db.raw('select count(*)::int as n from operators')).rows[0].n).toBeGreaterThanOrEqual(0);
      // The next release's migration ran (pre-upgrade hook) while this build's pods still start.
      await h.db('knex_migrations').insert({ name: '29990101000000_next_release.js', batch: 99, migration_time: new Date() });
      await h.close();
      const again = await openDatabase({ databaseUrl: database.url, dataDir: '.data', migrate: false });
      await again.close();
    } finally {
      await database.drop();
    }
  });

  it('true (the default): migrates an empty database at start', async () => {
    const url = await emptyDatabase();
    const h = await openDatabase({ databaseUrl: url, dataDir: '.data' });
    try {
      expect(await pendingMigrations(h.db)).toEqual([]);
    } finally {
      await h.close();
    }
  });

  it('false: the server process refuses to start on an unmigrated database (exit non-zero, reason printed)', async () => {
    const url = await emptyDatabase();
    const run = await runCli('server', {
      NODE_ENV: 'production',
      MIGRATE_ON_START: 'false',
      DATABASE_URL: url,
      SECRET_KEY: 'b'.repeat(64),
      PUBLIC_BASE_URL: 'https://games.test',
      PORT: '0',
      LOG_LEVEL: 'silent',
    });
    expect(run.code).not.toBe(0);
    expect(run.stderr).toMatch(/not at the latest migration/);
  });
});

describe('migrate-cli: node services/provider/dist/migrate-cli.js', () => {
  it('migrates an empty database, exits 0, and a second run has nothing to do', async () => {
    const url = await emptyDatabase();
    const first = await runCli('migrate-cli', { DATABASE_URL: url });
    expect(first.code, first.stderr).toBe(0);
    expect(first.stdout).toContain(`ran ${MIGRATIONS.length} migration(s): ${MIGRATIONS.join(', ')}`);
    expect(await withDb(url, (db) => pendingMigrations(db))).toEqual([]);
    expect(await withDb(url, (db) => db.schema.hasTable('rounds'))).toBe(true);

    const second = await runCli('migrate-cli', { DATABASE_URL: url });
    expect(second.code, second.stderr).toBe(0);
    expect(second.stdout).toMatch(/nothing to run/);
  });

  it('three runs at once on an empty database all succeed and migrate once (they wait for each other)', async () => {
    const url = await emptyDatabase();
    const runs = await Promise.all([1, 2, 3].map(() => runCli('migrate-cli', { DATABASE_URL: url })));
    for (const r of runs) expect(r.code, r.stderr).toBe(0);
    expect(runs.filter((r) => r.stdout.includes(`ran ${MIGRATIONS.length} migration(s)`))).toHaveLength(1);
    expect(await withDb(url, (db) => db('knex_migrations').count<{ count: string }[]>('* as count'))).toEqual([{ count: String(MIGRATIONS.length) }]);
  });

  it('pods that start together on an empty database (MIGRATE_ON_START=true) all start', async () => {
    const url = await emptyDatabase();
    const handles = await Promise.all([1, 2, 3, 4].map(() => openDatabase({ databaseUrl: url, dataDir: '.data', poolMax: 2 })));
    try {
      for (const h of handles) expect(await pendingMigrations(h.db)).toEqual([]);
    } finally {
      await Promise.all(handles.map((h) => h.close()));
    }
  });

  it('exits non-zero when the database cannot be reached, without printing the password', async () => {
    const u = new URL(databaseUrl(`gp_t_missing_${randomBytes(4).toString('hex')}`));
    u.password = 'pw-never-printed-7f3a';
    const run = await runCli('migrate-cli', { DATABASE_URL: u.toString() });
    expect(run.code).toBe(1);
    expect(run.stderr).toMatch(/migrate: failed/);
    expect(run.stdout + run.stderr).not.toContain('pw-never-printed-7f3a');
  });

  it('exits 2 without DATABASE_URL', async () => {
    const run = await runCli('migrate-cli', {});
    expect(run.code).toBe(2);
    expect(run.stderr).toMatch(/DATABASE_URL is not set/);
  });
});
