/**
 * Security proofs of issue 16 item 3 that the other files of this folder do not already hold:
 *   - the signatures we send verify with an independent implementation (`openssl dgst -sha256
 *     -hmac`), on every wallet path;
 *   - nonces never repeat across 100,000 callbacks (the signing code the wallet client uses);
 *   - signed operator requests on both signed routes: stale timestamp, reused nonce (also across
 *     two app instances sharing Redis, as two pods), wrong signature, missing headers are refused
 *     with their SIGNATURE_* codes; the harness repeats the reused-nonce check across two real
 *     provider processes (services/harness, chaos run);
 *   - every operation of /openapi.json that declares credentials refuses missing and wrong ones;
 *   - the server seed of a live Mines or Blackjack round cannot be read through any route;
 *   - round ids are UUIDv4 from node:crypto (122 random bits);
 *   - no answer and no log line of this file holds a secret, launch token, signature or cookie.
 * Route authentication under every path spelling: route-auth.test.ts; hostile input:
 * input-sweep.test.ts and fuzz-openapi.test.ts; the log of a whole run: log-secrets.test.ts.
 */
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { Writable } from 'node:stream';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { NONCE_PATTERN, signedHeaders } from '../../src/wallet/signing.js';
import { ADMIN_TOKEN, createTestApp, CRON_SECRET, type TestApp } from '../helpers/app.js';
import {
  newKey,
  operatorSigned,
  secretOf,
  startTap,
  startWorld,
  type Answer,
  type Player,
  type Tap,
  type TappedRequest,
  type World,
} from '../helpers/casino.js';

const OP = 'op-sec';
const lines: string[] = [];
const sink = new Writable({
  write(chunk: Buffer, _enc, done) {
    lines.push(...chunk.toString('utf8').split('\n').filter(Boolean));
    done();
  },
});
const answers: string[] = [];
/** Every secret, token, signature and cookie the file used: none may appear in an answer or a log line. */
const secrets = new Set<string>([ADMIN_TOKEN, CRON_SECRET, secretOf(OP)]);

let w: World;
let tap: Tap;
let p: Player;
const call = async (...args: Parameters<World['call']>): Promise<Answer> => {
  const a = await w.call(...args);
  answers.push(a.text);
  return a;
};

beforeAll(async () => {
  tap = await startTap();
  w = await startWorld([{ operatorId: OP, callbackBaseUrl: `${tap.url}/casino` }], {
    env: { LOG_LEVEL: 'info' },
    logger: { stream: sink },
    requestLogging: true,
    config: { rateLimits: { authFailuresPerMinute: 1_000_000, sessionPerMinute: 1_000_000, ipPerMinute: 1_000_000, loginPerMinute: 1_000_000 } },
  });
  tap.target = w.casino.url;
  p = await w.player('sec-1', { balance: '10000' });
  secrets.add(p.launchToken);
}, 60_000);
afterAll(async () => {
  await w?.close();
  await tap?.close();
});

const header = (r: TappedRequest, name: string) => r.headers[name] as string;

describe('the signatures we send', () => {
  it('verify with openssl dgst -sha256 -hmac on every wallet path (validate-session, balance, debit, credit, rollback)', async () => {
    await w.newSession(p);
    expect((await call('GET', `/api/balance?sessionId=${p.sessionId}`)).status).toBe(200);
    expect((await w.bet(p, 'dice', 1, { target: 50, direction: 'over' })).status).toBe(200);
    // dice's window is checked after the debit: debit, then rollback (CONTRACT.md §10)
    expect((await w.bet(p, 'dice', 1, { target: 99, direction: 'over' })).body.code).toBe('INVALID_GAME_PARAMS');
    const byPath = new Map<string, TappedRequest>();
    for (const r of tap.requests) byPath.set(r.url.replace(/^\/casino/, ''), r);
    expect([...byPath.keys()].sort()).toEqual(['/wallet/balance', '/wallet/credit', '/wallet/debit', '/wallet/rollback', '/wallet/validate-session']);
    for (const r of tap.requests) {
      const path = r.url.replace(/^\/casino/, '');
      const message = `${r.method}\n${path}\n${header(r, 'x-timestamp')}\n${header(r, 'x-nonce')}\n${r.body}`;
      const out = execFileSync('openssl', ['dgst', '-sha256', '-hmac', secretOf(OP)], { input: Buffer.from(message, 'utf8') }).toString('utf8');
      const hex = /([0-9a-f]{64})\s*$/.exec(out.trim())?.[1];
      expect(hex, `${path}: ${out}`).toBe(header(r, 'x-signature'));
      secrets.add(header(r, 'x-signature'));
    }
  });

  it('carry nonces that never repeat across 100,000 callbacks', () => {
    const nonces = new Set<string>();
    const signatures = new Set<string>();
    let malformed = 0;
    const now = Date.now();
    for (let i = 0; i < 100_000; i++) {
      // the same callback over and over: only the nonce tells the attempts apart
      const h = signedHeaders(OP, secretOf(OP), 'POST', '/wallet/credit', '{"amount":1}', now);
      if (!NONCE_PATTERN.test(h['x-nonce'])) malformed += 1;
      nonces.add(h['x-nonce']);
      signatures.add(h['x-signature']);
    }
    expect(malformed).toBe(0);
    expect(nonces.size).toBe(100_000);
    expect(signatures.size).toBe(100_000);
  }, 120_000);

  it('the wallet client signs with that code (no other nonce source)', () => {
    const client = readFileSync(new URL('../../src/wallet/wallet-client.ts', import.meta.url), 'utf8');
    expect(client).toMatch(/signedHeaders\(/);
    expect(client).not.toMatch(/Math\.random/);
  });
});

describe('signed operator requests (CONTRACT.md §6) on both signed routes', () => {
  let roundId = '';
  beforeAll(async () => {
    roundId = String((await w.bet(p, 'dice', 1, { target: 50, direction: 'over' })).body.roundId);
  });
  const targets = () => [`/api/reconciliation?operatorId=${OP}&limit=5`, `/api/bets/${roundId}`];
  const signedGet = async (target: string, opts: Parameters<typeof operatorSigned>[3] = {}) => {
    const h = operatorSigned(OP, 'GET', target, opts);
    secrets.add(h['x-signature']!);
    return call('GET', target, undefined, h);
  };

  it('answer a fresh signature and refuse a stale timestamp, a reused nonce, a wrong signature and missing headers', async () => {
    for (const target of targets()) {
      expect((await signedGet(target)).status, target).toBe(200);
      for (const shift of [-400, 400, -Infinity]) {
        const now = Math.floor(Date.now() / 1000);
        const a = await signedGet(target, { timestamp: shift === -Infinity ? 1 : now + shift });
        expect([a.status, a.body.code], `${target} ${shift}`).toEqual([401, 'SIGNATURE_STALE']);
      }
      const nonce = `reused-${newKey().replace(/[^A-Za-z0-9_-]/g, '')}`;
      expect((await signedGet(target, { nonce })).status).toBe(200);
      const again = await signedGet(target, { nonce });
      expect([again.status, again.body.code], target).toEqual([401, 'SIGNATURE_REPLAYED']);
      expect((await signedGet(target, { secret: 'not-the-secret-0123456789abc' })).body.code, target).toBe('SIGNATURE_INVALID');
      const good = operatorSigned(OP, 'GET', target);
      const flipped = { ...good, 'x-signature': good['x-signature']!.replace(/^./, (c) => (c === '0' ? '1' : '0')) };
      expect((await call('GET', target, undefined, flipped)).body.code, target).toBe('SIGNATURE_INVALID');
      for (const drop of ['x-timestamp', 'x-nonce', 'x-signature']) {
        const { [drop]: _gone, ...partial } = operatorSigned(OP, 'GET', target);
        const res = await call('GET', target, undefined, partial);
        expect([res.status, res.body.code], `${target} without ${drop}`).toEqual([401, 'SIGNATURE_REQUIRED']);
      }
    }
  });

  it('a nonce used on one instance is refused on another that shares Redis (two pods)', async () => {
    const second: TestApp = await createTestApp({ databaseUrl: w.t.config.databaseUrl!, redisKeyPrefix: w.t.config.redisKeyPrefix });
    try {
      for (const target of targets()) {
        const h = operatorSigned(OP, 'GET', target);
        secrets.add(h['x-signature']!);
        expect((await call('GET', target, undefined, h)).status).toBe(200);
        const replay = await second.app.inject({ method: 'GET', url: target, headers: h });
        answers.push(replay.body);
        expect([replay.statusCode, replay.json().code], target).toEqual([401, 'SIGNATURE_REPLAYED']);
      }
    } finally {
      await second.app.close();
    }
  });
});

describe('every operation that declares credentials refuses missing and wrong ones', () => {
  it('401 without credentials, with a wrong token, with the other secret, and (admin routes) with an operator signature', async () => {
    const doc = (await call('GET', '/openapi.json')).body as { paths: Record<string, Record<string, { security?: Record<string, string[]>[] }>> };
    let checked = 0;
    for (const [path, item] of Object.entries(doc.paths)) {
      for (const [method, op] of Object.entries(item)) {
        const schemes = (op.security ?? []).map((s) => Object.keys(s));
        if (!schemes.length || schemes.some((s) => s.length === 0)) continue; // public (or public with optional signing)
        const url = path.replace(/\{operatorId\}/g, OP).replace(/\{[^}]+\}/g, 'x');
        const adminOnly = schemes.every((s) => s.includes('adminToken'));
        const cron = schemes.some((s) => s.includes('cronSecret'));
        const attempts: Record<string, string>[] = [
          {},
          { authorization: 'Bearer wrong-token-0123456789' },
          { authorization: `Bearer ${cron ? ADMIN_TOKEN : CRON_SECRET}` },
          { authorization: `Basic ${cron ? CRON_SECRET : ADMIN_TOKEN}` },
          { authorization: `Bearer ${cron ? CRON_SECRET : ADMIN_TOKEN}0` },
          ...(adminOnly || cron ? [operatorSigned(OP, method.toUpperCase(), url)] : []),
        ];
        for (const headers of attempts) {
          const res = await call(method.toUpperCase() as 'GET', url, method === 'get' ? undefined : {}, headers);
          expect([res.status, res.body.code], `${method} ${url} ${JSON.stringify(headers).slice(0, 60)}`).toEqual([401, 'UNAUTHORIZED']);
          checked += 1;
        }
      }
    }
    expect(checked).toBeGreaterThanOrEqual(4 * 5);
  });
});

describe('the server seed of a live round', () => {
  it('cannot be read through any route while a Mines and a Blackjack round are open', async () => {
    const q = await w.player('sec-live', { balance: '1000' });
    secrets.add(q.launchToken);
    const mines = await call('POST', '/api/mines/rounds', { sessionId: q.sessionId, amount: 1, idempotencyKey: newKey(), mineCount: 3 });
    expect(mines.body.roundStatus).toBe('active');
    let blackjack: Answer | null = null;
    for (let i = 0; i < 20 && blackjack?.body.roundStatus !== 'active'; i++)
      blackjack = await call('POST', '/api/blackjack/rounds', { sessionId: q.sessionId, amount: 1, idempotencyKey: newKey() });
    expect(blackjack!.body.roundStatus).toBe('active');
    const seedRow = await w.t.services.db('seed_pairs').where({ operator_id: OP, player_ref: 'sec-live', revealed: false }).first();
    const serverSeed = String(seedRow.server_seed);
    expect(serverSeed).toMatch(/^[0-9a-f]{64}$/);

    const seen: string[] = [];
    const read = async (...args: Parameters<World['call']>) => seen.push((await call(...args)).text);
    const mId = String(mines.body.roundId);
    const bId = String(blackjack!.body.roundId);
    const admin = { authorization: `Bearer ${ADMIN_TOKEN}` };
    // every read route, with every credential that opens it
    for (const id of [mId, bId]) {
      await read('GET', `/api/bets/${id}`);
      await read('GET', `/api/bets/${id}`, undefined, operatorSigned(OP, 'GET', `/api/bets/${id}`));
    }
    await read('GET', `/api/mines/rounds/${mId}?sessionId=${q.sessionId}`);
    await read('GET', `/api/mines/rounds/active?sessionId=${q.sessionId}`);
    await read('GET', `/api/blackjack/rounds/${bId}?sessionId=${q.sessionId}`);
    await read('GET', `/api/blackjack/rounds/active?sessionId=${q.sessionId}`);
    await read('GET', `/api/balance?sessionId=${q.sessionId}`);
    await read('GET', `/api/reconciliation?operatorId=${OP}&limit=500`, undefined, admin);
    await read('GET', `/api/reconciliation?operatorId=${OP}&limit=500`, undefined, operatorSigned(OP, 'GET', `/api/reconciliation?operatorId=${OP}&limit=500`));
    await read('GET', '/api/admin/operators', undefined, admin);
    await read('GET', `/api/admin/operators/${OP}`, undefined, admin);
    await read('GET', `/api/operators/${OP}/config`);
    await read('GET', `/api/cron/wallet-retries?operatorId=${OP}&limit=100`, undefined, { authorization: `Bearer ${CRON_SECRET}` });
    // a new session of the player, and the seed rotation that is refused while the rounds are open
    const again = await call('POST', '/api/sessions', { operatorId: OP, launchToken: q.launchToken, launchMode: 'lobby' });
    seen.push(again.text);
    const rotate = await call('POST', '/api/fairness/rotate', { sessionId: q.sessionId });
    seen.push(rotate.text);
    expect(rotate.body.code).toBe('ACTIVE_ROUND_EXISTS');
    // playing on: a safe reveal (or a bust, which makes the round final but still does not reveal the seed)
    const reveal = await call('POST', `/api/mines/rounds/${mId}/reveal`, { sessionId: q.sessionId, tile: 0 });
    seen.push(reveal.text);
    if (reveal.body.roundStatus === 'active') expect((reveal.body.result as { mines?: unknown }).mines).toBeUndefined();
    const dealer = blackjack!.body.result as { dealer: { cards: string[] }; cards?: unknown };
    expect(dealer.dealer.cards).toHaveLength(1); // the hole card stays hidden
    expect(dealer.cards).toBeUndefined();
    for (const text of seen) {
      expect(text.includes(serverSeed), text.slice(0, 200)).toBe(false);
      expect(text.toLowerCase().includes(serverSeed.slice(0, 16))).toBe(false);
    }
    // the logs of these requests neither
    expect(lines.some((l) => l.includes(serverSeed))).toBe(false);
  });
});

describe('round ids', () => {
  it('carry 122 random bits from the CSPRNG (a UUIDv7 + 48 more bits: the time leads, for the partitions), distinct, with no bit stuck', async () => {
    const source = readFileSync(new URL('../../src/rounds/money-path/opening.ts', import.meta.url), 'utf8');
    expect(source).toMatch(/const roundId = newRoundId\(\)/);
    const random = readFileSync(new URL('../../src/infra/random.ts', import.meta.url), 'utf8');
    expect(random).toMatch(/import \{[^}]*randomBytes[^}]*\} from 'node:crypto'/);
    const q = await w.player('sec-ids', { balance: '100000' });
    const ids: string[] = [];
    for (let i = 0; i < 60; i++) ids.push(String((await w.bet(q, 'dice', 0.1, { target: 50, direction: 'over' })).body.roundId));
    const rows = await w.t.services.db('rounds').select('round_id');
    const all = [...new Set([...ids, ...rows.map((r: { round_id: string }) => r.round_id)])];
    expect(all.length).toBeGreaterThanOrEqual(60);
    const ROUND_ID = /^[0-9a-f]{8}-[0-9a-f]{4}-7[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}-[0-9a-f]{12}$/;
    for (const id of all) expect(id).toMatch(ROUND_ID);
    // the 122 random bits: every one of them takes both values across the ids
    const bits = (id: string) => {
      const hex = id.replace(/-/g, '');
      const b = BigInt(`0x${hex}`).toString(2).padStart(176, '0');
      return b.slice(52, 64) + b.slice(66); // without the time (48 bits), the version (4 bits) and the variant (2 bits)
    };
    const ones = new Array<number>(122).fill(0);
    for (const id of all) [...bits(id)].forEach((c, i) => (ones[i]! += c === '1' ? 1 : 0));
    expect(bits(all[0]!).length).toBe(122);
    for (const n of ones) {
      expect(n).toBeGreaterThan(0);
      expect(n).toBeLessThan(all.length);
    }
  }, 120_000);
});

describe('the answers and log lines of this file', () => {
  it('hold no operator secret, launch token, signature, bearer token or cookie', () => {
    expect(lines.length).toBeGreaterThan(20);
    for (const s of secrets) {
      expect(
        answers.some((a) => a.includes(s)),
        `an answer holds ${s.slice(0, 6)}…`,
      ).toBe(false);
      expect(
        lines.some((l) => l.includes(s)),
        `a log line holds ${s.slice(0, 6)}…`,
      ).toBe(false);
    }
    expect(lines.some((l) => /set-cookie|"cookie"/i.test(l) && !/redacted/i.test(l))).toBe(false);
  });
});
