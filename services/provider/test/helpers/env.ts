/** Where the tests find the real PostgreSQL and Redis. */
export const PG_BASE = process.env.TEST_DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres';
export const REDIS_URL = process.env.TEST_REDIS_URL ?? 'redis://127.0.0.1:6379';
export const TEMPLATE_PREFIX = 'gp_tpl_';

export function databaseUrl(name: string): string {
  const u = new URL(PG_BASE);
  u.pathname = `/${name}`;
  return u.toString();
}

export const adminUrl = () => PG_BASE;
