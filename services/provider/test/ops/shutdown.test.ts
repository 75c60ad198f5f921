/**
 * Graceful shutdown (issue 15 item 10) of a real process (`node dist/server.js`, as the image
 * runs it) sent SIGTERM while bets are in flight: /ready answers 503 at once (gp_ready 0) while
 * the API still serves; after SHUTDOWN_DRAIN_MS new connections are refused; the bets in flight
 * finish (their credits confirmed); the pools close and the process exits 0, leaving nothing
 * pending. Ordering is read from the process's own log lines, never from timings.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { startReferenceCasino, type ReferenceCasino } from '@gp/reference-casino';
import knexPkg from 'knex';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ADMIN_TOKEN, CRON_SECRET, createTestDatabase, SECRET_KEY } from '../helpers/app.js';
import { secretOf } from '../helpers/casino.js';
import { REDIS_URL } from '../helpers/env.js';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const PORT = Number(process.env.GP_SHUTDOWN_TEST_PORT ?? 3131);
const METRICS_PORT = PORT + 1;
const base = `http://127.0.0.1:${PORT}`;

let casino: ReferenceCasino;
let database: { url: string; drop(): Promise<void> };
let child: ChildProcess | null = null;
let output = '';

beforeAll(async () => {
  database = await createTestDatabase();
  casino = await startReferenceCasino({ operators: { 'op-sd': { secret: secretOf('op-sd'), currency: 'USD', decimals: 2 } } });
});
afterAll(async () => {
  if (child && child.exitCode === null) child.kill('SIGKILL');
  await casino?.close();
  await database?.drop();
});

function waitFor(pattern: RegExp): Promise<void> {
  return new Promise((resolve, reject) => {
    const check = () => {
      if (pattern.test(output)) {
        clearInterval(timer);
        resolve();
      } else if (child?.exitCode !== null) {
        clearInterval(timer);
        reject(new Error(`the process exited before ${pattern}: ${output}`));
      }
    };
    const timer = setInterval(check, 20);
    check();
  });
}

const post = (url: string, body: unknown, headers: Record<string, string> = {}) =>
  fetch(`${base}${url}`, { method: 'POST', headers: { 'content-type': 'application/json', ...headers }, body: JSON.stringify(body) }).then(async (r) => ({
    status: r.status,
    body: (await r.json()) as Record<string, unknown>,
  }));

describe('SIGTERM mid-load', () => {
  it(
    'turns /ready 503 first, refuses new connections after the drain, lets the bets in flight finish, closes the pools, exits 0',
    { timeout: 120_000 },
    async () => {
      const server = path.join(root, 'dist', 'server.js');
      if (!existsSync(server)) throw new Error('dist/server.js is missing: run npm run build');
      child = spawn(process.execPath, [server], {
        cwd: root,
        env: {
          PATH: process.env.PATH ?? '',
          NODE_ENV: 'development',
          PORT: String(PORT),
          METRICS_PORT: String(METRICS_PORT),
          DATABASE_URL: database.url,
          REDIS_URL,
          ADMIN_TOKEN,
          CRON_SECRET,
          SECRET_KEY,
          LOG_LEVEL: 'info',
          CALLBACK_TIMEOUT_MS: '15000',
          SHUTDOWN_DRAIN_MS: '2000',
          SHUTDOWN_GRACE_MS: '20000',
          RATE_LIMIT_SESSION_PER_MIN: '100000',
          RATE_LIMIT_IP_PER_MIN: '100000',
        },
        stdio: ['ignore', 'pipe', 'pipe'],
      });
      child.stdout!.on('data', (c: Buffer) => (output += c.toString('utf8')));
      child.stderr!.on('data', (c: Buffer) => (output += c.toString('utf8')));
      const exited = new Promise<number | null>((resolve) => child!.once('exit', (code) => resolve(code)));
      await waitFor(/Game provider listening/);

      const admin = { authorization: `Bearer ${ADMIN_TOKEN}` };
      const put = await fetch(`${base}/api/admin/operators/op-sd`, {
        method: 'PUT',
        headers: { 'content-type': 'application/json', ...admin },
        body: JSON.stringify({ currency: 'USD', callbackBaseUrl: casino.url, sharedSecret: secretOf('op-sd'), minBet: 0.1, stakeStep: 0.01, maxPayout: 10000 }),
      });
      expect(put.status).toBe(201);
      const sessions: string[] = [];
      for (let i = 0; i < 6; i++) {
        casino.createPlayer({ playerRef: `sd-${i}`, displayName: `sd ${i}`, balance: '100', currency: 'USD' });
        const s = await post('/api/sessions', {
          operatorId: 'op-sd',
          launchToken: casino.issueLaunchToken(`sd-${i}`, { operatorId: 'op-sd' }),
          gameType: 'dice',
        });
        expect(s.status).toBe(200);
        sessions.push(String(s.body.sessionId));
      }

      // every credit takes a while: the bets are in flight when SIGTERM comes
      casino.setFaults([{ path: '/wallet/credit', kind: 'delay', ms: 4000 }]);
      const bets = sessions.map((sessionId, i) =>
        post('/api/bets', { sessionId, gameType: 'dice', amount: 1, params: { target: 50, direction: 'over' }, idempotencyKey: `sd-bet-${i}` }),
      );
      while (casino.requests().filter((r) => r.path === '/wallet/debit').length < sessions.length) await new Promise((r) => setTimeout(r, 20));

      child.kill('SIGTERM');
      await waitFor(/shutting down: \/ready answers 503/);
      const ready = await fetch(`${base}/ready`);
      expect(ready.status).toBe(503);
      expect(((await ready.json()) as { checks: Record<string, string> }).checks.shutdown).toBe('shutting down');
      const metrics = await (await fetch(`http://127.0.0.1:${METRICS_PORT}/metrics`)).text();
      expect(metrics).toMatch(/^gp_ready 0$/m);

      // after the drain: no new connection is taken, the bets in flight still run
      await waitFor(/no new requests; waiting for the requests in flight/);
      const late = await fetch(`${base}/health`, { headers: { connection: 'close' } }).then(
        (r) => r.status,
        () => 'refused',
      );
      expect([503, 'refused']).toContain(late);

      const answers = await Promise.all(bets);
      for (const a of answers) {
        expect(a.status).toBe(200);
        expect(a.body.roundStatus).toBe('settled');
      }
      expect(await exited, output).toBe(0);
      expect(output).toMatch(/"msg":"shut down"/);
      expect(output).not.toMatch(/grace period over/);

      // nothing left for the retry job; the casino credited every bet once
      const db = knexPkg.knex({ client: 'pg', connection: database.url, pool: { min: 0, max: 1 } });
      try {
        const rows: { status: string }[] = await db('rounds').select('status');
        expect(rows.map((r) => r.status)).toEqual(sessions.map(() => 'settled'));
      } finally {
        await db.destroy();
      }
      expect(casino.transactions().filter((t) => t.type === 'credit').length).toBe(sessions.length);
    },
  );
});
