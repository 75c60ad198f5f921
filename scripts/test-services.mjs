#!/usr/bin/env node
/**
 * node scripts/test-services.mjs <command…> — runs the command (npm test's build and tests) with
 * a PostgreSQL and a Redis to talk to.
 *
 * When TEST_DATABASE_URL's server (default 127.0.0.1:5432) or TEST_REDIS_URL's (default
 * 127.0.0.1:6379) does not answer, and PostgreSQL or Redis is installed, it starts a throw-away
 * one for the run, as the harness does for its Redis: PostgreSQL in a temporary folder (initdb,
 * trust authentication, fsync off, as the `postgres` user when run as root) and redis-server
 * without persistence, each on a free port of 127.0.0.1, passed to the command as
 * TEST_DATABASE_URL / TEST_REDIS_URL, stopped and deleted when the command ends. Where one is
 * neither running nor installed it prints one line on how to get it and exits 1.
 *
 * TEST_SERVICES_PATH (a PATH-like list) replaces where the binaries are looked for: PATH, then
 * /usr/lib/postgresql/<version>/bin, newest first.
 */
import { spawn, spawnSync } from 'node:child_process';
import { accessSync, constants, chownSync, existsSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { createConnection } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { freePort } from './lib/free-port.mjs';

const DEFAULT_PG = 'postgres://postgres@127.0.0.1:5432/postgres';
const DEFAULT_REDIS = 'redis://127.0.0.1:6379';
const say = (line) => process.stderr.write(`test-services: ${line}\n`);

const command = process.argv.slice(2);
if (command[0] === '--') command.shift();
if (command.length === 0) {
  say('usage: node scripts/test-services.mjs <command…>');
  process.exit(2);
}

function searchDirs() {
  if (process.env.TEST_SERVICES_PATH !== undefined) return process.env.TEST_SERVICES_PATH.split(':').filter(Boolean);
  const pgDirs = existsSync('/usr/lib/postgresql')
    ? readdirSync('/usr/lib/postgresql')
        .filter((v) => /^\d+$/.test(v))
        .sort((a, b) => Number(b) - Number(a))
        .map((v) => `/usr/lib/postgresql/${v}/bin`)
    : [];
  return [...(process.env.PATH ?? '').split(':').filter(Boolean), ...pgDirs];
}

function which(name) {
  for (const dir of searchDirs()) {
    const file = path.join(dir, name);
    try {
      accessSync(file, constants.X_OK);
      return file;
    } catch {
      /* next */
    }
  }
  return null;
}

/** Does something accept TCP connections at the URL's host and port? */
function answers(url, fallbackPort) {
  const u = new URL(url);
  return new Promise((resolve) => {
    const socket = createConnection({ host: u.hostname.replace(/^\[|\]$/g, '') || '127.0.0.1', port: Number(u.port || fallbackPort) });
    const done = (ok) => {
      socket.destroy();
      resolve(ok);
    };
    socket.setTimeout(1500, () => done(false));
    socket.once('connect', () => done(true));
    socket.once('error', () => done(false));
  });
}

async function waitFor(what, check, child, ms = 60_000) {
  const until = Date.now() + ms;
  while (Date.now() < until) {
    if (child.exitCode !== null) throw new Error(`${what} exited with code ${child.exitCode} before it answered`);
    if (await check()) return;
    await new Promise((r) => setTimeout(r, 200));
  }
  throw new Error(`${what} did not answer within ${ms / 1000} s`);
}

const children = [];
let scratch = null;

function cleanup() {
  for (const { child, signal } of children) if (child.exitCode === null && child.signalCode === null) child.kill(signal);
}

async function stopAll() {
  cleanup();
  await Promise.all(children.map(({ child }) => (child.exitCode !== null || child.signalCode !== null ? null : new Promise((r) => child.once('exit', r)))));
  if (scratch) rmSync(scratch, { recursive: true, force: true });
}

/** The uid/gid a throw-away PostgreSQL runs as: initdb and postgres refuse to run as root. */
function serviceUser() {
  if (process.getuid?.() !== 0) return {};
  for (const name of ['postgres', 'nobody']) {
    const uid = spawnSync('id', ['-u', name], { encoding: 'utf8' });
    const gid = spawnSync('id', ['-g', name], { encoding: 'utf8' });
    if (uid.status === 0 && gid.status === 0) return { uid: Number(uid.stdout), gid: Number(gid.stdout) };
  }
  return {};
}

async function startPostgres() {
  const initdb = which('initdb');
  const postgres = which('postgres');
  scratch ??= mkdtempSync(path.join(tmpdir(), 'gp-test-services-'));
  const user = serviceUser();
  const data = path.join(scratch, 'pg');
  if (user.uid !== undefined) chownSync(scratch, user.uid, user.gid);
  const init = spawnSync(initdb, ['-D', data, '-U', 'postgres', '-A', 'trust', '-E', 'UTF8', '--locale=C', '--no-sync'], {
    ...user,
    encoding: 'utf8',
    cwd: scratch,
  });
  if (init.status !== 0) throw new Error(`initdb failed: ${init.stderr || init.stdout}`);
  const port = await freePort();
  const args = [
    '-D',
    data,
    '-p',
    String(port),
    '-k',
    scratch,
    '-c',
    'listen_addresses=127.0.0.1',
    '-c',
    'max_connections=300',
    '-c',
    'fsync=off',
    '-c',
    'synchronous_commit=off',
    '-c',
    'full_page_writes=off',
  ];
  const child = spawn(postgres, args, { ...user, cwd: scratch, stdio: ['ignore', 'ignore', 'pipe'] });
  let log = '';
  child.stderr.on('data', (d) => {
    log = (log + d).slice(-4000);
  });
  children.push({ child, signal: 'SIGINT' }); // SIGINT: PostgreSQL's fast shutdown
  const url = `postgres://postgres@127.0.0.1:${port}/postgres`;
  const pg = (await import('pg')).default;
  await waitFor(
    'PostgreSQL',
    async () => {
      const c = new pg.Client({ connectionString: url });
      try {
        await c.connect();
        await c.query('select 1');
        return true;
      } catch {
        return false;
      } finally {
        await c.end().catch(() => undefined);
      }
    },
    child,
  ).catch((err) => {
    throw new Error(`${err.message}\n${log}`);
  });
  say(`PostgreSQL was not running: started a throw-away one for this run (${path.basename(postgres)} on 127.0.0.1:${port}, deleted afterwards)`);
  return url;
}

async function startRedis() {
  const redis = which('redis-server');
  const port = await freePort();
  const child = spawn(redis, ['--port', String(port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no', '--dir', tmpdir()], { stdio: 'ignore' });
  children.push({ child, signal: 'SIGTERM' });
  const url = `redis://127.0.0.1:${port}`;
  await waitFor('redis-server', () => answers(url, 6379), child);
  say(`Redis was not running: started a throw-away one for this run (127.0.0.1:${port})`);
  return url;
}

async function main() {
  const env = { ...process.env };
  const pgUrl = process.env.TEST_DATABASE_URL ?? DEFAULT_PG;
  const redisUrl = process.env.TEST_REDIS_URL ?? DEFAULT_REDIS;
  const [pgUp, redisUp] = await Promise.all([answers(pgUrl, 5432), answers(redisUrl, 6379)]);
  // Neither running nor installed: one line on how to get them, before anything is started.
  const missing = [];
  if (!pgUp && !(which('initdb') && which('postgres')))
    missing.push({ name: 'PostgreSQL', at: pgUrl, pkg: 'postgresql', brew: 'postgresql', variable: 'TEST_DATABASE_URL' });
  if (!redisUp && !which('redis-server')) missing.push({ name: 'Redis', at: redisUrl, pkg: 'redis-server', brew: 'redis', variable: 'TEST_REDIS_URL' });
  if (missing.length > 0) {
    const what = missing.map((m) => `${m.name} (${new URL(m.at).host})`).join(' and ');
    say(
      `${what} ${missing.length > 1 ? 'are' : 'is'} neither running nor installed: apt-get install ${missing.map((m) => m.pkg).join(' ')} (Debian, Ubuntu; brew install ${missing.map((m) => m.brew).join(' ')} on macOS), or set ${missing.map((m) => m.variable).join(' / ')} to a running server`,
    );
    return 1;
  }
  if (!pgUp) env.TEST_DATABASE_URL = await startPostgres();
  if (!redisUp) env.TEST_REDIS_URL = await startRedis();
  const child = spawn(command[0], command.slice(1), { stdio: 'inherit', env });
  const forward = (sig) => child.kill(sig);
  process.on('SIGINT', forward);
  process.on('SIGTERM', forward);
  const code = await new Promise((resolve) => child.once('exit', (c, s) => resolve(c ?? (s ? 1 : 0))));
  await stopAll();
  return code;
}

process.on('exit', cleanup);
main().then(
  (code) => process.exit(code),
  async (err) => {
    say(err.message);
    await stopAll();
    process.exit(1);
  },
);
