/**
 * Once per test run: checks that the real PostgreSQL and Redis are there and builds a migrated
 * template database; each test file then clones its own database from it (test/helpers/app.ts).
 */
import { createHash } from 'node:crypto';
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import knexPkg from 'knex';
import type { TestProject } from 'vitest/node';
import { Redis } from 'ioredis';
import { migrate, MIGRATIONS_DIR } from '../../src/store/migrate.js';
import { adminUrl, databaseUrl, REDIS_URL, TEMPLATE_PREFIX } from './env.js';

export function templateName(): string {
  const h = createHash('sha256');
  for (const f of readdirSync(MIGRATIONS_DIR).sort()) h.update(f).update(readFileSync(path.join(MIGRATIONS_DIR, f)));
  return `${TEMPLATE_PREFIX}${h.digest('hex').slice(0, 12)}`;
}

export default async function setup(project: TestProject): Promise<void> {
  const redis = new Redis(REDIS_URL, { lazyConnect: true, maxRetriesPerRequest: 1 });
  try {
    await redis.connect();
    await redis.ping();
  } catch (err) {
    throw new Error(`Redis is not reachable at ${REDIS_URL} (set TEST_REDIS_URL): ${(err as Error).message}`);
  } finally {
    redis.disconnect();
  }
  const admin = knexPkg.knex({ client: 'pg', connection: adminUrl(), pool: { min: 0, max: 1 } });
  try {
    await admin.raw('select 1');
  } catch (err) {
    await admin.destroy();
    throw new Error(`PostgreSQL is not reachable at ${adminUrl()} (set TEST_DATABASE_URL): ${(err as Error).message}`);
  }
  const name = templateName();
  try {
    const exists = await admin('pg_database').where({ datname: name }).first();
    if (!exists) {
      // Leftover test databases of crashed runs go first, but only those nobody is connected to:
      // another checkout's run on the same server (a parallel worktree, another CI job) may be
      // using its own databases right now, and may clone from its own template (another
      // migration set) at any moment, so no database is dropped by force and no template at all.
      const stale = await admin('pg_database').where('datname', 'like', 'gp\\_t\\_%').pluck('datname');
      for (const db of stale) await admin.raw('DROP DATABASE IF EXISTS ??', [db]).catch(() => undefined);
      await admin.raw('CREATE DATABASE ??', [name]);
      const db = knexPkg.knex({ client: 'pg', connection: databaseUrl(name), pool: { min: 0, max: 1 } });
      try {
        await migrate(db);
      } finally {
        await db.destroy();
      }
    }
  } finally {
    await admin.destroy();
  }
  project.provide('gpTemplate', name);
}

declare module 'vitest' {
  export interface ProvidedContext {
    gpTemplate: string;
  }
}
