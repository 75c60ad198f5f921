/**
 * The image's migration command (OPS-CONTRACT.md): `node services/provider/dist/migrate-cli.js`.
 * Runs the knex migrations of migrations/ against DATABASE_URL, prints what it ran, exits 0 when
 * the database is at the latest migration and non-zero on failure. The Helm pre-install and
 * pre-upgrade hook Job and the k8s/ Job run it; the pods then start with MIGRATE_ON_START=false.
 * Two runs at once are safe: they wait for each other (store/migrate.ts).
 * Exit codes: 0 done, 1 the migration failed, 2 DATABASE_URL missing.
 */
import knexPkg from 'knex';
import { migrate, pendingMigrations } from './store/migrate.js';

const knex = knexPkg.knex ?? (knexPkg as unknown as typeof knexPkg.knex);

async function main(): Promise<number> {
  const databaseUrl = process.env.DATABASE_URL?.trim();
  if (!databaseUrl) {
    console.error('migrate: DATABASE_URL is not set');
    return 2;
  }
  const db = knex({ client: 'pg', connection: { connectionString: databaseUrl }, pool: { min: 0, max: 1 }, acquireConnectionTimeout: 30_000 });
  try {
    const ran = await migrate(db);
    const pending = await pendingMigrations(db);
    if (pending.length > 0) throw new Error(`still pending after the run: ${pending.join(', ')}`);
    console.log(ran.length > 0 ? `migrate: ran ${ran.length} migration(s): ${ran.join(', ')}` : 'migrate: nothing to run');
    console.log('migrate: the database is at the latest migration');
    return 0;
  } catch (err) {
    // A pg error names the host and database at most, never the connection string's password.
    console.error(`migrate: failed: ${err instanceof Error ? err.message : String(err)}`);
    return 1;
  } finally {
    await db.destroy();
  }
}

process.exitCode = await main();
