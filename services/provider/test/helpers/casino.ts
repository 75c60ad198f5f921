/**
 * A provider app wired to the reference casino over real HTTP (the money-path tests): operator
 * profiles on both sides with the same secret, players with casino wallets, launch tokens and
 * sessions, and small readers of the casino's ledger and request log. Also a recording proxy
 * ("tap") that sits between the provider and the casino to show the headers and bytes on the wire,
 * and a signer for the casino's calls to the provider's operator API.
 */
import { createServer, type IncomingHttpHeaders } from 'node:http';
import type { AddressInfo } from 'node:net';
import { setTimeout as sleep } from 'node:timers/promises';
import { signRequest, startReferenceCasino, type ReferenceCasino, type Transaction } from '@gp/reference-casino';
import { expect } from 'vitest';
import { adminHeaders, createTestApp, type TestApp, type TestAppOptions } from './app.js';

export interface OperatorSpec {
  operatorId: string;
  currency?: string;
  /** The currency's decimals (the casino needs them; SPEC.md's table). */
  decimals?: number;
  minBet?: number | string;
  maxBet?: number | string | null;
  stakeStep?: number | string;
  maxPayout?: number | string;
  enabledGames?: string[];
  /** Appended to the casino URL in the operator's callbackBaseUrl (e.g. '/casino-a'). */
  prefix?: string;
  /** Point the operator at another base (a tap in front of the casino). */
  callbackBaseUrl?: string;
}

export interface Player {
  playerRef: string;
  operatorId: string;
  currency: string;
  sessionId: string;
  launchToken: string;
}

export interface Answer {
  status: number;
  body: Record<string, unknown> & { code?: string; roundId?: string; roundStatus?: string };
  /** The raw text (exact JSON numbers). */
  text: string;
}

export const secretOf = (operatorId: string) => `secret-of-${operatorId}-0123456789abcdef`;

/** Raw JSON with exact numbers: a string value `"@@1e-8"` is written as the number 1e-8. */
export function rawJson(value: unknown): string {
  return JSON.stringify(value).replace(/"@@([-0-9.eE+]+)"/g, '$1');
}

/** A money field: a number as is, a string as the exact JSON number it spells. */
const exact = (v: number | string) => (typeof v === 'string' ? `@@${v}` : v);

export interface World {
  t: TestApp;
  casino: ReferenceCasino;
  specs: Map<string, OperatorSpec>;
  /** A request to the provider app; `payload` is a raw JSON string or a value for rawJson. */
  call(method: 'GET' | 'POST' | 'PUT' | 'PATCH', url: string, payload?: unknown, headers?: Record<string, string>): Promise<Answer>;
  /** A casino wallet for `playerRef` in the operator's currency, a launch token and a session. */
  player(playerRef: string, opts?: { operatorId?: string; balance?: string; gameType?: string; launchMode?: 'single' | 'lobby' }): Promise<Player>;
  /** Another session of an existing player (a reloaded iframe). */
  newSession(p: Player, opts?: { gameType?: string; launchMode?: 'single' | 'lobby' }): Promise<Player>;
  bet(p: Player, gameType: string, amount: number | string, params?: Record<string, unknown>, key?: string): Promise<Answer>;
  round(roundId: string): Promise<Answer>;
  cron(query?: string, bearer?: string): Promise<Answer>;
  /** Casino ledger entries of a round. */
  ledger(roundId: string): Transaction[];
  /** Casino request-log entries of an idempotency key. */
  requestsOf(key: string): ReturnType<ReferenceCasino['requests']>;
  balance(p: Player): bigint;
  /** The round as stored by the service. */
  dbRound(roundId: string): Promise<{ status: string; payout: string | null; amount: string }>;
  close(): Promise<void>;
}

let keySeq = 0;
export const newKey = (label = 'k') => `${label}-${process.pid}-${++keySeq}-${Math.random().toString(36).slice(2, 8)}`;

export async function startWorld(operators: OperatorSpec[], appOptions: TestAppOptions = {}): Promise<World> {
  const casino = await startReferenceCasino({
    operators: Object.fromEntries(
      operators.map((o) => [o.operatorId, { secret: secretOf(o.operatorId), currency: o.currency ?? 'USD', decimals: o.decimals ?? 2 }]),
    ),
  });
  const t = await createTestApp(appOptions);
  const specs = new Map(operators.map((o) => [o.operatorId, o]));

  const call: World['call'] = async (method, url, payload, headers = {}) => {
    const res = await t.app.inject({
      method,
      url,
      headers: payload === undefined ? headers : { 'content-type': 'application/json', ...headers },
      ...(payload === undefined ? {} : { payload: typeof payload === 'string' ? payload : rawJson(payload) }),
    });
    let body: Answer['body'] = {};
    try {
      body = res.json();
    } catch {
      body = {};
    }
    return { status: res.statusCode, body, text: res.body };
  };

  for (const o of operators) {
    const put = await call(
      'PUT',
      `/api/admin/operators/${o.operatorId}`,
      {
        currency: o.currency ?? 'USD',
        callbackBaseUrl: o.callbackBaseUrl ?? `${casino.url}${o.prefix ?? ''}`,
        sharedSecret: secretOf(o.operatorId),
        minBet: exact(o.minBet ?? 0.1),
        maxBet: o.maxBet == null ? null : exact(o.maxBet),
        stakeStep: exact(o.stakeStep ?? 0.01),
        maxPayout: exact(o.maxPayout ?? 10_000),
        enabledGames: o.enabledGames ?? ['dice', 'limbo', 'plinko', 'keno', 'mines', 'blackjack'],
      },
      adminHeaders,
    );
    if (put.status !== 201) throw new Error(`operator ${o.operatorId}: ${put.text}`);
  }

  const openSession = async (playerRef: string, operatorId: string, launchToken: string, gameType: string, launchMode: 'single' | 'lobby'): Promise<Player> => {
    const s = await call('POST', '/api/sessions', { operatorId, launchToken, gameType, launchMode });
    if (s.status !== 200) throw new Error(`session of ${playerRef}: ${s.text}`);
    return { playerRef, operatorId, currency: String(s.body.currency), sessionId: String(s.body.sessionId), launchToken };
  };

  return {
    t,
    casino,
    specs,
    call,
    async player(playerRef, opts = {}) {
      const operatorId = opts.operatorId ?? operators[0]!.operatorId;
      const currency = specs.get(operatorId)?.currency ?? 'USD';
      casino.createPlayer({ playerRef, displayName: `Player ${playerRef}`, balance: opts.balance ?? '1000', currency });
      const launchToken = casino.issueLaunchToken(playerRef, { operatorId });
      return openSession(playerRef, operatorId, launchToken, opts.gameType ?? 'dice', opts.launchMode ?? 'lobby');
    },
    async newSession(p, opts = {}) {
      return openSession(p.playerRef, p.operatorId, p.launchToken, opts.gameType ?? 'dice', opts.launchMode ?? 'lobby');
    },
    bet(p, gameType, amount, params, key = newKey('bet')) {
      const payload = { sessionId: p.sessionId, gameType, amount: exact(amount), idempotencyKey: key, ...(params ? { params } : {}) };
      return call('POST', '/api/bets', rawJson(payload));
    },
    round: (roundId) => call('GET', `/api/bets/${roundId}`),
    cron: (query = '', bearer = 'test-cron-secret-0123456789') =>
      call('GET', `/api/cron/wallet-retries${query ? `?${query}` : ''}`, undefined, bearer ? { authorization: `Bearer ${bearer}` } : {}),
    ledger: (roundId) => casino.transactions().filter((tx) => tx.roundId === roundId),
    requestsOf: (key) => casino.requests().filter((r) => r.idempotencyKey === key),
    balance: (p) => casino.balanceOf(p.playerRef, p.currency),
    async dbRound(roundId) {
      const row = await t.services.db('rounds').where({ round_id: roundId }).first();
      return { status: row.status, payout: row.payout === null ? null : String(row.payout), amount: String(row.amount) };
    },
    async close() {
      await t.close();
      await casino.close();
    },
  };
}

/** Calls the cron route until no round waits for a wallet retry (or gives up after `rounds` calls). */
export async function drainRetries(w: World, opts: { timeoutMs?: number; pauseMs?: number; query?: string } = {}): Promise<number> {
  // Until nothing is pending, not a fixed number of passes: a pass can find the operator's wallet
  // circuit open (a busy machine's timeouts) and retry nothing until it closes again.
  const deadline = Date.now() + (opts.timeoutMs ?? 60_000);
  for (let i = 0; ; i++) {
    const open = await w.t.services
      .db('rounds')
      .whereIn('status', ['credit_pending', 'rollback_pending', 'debit_requested'])
      .count<{ n: string }[]>({ n: '*' });
    if (Number(open[0]?.n ?? 0) === 0) return i;
    if (Date.now() > deadline) throw new Error(`${open[0]?.n} rounds still pending after ${i} passes of the cron route`);
    const res = await w.cron(opts.query ?? 'limit=100');
    expect(res.status, res.text).toBe(200);
    await sleep(opts.pauseMs ?? 100);
  }
}

/** Headers of a request the casino signs with its operator secret (CONTRACT.md §6), request target as sent. */
export function operatorSigned(
  operatorId: string,
  method: string,
  target: string,
  opts: { secret?: string; timestamp?: number; nonce?: string; body?: string } = {},
): Record<string, string> {
  const { 'content-type': _ct, ...headers } = signRequest({
    operatorId,
    secret: opts.secret ?? secretOf(operatorId),
    method,
    path: target,
    body: opts.body ?? '',
    ...(opts.timestamp !== undefined ? { timestamp: opts.timestamp } : {}),
    ...(opts.nonce !== undefined ? { nonce: opts.nonce } : {}),
  });
  return headers;
}

/* ------------------------------------------------------------------ a recording proxy */

export interface TappedRequest {
  method: string;
  /** Path as received (the callback base's prefix included). */
  url: string;
  headers: IncomingHttpHeaders;
  body: string;
  status: number | null;
  /** The casino's answer body, once it came. */
  response?: string;
}

export interface Tap {
  url: string;
  /** Where requests are forwarded (set it once the casino runs). */
  target: string;
  requests: TappedRequest[];
  close(): Promise<void>;
}

/** An HTTP proxy to `tap.target` that records every request (headers and exact body bytes) it forwards. */
export async function startTap(): Promise<Tap> {
  const requests: TappedRequest[] = [];
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const body = Buffer.concat(chunks).toString('utf8');
      const entry: TappedRequest = { method: req.method ?? '', url: req.url ?? '', headers: req.headers, body, status: null };
      requests.push(entry);
      const headers: Record<string, string> = {};
      for (const [k, v] of Object.entries(req.headers)) {
        if (typeof v === 'string' && !['host', 'connection', 'content-length', 'keep-alive', 'transfer-encoding'].includes(k)) headers[k] = v;
      }
      fetch(`${tap.target}${req.url ?? ''}`, { method: req.method ?? 'POST', headers, body })
        .then(async (up) => {
          const text = await up.text();
          entry.status = up.status;
          entry.response = text;
          res.writeHead(up.status, { 'content-type': up.headers.get('content-type') ?? 'application/json' }).end(text);
        })
        .catch(() => req.socket.destroy());
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', () => resolve()));
  const { port } = server.address() as AddressInfo;
  const tap: Tap = {
    url: `http://127.0.0.1:${port}`,
    target: '',
    requests,
    async close() {
      const closed = new Promise<void>((resolve) => server.close(() => resolve()));
      server.closeAllConnections();
      await closed;
    },
  };
  return tap;
}
