/**
 * Startup and fatal lines of `node dist/server.js` (issue 28 item 1): in production one JSON
 * object per line like every other log line (a log pipeline parses them), plain text on a
 * developer's terminal.
 */
import { expect, it } from 'vitest';
import { runCli } from '../helpers/cli.js';

const parseLines = (text: string) =>
  text
    .trim()
    .split('\n')
    .filter(Boolean)
    .map((l) => JSON.parse(l) as Record<string, unknown>);

it('a configuration error in production is one JSON line at level fatal; in development plain text', async () => {
  const prod = await runCli('server', { NODE_ENV: 'production', DATABASE_URL: 'postgres://127.0.0.1:9/x', REDIS_URL: 'redis://127.0.0.1:9' });
  expect(prod.code).toBe(2);
  const [line, ...rest] = parseLines(prod.stderr);
  expect(rest).toEqual([]);
  expect(line).toMatchObject({ level: 60, event: 'config_error' });
  expect(String(line!.msg)).toMatch(/SECRET_KEY/);
  const dev = await runCli('server', { NODE_ENV: 'development', PORT: 'not-a-port' });
  expect(dev.code).toBe(2);
  expect(() => JSON.parse(dev.stderr.trim().split('\n')[0]!)).toThrow();
});

it('a failure to start in production (the database unreachable) is one JSON line at level fatal', async () => {
  const r = await runCli(
    'server',
    {
      NODE_ENV: 'production',
      SECRET_KEY: 'ab'.repeat(32),
      PUBLIC_BASE_URL: 'https://games.test',
      DATABASE_URL: 'postgres://postgres@127.0.0.1:9/none',
      REDIS_URL: 'redis://127.0.0.1:9',
      MIGRATE_ON_START: 'true',
      METRICS_PORT: '0',
      PORT: '0',
    },
    90_000,
  );
  expect(r.code).toBe(1);
  const fatal = parseLines(r.stderr).find((l) => l.event === 'fatal');
  expect(fatal, r.stderr).toMatchObject({ level: 60, msg: 'failed to start' });
  // nothing on stdout that is not JSON
  for (const l of r.stdout.trim().split('\n').filter(Boolean)) expect(() => JSON.parse(l), l).not.toThrow();
});
