/**
 * Hostile input never answers 500 (issue 9, defects 2, 3, 7, 8, 12; CONTRACT.md §2): a sweep
 * driven by every route's own schemas sends NUL bytes, control characters and malformed values
 * to every field of every route — body, query and path — and checks that each answer is a 4xx
 * (or 2xx) in the error envelope with a code of the catalogue.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { ERROR_STATUS } from '../../src/errors.js';
import { ADMIN_TOKEN, CRON_SECRET, createTestApp, type TestApp } from '../helpers/app.js';

let t: TestApp;
let good: Record<string, unknown>;

beforeAll(async () => {
  t = await createTestApp();
  const launch = await t.app.inject({
    method: 'POST',
    url: '/sandbox/launch',
    payload: { operatorId: 'demo-usd', playerRef: 'sweeper', gameType: 'dice', launchMode: 'lobby' },
  });
  const { launchToken } = launch.json();
  const session = await t.app.inject({ method: 'POST', url: '/api/sessions', payload: { operatorId: 'demo-usd', launchToken, launchMode: 'lobby' } });
  const { sessionId } = session.json();
  const bet = await t.app.inject({
    method: 'POST',
    url: '/api/bets',
    payload: { sessionId, gameType: 'dice', amount: 1, idempotencyKey: 'sweep-bet', params: { target: 50, direction: 'over' } },
  });
  good = {
    sessionId,
    launchToken,
    operatorId: 'demo-usd',
    playerRef: 'sweeper',
    roundId: bet.json().roundId,
    gameType: 'dice',
    launchMode: 'lobby',
    amount: 1,
    currency: 'USD',
    tile: 3,
    mineCount: 3,
    action: 'hit',
    takeInsurance: false,
    limit: '10',
    serverSeed: 'a'.repeat(64),
    serverSeedHash: 'b'.repeat(64),
    clientSeed: 'seed',
    nonce: 0,
    params: { target: 50, direction: 'over', rows: 8, risk: 'low', picks: [1, 2, 3], mineCount: 3 },
    sharedSecret: 'secret-0123456789abcdef',
    callbackBaseUrl: 'sandbox://demo-casino',
    minBet: 1,
    stakeStep: 1,
    maxPayout: 1000,
  };
});
afterAll(async () => t?.close());

const CODES = Object.keys(ERROR_STATUS).filter((c) => c !== 'INTERNAL_ERROR');

/** Values no field should turn into a 500. */
const HOSTILE: unknown[] = [
  '\u0000',
  'a\u0000b',
  '\u0007\u001b[31m',
  'line\nbreak',
  '\ud800',
  '𝔘𝔫𝔦𝔠𝔬𝔡𝔢 ✓',
  '',
  ' ',
  'x'.repeat(5000),
  '%00',
  '../../etc/passwd',
  "' OR 1=1 --",
  '1e400',
  -1,
  0,
  Infinity, // JSON.stringify writes null; the raw 1e400 is sent as text below
  1.0000000001,
  2 ** 53 + 2,
  true,
  null,
  [],
  ['\u0000'],
  {},
  { __proto__: { polluted: true } },
  { constructor: { prototype: { polluted: true } } },
];

/** Query-string values (always text). */
const HOSTILE_QUERY = [
  '%00',
  'a%00b',
  '%07',
  '%0A',
  '%C0%AF',
  '%FF',
  '1',
  '-1',
  '0x10',
  '1e2',
  '%205',
  '+5',
  '5.0',
  '99999999999999999999',
  'x'.repeat(3000),
  '2026-13-45',
  'March%207',
  '0000-01-01',
  '1',
];

interface Part {
  where: 'body' | 'querystring' | 'params';
  fields: string[];
}

function fieldsOf(schema: unknown): string[] {
  if (!(schema instanceof z.ZodType)) return [];
  const js = z.toJSONSchema(schema, { io: 'input', unrepresentable: 'any' }) as { properties?: Record<string, unknown> };
  return Object.keys(js.properties ?? {});
}

function partsOf(schema: Record<string, unknown> | undefined): Part[] {
  if (!schema) return [];
  return (['body', 'querystring', 'params'] as const).map((where) => ({ where, fields: fieldsOf(schema[where]) })).filter((p) => p.fields.length > 0);
}

function headersFor(auth: string): Record<string, string> {
  if (auth === 'admin' || auth === 'admin-or-operator' || auth === 'staff') return { authorization: `Bearer ${ADMIN_TOKEN}` };
  if (auth === 'cron') return { authorization: `Bearer ${CRON_SECRET}` };
  return {};
}

async function send(method: string, url: string, auth: string, body?: unknown) {
  const res = await t.app.inject({
    method: method as 'GET',
    url,
    headers: { ...headersFor(auth), ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
    ...(body === undefined ? {} : { payload: JSON.stringify(body) }),
  });
  return res;
}

function expectEnvelope(res: { statusCode: number; body: string }, what: string): void {
  // /ready answers 503 NOT_READY for an unknown operator (CONTRACT.md §13): the one 5xx that is an answer, not a failure.
  const notReady = what.startsWith('GET /ready') && res.statusCode === 503 && JSON.parse(res.body).code === 'NOT_READY';
  if (!notReady) expect(res.statusCode, `${what} → ${res.statusCode} ${res.body.slice(0, 200)}`).toBeLessThan(500);
  if (res.statusCode >= 400) {
    const body = JSON.parse(res.body) as { code: string; statusCode: number; error: string; message: string };
    expect(CODES, what).toContain(body.code);
    expect(body.statusCode).toBe(res.statusCode);
    expect(typeof body.message).toBe('string');
  }
}

describe('a schema-driven sweep of every route', () => {
  it('answers every hostile body, query and path value of every field with a 4xx code of the catalogue, never a 500', async () => {
    let requests = 0;
    for (const r of t.app.routeTable) {
      if (r.method === 'HEAD') continue;
      const parts = partsOf(r.schema);
      const pathOf = (params: Record<string, string>) => r.url.replace(/:([A-Za-z]+)/g, (_m, n: string) => params[n] ?? String(good[n] ?? 'x'));
      // A valid request as far as known values go (fields without a known good value are left out), so hostile values reach deep.
      const known = (where: Part['where']) => (parts.find((p) => p.where === where)?.fields ?? []).filter((f) => f === 'idempotencyKey' || f in good);
      const baseBody = Object.fromEntries(known('body').map((f) => [f, f === 'idempotencyKey' ? `k-${requests}` : good[f]]));
      const baseQuery = Object.fromEntries(known('querystring').map((f) => [f, String(good[f])]));
      const qs = (q: Record<string, string>) => {
        const s = Object.entries(q)
          .map(([k, v]) => `${k}=${v}`)
          .join('&');
        return s ? `?${s}` : '';
      };
      const hasBody = ['POST', 'PUT'].includes(r.method);
      for (const part of parts) {
        for (const field of part.fields) {
          if (part.where === 'body') {
            for (const v of HOSTILE) {
              const body = { ...baseBody, [field]: v, ...(field === 'idempotencyKey' ? {} : { idempotencyKey: `k-${++requests}` }) };
              if (!('idempotencyKey' in baseBody)) delete (body as Record<string, unknown>).idempotencyKey;
              expectEnvelope(
                await send(r.method, `${pathOf({})}${qs(baseQuery)}`, r.auth, body),
                `${r.method} ${r.url} body.${field}=${JSON.stringify(v)?.slice(0, 40)}`,
              );
              requests++;
            }
          } else if (part.where === 'querystring') {
            for (const v of HOSTILE_QUERY) {
              expectEnvelope(
                await send(r.method, `${pathOf({})}${qs({ ...baseQuery, [field]: v })}`, r.auth, hasBody ? baseBody : undefined),
                `${r.method} ${r.url} ?${field}=${v.slice(0, 40)}`,
              );
              requests++;
            }
          } else {
            for (const v of HOSTILE_QUERY) {
              expectEnvelope(
                await send(r.method, `${pathOf({ [field]: v })}${qs(baseQuery)}`, r.auth, hasBody ? baseBody : undefined),
                `${r.method} ${r.url} :${field}=${v.slice(0, 40)}`,
              );
              requests++;
            }
          }
        }
      }
    }
    expect(requests).toBeGreaterThan(1000);
  }, 300_000); // a bound for a busy machine, not a timing

  it('refuses the reported cases with VALIDATION_ERROR (not 500, not a framework code)', async () => {
    const cases = [
      '/api/bets/%00',
      `/api/balance?sessionId=%00`,
      '/api/bets/%C0%AF',
      `/api/bets/${'x'.repeat(5000)}`,
      `/api/bets/${'x'.repeat(201)}`,
      '/api/mines/rounds/active?sessionId=a%00',
      '/api/blackjack/rounds/active?sessionId=%07',
    ];
    for (const url of cases) {
      const res = await t.app.inject({ method: 'GET', url });
      expect(res.statusCode, url).toBe(400);
      expect(res.json(), url).toMatchObject({ statusCode: 400, error: 'Bad Request', code: 'VALIDATION_ERROR' });
    }
    // a long unknown id up to 200 characters is looked up (CONTRACT.md §13)
    expect((await t.app.inject({ method: 'GET', url: `/api/bets/${'x'.repeat(200)}` })).json().code).toBe('ROUND_NOT_FOUND');
    // readiness of an unknown operator stays 503
    const ready = await t.app.inject({ method: 'GET', url: '/ready?operatorId=nope' });
    expect(ready.statusCode).toBe(503);
    expect((await t.app.inject({ method: 'GET', url: '/ready?operatorId=%00' })).statusCode).toBe(400);
    for (const body of [
      { operatorId: 'demo-usd', launchToken: 'a\u0000b' },
      { operatorId: 'demo\u0000usd', launchToken: 'x' },
    ]) {
      const res = await t.app.inject({ method: 'POST', url: '/api/sessions', payload: body });
      expect(res.json().code).toBe('VALIDATION_ERROR');
    }
    const sandbox = await t.app.inject({ method: 'POST', url: '/sandbox/launch', payload: { operatorId: 'demo-usd', playerRef: 'p\u0000', gameType: 'dice' } });
    expect(sandbox.json().code).toBe('VALIDATION_ERROR');
  });

  it('answers raw hostile bodies (huge and odd numbers, deep nesting, prototype keys, other media types) in the envelope', async () => {
    const sessionId = String(good.sessionId);
    const raw = [
      `{"sessionId":"${sessionId}","gameType":"dice","amount":1e400,"idempotencyKey":"r1","params":{"target":50,"direction":"over"}}`,
      `{"sessionId":"${sessionId}","gameType":"dice","amount":-0,"idempotencyKey":"r2"}`,
      `{"sessionId":"${sessionId}","gameType":"dice","amount":1e-400,"idempotencyKey":"r3"}`,
      `{"sessionId":"${sessionId}","gameType":"dice","amount":0.001,"idempotencyKey":"r4"}`,
      `{"sessionId":"${sessionId}","gameType":"dice","amount":1,"idempotencyKey":"r5","params":${'['.repeat(5000)}${']'.repeat(5000)}}`,
      `{"__proto__":{"admin":true},"sessionId":"${sessionId}","gameType":"dice","amount":1,"idempotencyKey":"r6"}`,
      `{"sessionId":"${sessionId}","gameType":"dice","amount":1,"idempotencyKey":"r7","params":{"__proto__":{"target":1}}}`,
      '{"sessionId":',
      '"just a string"',
      'null',
      `{"sessionId":"${sessionId}","x":"${'y'.repeat(70 * 1024)}"}`,
    ];
    for (const payload of raw) {
      const res = await t.app.inject({ method: 'POST', url: '/api/bets', headers: { 'content-type': 'application/json' }, payload });
      expectEnvelope(res, `raw ${payload.slice(0, 60)}`);
      expect(res.statusCode).toBeGreaterThanOrEqual(400);
    }
    for (const type of ['text/plain', 'application/x-www-form-urlencoded', 'multipart/form-data; boundary=x']) {
      const res = await t.app.inject({ method: 'POST', url: '/api/bets', headers: { 'content-type': type }, payload: 'a=1' });
      expect(res.statusCode).toBe(400);
      expect(res.json().code).toBe('VALIDATION_ERROR');
    }
  });

  it('checks reconciliation times as RFC 3339 at the schema', async () => {
    const auth = { authorization: `Bearer ${ADMIN_TOKEN}` };
    for (const bad of ['1', '-1', '0000-01-01', 'March%207', '2026-11-24', '2026-11-24T25:00:00Z', '99999-01-01T00:00:00Z', '1969-12-31T23:59:59Z']) {
      const res = await t.app.inject({ method: 'GET', url: `/api/reconciliation?from=${bad}`, headers: auth });
      expect(res.statusCode, bad).toBe(400);
      expect(res.json().code).toBe('VALIDATION_ERROR');
    }
    for (const okTime of ['2026-11-24T00:00:00Z', '2026-11-24T00:00:00.123+01:00']) {
      expect(
        (await t.app.inject({ method: 'GET', url: `/api/reconciliation?from=${encodeURIComponent(okTime)}&to=2099-01-01T00:00:00Z`, headers: auth }))
          .statusCode,
      ).toBe(200);
    }
  });

  it('accepts only plain decimal digits for integers in query strings', async () => {
    const cron = { authorization: `Bearer ${CRON_SECRET}` };
    for (const bad of ['0x10', '1e2', '%205', '+5', '5.0', '-1', '0', '101', '']) {
      const res = await t.app.inject({ method: 'GET', url: `/api/cron/wallet-retries?limit=${bad}`, headers: cron });
      expect(res.statusCode, bad).toBe(400);
      expect(res.json().code).toBe('VALIDATION_ERROR');
    }
    expect((await t.app.inject({ method: 'GET', url: '/api/cron/wallet-retries?limit=100', headers: cron })).statusCode).toBe(200);
    const admin = { authorization: `Bearer ${ADMIN_TOKEN}` };
    expect((await t.app.inject({ method: 'GET', url: '/api/reconciliation?limit=1e2', headers: admin })).statusCode).toBe(400);
    expect((await t.app.inject({ method: 'GET', url: '/api/reconciliation?limit=500', headers: admin })).statusCode).toBe(200);
  });
});
