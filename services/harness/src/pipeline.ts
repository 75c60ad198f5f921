/**
 * The bare I/O pipeline (issue 14): what one settled bet costs in I/O alone, with nothing else.
 * A plain node:http server whose POST /bet does, per bet:
 *   1. one Redis lock (SET NX PX, released with a compare-and-delete script),
 *   2. one INSERT of the round (PostgreSQL, autocommit),
 *   3. a signed debit and 4. a signed credit to the casino wallet over HTTP (keep-alive),
 *   5. one UPDATE of the round with its two audit rows (a single statement, one commit).
 * No validation, fairness, logging or framework: the provider's ratio to it says how much of its
 * time goes to anything but I/O. `GET /metrics` answers the bytes V8 has allocated (the bench's
 * allocations per bet, as the provider's metric of that name). Run as its own process (`node dist/pipeline.js`) so its CPU
 * and memory are read the same way as the provider's.
 *
 * With COMMITS=3 (issue 25's crash-safe floor) a third commit comes between the debit and the
 * credit: 4b. one UPDATE of the round to `credit_pending` with its payout — the credit owed is on
 * disk before it is sent, as a provider that survives a crash there must do.
 *
 * Environment: PORT, DATABASE_URL, REDIS_URL, WALLET_URL, OPERATOR_ID, OPERATOR_SECRET,
 * CURRENCY, POOL_MAX (default 10, the provider's pool size), COMMITS (2 or 3, default 2).
 */
import { randomBytes, randomUUID } from 'node:crypto';
import { createServer } from 'node:http';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { Redis } from 'ioredis';
import pg from 'pg';
import { Pool as HttpPool } from 'undici';
import { sign } from '@gp/reference-casino';
import { fromMinor, toMinor } from './casino.js';
import { ownHeapAllocatedBytes } from './proc-stats.js';

const RELEASE = `if redis.call('get', KEYS[1]) == ARGV[1] then return redis.call('del', KEYS[1]) else return 0 end`;

const SCHEMA = `
CREATE TABLE IF NOT EXISTS pipeline_rounds (
  round_id text PRIMARY KEY, operator_id text NOT NULL, player_ref text NOT NULL, amount numeric NOT NULL,
  payout numeric, status text NOT NULL, created_at timestamptz NOT NULL DEFAULT now(), updated_at timestamptz NOT NULL DEFAULT now());
CREATE TABLE IF NOT EXISTS pipeline_audit (
  id bigserial PRIMARY KEY, round_id text NOT NULL, operation text NOT NULL, idempotency_key text NOT NULL UNIQUE,
  request_body text NOT NULL, response_body text, status_code int, created_at timestamptz NOT NULL DEFAULT now());`;

export async function startPipeline(env: Record<string, string | undefined>): Promise<{ port: number; close(): Promise<void> }> {
  const need = (k: string) => {
    const v = env[k];
    if (!v) throw new Error(`${k} is required`);
    return v;
  };
  const operatorId = need('OPERATOR_ID');
  const secret = need('OPERATOR_SECRET');
  const currency = env.CURRENCY ?? 'USD';
  const threeCommits = env.COMMITS === '3';
  const db = new pg.Pool({ connectionString: need('DATABASE_URL'), max: Number(env.POOL_MAX ?? 10) });
  await db.query(SCHEMA);
  const redis = new Redis(need('REDIS_URL'), { maxRetriesPerRequest: 2 });
  const wallet = new HttpPool(need('WALLET_URL'), { connections: 64, pipelining: 1, keepAliveTimeout: 30_000 });

  /** `amount` is exact decimal text, written into the JSON as a number. */
  const call = async (op: 'debit' | 'credit', key: string, body: Record<string, unknown>, amount: string) => {
    const raw = `${JSON.stringify(body).slice(0, -1)},"amount":${amount}}`;
    const path = `/wallet/${op}`;
    const ts = String(Math.floor(Date.now() / 1000));
    const nonce = randomBytes(16).toString('base64url');
    const res = await wallet.request({
      method: 'POST',
      path,
      body: raw,
      headers: {
        'content-type': 'application/json',
        'x-operator-id': operatorId,
        'x-timestamp': ts,
        'x-nonce': nonce,
        'x-signature': sign(secret, 'POST', path, ts, nonce, raw),
        'x-idempotency-key': key,
      },
    });
    const text = await res.body.text();
    return { status: res.statusCode, raw, text };
  };

  const bet = async (input: { playerRef: string; launchToken: string; amount: string }) => {
    const stake = toMinor(String(input.amount), 2);
    const roundId = randomUUID();
    const token = randomBytes(16).toString('hex');
    const lockKey = `pipe:lock:${input.playerRef}`;
    if ((await redis.set(lockKey, token, 'PX', 10_000, 'NX')) !== 'OK') return { status: 409, body: { code: 'BUSY' } };
    try {
      await db.query({
        name: 'ins',
        text: 'INSERT INTO pipeline_rounds (round_id, operator_id, player_ref, amount, status) VALUES ($1, $2, $3, $4, $5)',
        values: [roundId, operatorId, input.playerRef, stake.toString(), 'debit_requested'],
      });
      const base = { operatorId, playerRef: input.playerRef, launchToken: input.launchToken, gameType: 'dice', roundId, currency };
      const debit = await call('debit', `${roundId}:debit`, base, fromMinor(stake, 2));
      if (debit.status !== 200) return { status: 502, body: { code: 'DEBIT_FAILED', casino: debit.text } };
      const payout = Math.random() < 0.495 ? stake * 2n : 0n;
      if (threeCommits) {
        await db.query({
          name: 'owe',
          text: "UPDATE pipeline_rounds SET status = 'credit_pending', payout = $2, updated_at = now() WHERE round_id = $1",
          values: [roundId, payout.toString()],
        });
      }
      const credit = await call('credit', `${roundId}:credit`, base, fromMinor(payout, 2));
      await db.query({
        name: 'settle',
        text: `WITH r AS (UPDATE pipeline_rounds SET status = 'settled', payout = $2, updated_at = now() WHERE round_id = $1 RETURNING round_id)
               INSERT INTO pipeline_audit (round_id, operation, idempotency_key, request_body, response_body, status_code)
               SELECT r.round_id, a.op, a.k, a.req, a.res, a.st FROM r, (VALUES ('debit', $3, $4, $5, $6::int), ('credit', $7, $8, $9, $10::int)) AS a(op, k, req, res, st)`,
        values: [
          roundId,
          payout.toString(),
          `${roundId}:debit`,
          debit.raw,
          debit.text,
          debit.status,
          `${roundId}:credit`,
          credit.raw,
          credit.text,
          credit.status,
        ],
      });
      return { status: credit.status === 200 ? 200 : 502, body: { roundId, payout: fromMinor(payout, 2), casino: credit.text } };
    } finally {
      await redis.eval(RELEASE, 1, lockKey, token);
    }
  };

  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const reply = (status: number, body: unknown) => {
        const text = JSON.stringify(body);
        res.writeHead(status, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(text) }).end(text);
      };
      if (req.method === 'GET' && req.url === '/health') return reply(200, { status: 'ok' });
      if (req.method === 'GET' && req.url === '/metrics') {
        // the bench's allocations per bet, under the provider's metric name (absent where Node does not report it)
        const bytes = ownHeapAllocatedBytes();
        res.writeHead(200, { 'content-type': 'text/plain' }).end(bytes === undefined ? '' : `gp_nodejs_heap_allocated_bytes_total ${bytes}\n`);
        return;
      }
      if (req.method !== 'POST' || req.url !== '/bet') return reply(404, { code: 'NOT_FOUND' });
      let input: { playerRef: string; launchToken: string; amount: string };
      try {
        input = JSON.parse(Buffer.concat(chunks).toString('utf8'));
      } catch {
        return reply(400, { code: 'VALIDATION_ERROR' });
      }
      bet(input).then(
        (a) => reply(a.status, a.body),
        (err: unknown) => reply(500, { code: 'INTERNAL_ERROR', message: (err as Error).message }),
      );
    });
  });
  server.keepAliveTimeout = 30_000;
  const port = await new Promise<number>((resolve) =>
    server.listen(Number(env.PORT ?? 0), '127.0.0.1', () => resolve((server.address() as { port: number }).port)),
  );
  return {
    port,
    async close() {
      await new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      });
      await wallet.close();
      redis.disconnect();
      await db.end();
    },
  };
}

const isMain = process.argv[1] !== undefined && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url);
if (isMain) {
  const p = await startPipeline(process.env);
  console.log(`bare I/O pipeline listening on http://127.0.0.1:${p.port}`);
  for (const s of ['SIGINT', 'SIGTERM'] as const) process.once(s, () => void p.close().then(() => process.exit(0)));
}
