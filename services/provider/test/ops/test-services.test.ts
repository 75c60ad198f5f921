/**
 * `npm test` on a machine where PostgreSQL and Redis are installed but not running
 * (scripts/test-services.mjs, issue 28 item 6): it starts throw-away ones for the run, hands them
 * to the command as TEST_DATABASE_URL / TEST_REDIS_URL, and removes them afterwards; where they
 * are not installed either, it says in one line how to get them and fails.
 */
import { execFile } from 'node:child_process';
import { createConnection, createServer } from 'node:net';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { expect, it } from 'vitest';
import { PG_BASE, REDIS_URL } from '../helpers/env.js';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../../..');
const SCRIPT = path.join(ROOT, 'scripts/test-services.mjs');

const freePort = () =>
  new Promise<number>((resolve) => {
    const s = createServer().listen(0, '127.0.0.1', () => {
      const { port } = s.address() as { port: number };
      s.close(() => resolve(port));
    });
  });
const answers = (port: number) =>
  new Promise<boolean>((resolve) => {
    const c = createConnection({ host: '127.0.0.1', port });
    c.once('connect', () => (c.destroy(), resolve(true)));
    c.once('error', () => resolve(false));
  });
const run = (args: string[], env: Record<string, string>) =>
  new Promise<{ code: number; stdout: string; stderr: string }>((resolve) => {
    execFile(process.execPath, [SCRIPT, ...args], { env: { ...process.env, ...env }, cwd: ROOT, timeout: 120_000 }, (err, stdout, stderr) =>
      resolve({ code: err ? Number((err as { code?: number }).code ?? 1) : 0, stdout, stderr }),
    );
  });

// What the command sees: a real query on the PostgreSQL and a PING on the Redis it was given.
const PROBE = `
const pg = require('pg');
const net = require('node:net');
(async () => {
  const c = new pg.Client({ connectionString: process.env.TEST_DATABASE_URL });
  await c.connect();
  const v = (await c.query('show server_version')).rows[0].server_version;
  await c.query('create database probe_db');
  await c.end();
  const u = new URL(process.env.TEST_REDIS_URL);
  const pong = await new Promise((res, rej) => { const s = net.connect(Number(u.port), u.hostname, () => s.write('PING\\r\\n')); s.on('data', (d) => { res(String(d).trim()); s.end(); }); s.on('error', rej); });
  console.log(JSON.stringify({ db: process.env.TEST_DATABASE_URL, redis: process.env.TEST_REDIS_URL, v, pong }));
})().catch((e) => { console.error(e); process.exit(3); });`;

it('starts a throw-away PostgreSQL and Redis when none answers, passes them to the command, and stops them after', async () => {
  const [pgPort, redisPort] = [await freePort(), await freePort()];
  const r = await run(['node', '-e', PROBE], {
    TEST_DATABASE_URL: `postgres://postgres@127.0.0.1:${pgPort}/postgres`,
    TEST_REDIS_URL: `redis://127.0.0.1:${redisPort}`,
    NODE_PATH: path.join(ROOT, 'node_modules'),
  });
  expect(r.code, r.stderr).toBe(0);
  const seen = JSON.parse(r.stdout.trim().split('\n').pop()!) as { db: string; redis: string; v: string; pong: string };
  expect(seen.pong).toBe('+PONG');
  expect(seen.v).toMatch(/^\d+/);
  expect(r.stderr).toMatch(/PostgreSQL was not running: started a throw-away one/);
  expect(r.stderr).toMatch(/Redis was not running: started a throw-away one/);
  // Gone afterwards.
  expect(await answers(Number(new URL(seen.db).port))).toBe(false);
  expect(await answers(Number(new URL(seen.redis).port))).toBe(false);
}, 120_000);

it('passes the exit code of the command through and leaves running servers alone', async () => {
  const given = { TEST_DATABASE_URL: PG_BASE, TEST_REDIS_URL: REDIS_URL }; // the servers this run uses: they answer
  const r = await run(['node', '-e', 'console.log(process.env.TEST_DATABASE_URL + " " + process.env.TEST_REDIS_URL); process.exit(7)'], given);
  expect(r.code).toBe(7);
  expect(r.stdout.trim()).toBe(`${PG_BASE} ${REDIS_URL}`);
  expect(r.stderr).toBe('');
});

it('where PostgreSQL and Redis are neither running nor installed, says in one line how to get them and fails', async () => {
  const [pgPort, redisPort] = [await freePort(), await freePort()];
  const r = await run(['node', '-e', 'process.exit(0)'], {
    TEST_SERVICES_PATH: '/nonexistent',
    TEST_DATABASE_URL: `postgres://postgres@127.0.0.1:${pgPort}/postgres`,
    TEST_REDIS_URL: `redis://127.0.0.1:${redisPort}`,
  });
  expect(r.code).toBe(1);
  const lines = r.stderr.trim().split('\n');
  expect(lines).toHaveLength(1);
  expect(lines[0]).toMatch(/PostgreSQL .* and Redis .* neither running nor installed: apt-get install postgresql redis-server/);
});
