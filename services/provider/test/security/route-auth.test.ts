/**
 * Authentication hangs on the matched route (issue 9, defect 1): every registered route declares
 * who may call it, and every protected one refuses an anonymous caller however its path is
 * spelled — percent-encoded, with doubled slashes, in another case, with a trailing slash.
 * Failed authentication is rate limited per client IP (defect 10).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PROTECTED_AUTH, ROUTE_AUTH } from '../../src/http/authentication.js';
import { ADMIN_TOKEN, createTestApp, type TestApp } from '../helpers/app.js';

let t: TestApp;
beforeAll(async () => {
  t = await createTestApp({ env: { RATE_LIMIT_AUTH_FAILURES_PER_MIN: '10000' } });
});
afterAll(async () => t?.close());

/** A concrete path for a route pattern (`:operatorId` → demo-usd). */
const concrete = (url: string) => url.replace(/:([A-Za-z]+)/g, (_m, name: string) => (name === 'operatorId' ? 'demo-usd' : `x-${name}`));

/** Spellings of a path that a router may take for the same route. */
function variants(path: string): string[] {
  const segments = path.split('/').filter(Boolean);
  const encodeFirst = (s: string) => `%${s.charCodeAt(0).toString(16).toUpperCase()}${s.slice(1)}`;
  const out = new Set<string>([
    path,
    `${path}/`,
    `/${path}`,
    path.replace(/\//g, '//'),
    path.toUpperCase(),
    `/${segments.map((s) => encodeURIComponent(s)).join('/')}`,
    `/${segments.map(encodeFirst).join('/')}`,
    `/${segments.map((s, i) => (i === 1 ? encodeFirst(s) : s)).join('/')}`,
    `/${segments.map((s, i) => (i === 1 ? s.toUpperCase() : s)).join('/')}`,
    `${path}?x=1`,
    `${path}%2F`,
    path.replace(/\//g, '/./'),
  ]);
  return [...out];
}

describe('every route declares who may call it', () => {
  it('has a rule from the list on every route, and the protected routes are the admin, cron, reconciliation, reporting, free-bet, promotion and session-end ones', () => {
    const table = t.app.routeTable;
    expect(table.length).toBeGreaterThan(15);
    for (const r of table) expect(ROUTE_AUTH).toContain(r.auth);
    const protectedUrls = new Set(table.filter((r) => PROTECTED_AUTH.includes(r.auth)).map((r) => r.url));
    expect([...protectedUrls].filter((u) => !u.startsWith('/api/admin/')).sort()).toEqual([
      '/api/cron/wallet-retries',
      '/api/free-bet-campaigns',
      '/api/free-bet-campaigns/:campaignId',
      '/api/free-bet-campaigns/:campaignId/cancel',
      '/api/free-bet-campaigns/:campaignId/players',
      '/api/promotions',
      '/api/promotions/:promoId',
      '/api/promotions/:promoId/awards',
      '/api/promotions/:promoId/cancel',
      '/api/promotions/:promoId/leaderboard',
      '/api/reconciliation',
      '/api/reconciliation/totals',
      '/api/reports/ggr',
      '/api/reports/players/:playerRef/rounds',
      '/api/reports/rounds/:roundId',
      '/api/sessions/end',
    ]);
    expect([...protectedUrls]).toEqual(expect.arrayContaining(['/api/admin/operators', '/api/admin/operators/:operatorId']));
    // the admin API: staff routes (a session or the bearer token; test/admin/isolation.test.ts lists each rule), but sign-in
    for (const r of table)
      if (r.url.startsWith('/api/admin/') && !r.url.startsWith('/api/admin/auth/csrf') && !r.url.startsWith('/api/admin/auth/login'))
        expect(r.auth).toBe('staff');
  });

  it('My bets (GET /api/player/bets) is a player route: the session is the credential, another player gets nothing', async () => {
    const entry = t.app.routeTable.find((r) => r.url === '/api/player/bets' && r.method === 'GET');
    expect(entry?.auth).toBe('player');
    for (const v of variants('/api/player/bets')) {
      const res = await t.app.inject({ method: 'GET', url: v });
      expect(res.statusCode, v).toBeLessThan(500);
      expect(res.statusCode, v).not.toBe(200);
    }
    expect((await t.app.inject({ method: 'GET', url: '/api/player/bets?sessionId=unknown-session' })).json().code).toBe('INVALID_SESSION');
  });

  it('a route registered without a rule stops the app from starting', async () => {
    const { default: Fastify } = await import('fastify');
    const { registerAuthentication } = await import('../../src/http/authentication.js');
    const app = Fastify();
    registerAuthentication(app, t.services);
    expect(() => app.get('/undeclared', async () => 'x')).toThrow(/declares no config.auth/);
    await app.close();
  });
});

describe('protected routes refuse an anonymous caller under every spelling of their path', () => {
  it('never answers 2xx (nor 5xx) without credentials, and 401 UNAUTHORIZED on the route itself', async () => {
    const protectedRoutes = t.app.routeTable.filter((r) => PROTECTED_AUTH.includes(r.auth) && r.method !== 'HEAD');
    let checked = 0;
    for (const r of protectedRoutes) {
      const path = concrete(r.url);
      const plain = await t.app.inject({ method: r.method as 'GET', url: path, ...(['PUT', 'POST', 'PATCH'].includes(r.method) ? { payload: {} } : {}) });
      expect(plain.statusCode, `${r.method} ${path}`).toBe(401);
      expect(plain.json().code).toBe('UNAUTHORIZED');
      for (const v of variants(path)) {
        for (const headers of [
          {},
          { authorization: 'Bearer wrong-token-0123456789' },
          { authorization: `Basic ${ADMIN_TOKEN}` },
          { authorization: `Bearer ${ADMIN_TOKEN}x` },
        ]) {
          const res = await t.app.inject({
            method: r.method as 'GET',
            url: v,
            headers,
            ...(['PUT', 'POST', 'PATCH'].includes(r.method) ? { payload: { currency: 'USD' } } : {}),
          });
          checked += 1;
          expect(res.statusCode < 200 || res.statusCode >= 300, `${r.method} ${v} answered ${res.statusCode}`).toBe(true);
          expect(res.statusCode, `${r.method} ${v}`).toBeLessThan(500);
          expect([401, 404, 400]).toContain(res.statusCode);
          expect(res.json().code).toMatch(/^(UNAUTHORIZED|NOT_FOUND|VALIDATION_ERROR)$/);
        }
      }
    }
    expect(checked).toBeGreaterThan(150);
  }, 180_000); // over a thousand requests since the admin console's routes joined

  it('the reported bypass: GET and PUT /api/%61dmin/operators are refused, and no profile changes', async () => {
    const before = await t.services.db('operators').select('operator_id', 'callback_base_url', 'secret_enc').orderBy('operator_id');
    const list = await t.app.inject({ method: 'GET', url: '/api/%61dmin/operators' });
    expect(list.statusCode).toBe(401);
    const put = await t.app.inject({
      method: 'PUT',
      url: '/api/%61dmin/operators/demo-usd',
      payload: {
        currency: 'USD',
        callbackBaseUrl: 'http://127.0.0.1:1/evil',
        sharedSecret: 'attacker-secret-0123456789',
        minBet: 1,
        stakeStep: 1,
        maxPayout: 1,
      },
    });
    expect(put.statusCode).toBe(401);
    expect(await t.services.db('operators').select('operator_id', 'callback_base_url', 'secret_enc').orderBy('operator_id')).toEqual(before);
  });

  it('the admin token opens the same routes (the rule is on the route, whatever the spelling that reached it)', async () => {
    const headers = { authorization: `Bearer ${ADMIN_TOKEN}` };
    expect((await t.app.inject({ method: 'GET', url: '/api/admin/operators', headers })).statusCode).toBe(200);
    expect((await t.app.inject({ method: 'GET', url: '/api/%61dmin/operators', headers })).statusCode).toBe(200);
    // the admin API takes no operator signatures (CONTRACT.md §13)
    const signed = {
      'x-operator-id': 'demo-usd',
      'x-timestamp': String(Math.floor(Date.now() / 1000)),
      'x-nonce': 'n'.repeat(20),
      'x-signature': 'a'.repeat(64),
    };
    expect((await t.app.inject({ method: 'GET', url: '/api/admin/operators', headers: signed })).json().code).toBe('UNAUTHORIZED');
  });
});

describe('failed authentication is rate limited per client IP (RATE_LIMIT_AUTH_FAILURES_PER_MIN)', () => {
  it('answers 429 RATE_LIMITED in the error envelope once an IP failed too often, on admin and cron routes alike', async () => {
    const app = await createTestApp({ env: { RATE_LIMIT_AUTH_FAILURES_PER_MIN: '5' } });
    try {
      const attempt = (url: string, ip: string, token = 'wrong-token-0123456789') =>
        app.app.inject({ method: 'GET', url, remoteAddress: ip, headers: { authorization: `Bearer ${token}` } });
      for (let i = 0; i < 5; i++) expect((await attempt('/api/admin/operators', '10.0.0.7')).statusCode).toBe(401);
      const blocked = await attempt('/api/cron/wallet-retries', '10.0.0.7');
      expect(blocked.statusCode).toBe(429);
      expect(blocked.json()).toMatchObject({ statusCode: 429, error: 'Too Many Requests', code: 'RATE_LIMITED' });
      // even the right token waits out the window from that IP; another IP is not affected
      expect((await attempt('/api/admin/operators', '10.0.0.7', ADMIN_TOKEN)).statusCode).toBe(429);
      expect((await attempt('/api/admin/operators', '10.0.0.8', ADMIN_TOKEN)).statusCode).toBe(200);
      // successful calls do not count
      for (let i = 0; i < 8; i++) expect((await attempt('/api/admin/operators', '10.0.0.9', ADMIN_TOKEN)).statusCode).toBe(200);
    } finally {
      await app.close();
    }
  });
});
