/**
 * Boots the whole app for a test on its own database (cloned from the migrated template) and
 * its own Redis key prefix, so test files never collide. Close it after the test file.
 */
import { randomBytes } from 'node:crypto';
import knexPkg from 'knex';
import { inject } from 'vitest';
import { buildApp, type AppInstance, type BuildOptions, type Services } from '../../src/app.js';
import { loadConfig, type Config } from '../../src/config.js';
import { adminUrl, databaseUrl, REDIS_URL } from './env.js';

export const ADMIN_TOKEN = 'test-admin-token-0123456789';
export const CRON_SECRET = 'test-cron-secret-0123456789';
export const SECRET_KEY = 'a'.repeat(64);

/** A fresh database cloned from the template; answers its URL and a drop function. */
export async function createTestDatabase(): Promise<{ url: string; drop(): Promise<void> }> {
  const template = inject('gpTemplate');
  const name = `gp_t_${randomBytes(6).toString('hex')}`;
  const admin = knexPkg.knex({ client: 'pg', connection: adminUrl(), pool: { min: 0, max: 1 } });
  try {
    for (let attempt = 0; ; attempt++) {
      try {
        await admin.raw('CREATE DATABASE ?? TEMPLATE ??', [name, template]);
        break;
      } catch (err) {
        if (attempt >= 20) throw err;
        await new Promise((r) => setTimeout(r, 100 + Math.random() * 200));
      }
    }
  } finally {
    await admin.destroy();
  }
  return {
    url: databaseUrl(name),
    async drop() {
      const a = knexPkg.knex({ client: 'pg', connection: adminUrl(), pool: { min: 0, max: 1 } });
      try {
        await a.raw('DROP DATABASE IF EXISTS ?? WITH (FORCE)', [name]);
      } finally {
        await a.destroy();
      }
    },
  };
}

export interface TestApp {
  app: AppInstance;
  services: Services;
  config: Config;
  /** Base URL when started with listen: true. */
  url: string;
  close(): Promise<void>;
}

export interface TestAppOptions extends BuildOptions {
  env?: Record<string, string>;
  config?: Partial<Config>;
  /** Share a database with another app instance (two pods). */
  databaseUrl?: string;
  redisKeyPrefix?: string;
  listen?: boolean;
}

export async function createTestApp(opts: TestAppOptions = {}): Promise<TestApp> {
  const database = opts.databaseUrl ? null : await createTestDatabase();
  const config = loadConfig(
    {
      NODE_ENV: 'test',
      DATABASE_URL: opts.databaseUrl ?? database!.url,
      REDIS_URL,
      ADMIN_TOKEN,
      CRON_SECRET,
      SECRET_KEY,
      LOG_LEVEL: 'silent',
      // Tests send far more than a player; the rate-limit tests set their own limits.
      RATE_LIMIT_SESSION_PER_MIN: '1000000000',
      RATE_LIMIT_IP_PER_MIN: '1000000000',
      RATE_LIMIT_LOGIN_PER_MIN: '1000000000',
      // Production refuses to start without it (config.ts); the other tests use the listen address.
      ...(opts.env?.NODE_ENV === 'production' ? { PUBLIC_BASE_URL: 'https://games.test' } : {}),
      ...opts.env,
    },
    { redisKeyPrefix: opts.redisKeyPrefix ?? `gp-test:${randomBytes(4).toString('hex')}:`, ...opts.config },
  );
  const { app, services } = await buildApp(config, { logger: false, ...opts });
  let url = '';
  if (opts.listen) url = await app.listen({ port: 0, host: '127.0.0.1' });
  else await app.ready();
  return {
    app,
    services,
    config,
    url,
    async close() {
      await app.close();
      await database?.drop();
    },
  };
}

export const adminHeaders = { authorization: `Bearer ${ADMIN_TOKEN}` };
