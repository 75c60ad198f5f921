/**
 * Tenant isolation on the server (issue 13 item 2), route by route. RULES lists EVERY staff route
 * of the app with the rule it must declare and a request that reaches another casino's data:
 * a route added without a row here fails the first test. Casino staff of tenant A get 403
 * FORBIDDEN on tenant B's profiles, rounds, audit, reconciliation and staff; a viewer changes
 * nothing (403); a platform admin (session or bearer token) reaches everything.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { StaffRule } from '../../src/http/authentication.js';
import { enqueueEvent, putEndpoint } from '../../src/webhooks/webhook-store.js';
import { adminHeaders, createTestApp, type TestApp } from '../helpers/app.js';
import { playDice, profile, staffSession, type StaffSession } from './helpers.js';

let t: TestApp;
let aAdmin: StaffSession;
let aViewer: StaffSession;
let bAdmin: StaffSession;
let platform: StaffSession;
let roundB = '';
let roundA = '';
let campaignA = '';
let campaignB = '';
let promoA = '';
let promoB = '';
let eventA = '';
let eventB = '';
const tournament = (operatorId: string) => ({
  kind: 'tournament',
  operatorId,
  scoring: 'wagered',
  prizes: [5, 2],
  endsAt: new Date(Date.now() + 3_600_000).toISOString(),
});
const campaign = (operatorId: string) => ({
  operatorId,
  gameType: 'dice',
  amount: 1,
  params: { target: 50.5, direction: 'over' },
  betsPerPlayer: 2,
  playerRefs: ['p1'],
  expiresAt: new Date(Date.now() + 3_600_000).toISOString(),
});

interface Req {
  method: 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';
  url: string;
  payload?: unknown;
}

/** Each staff route: its rule, and (unless `self`) a request for tenant B's data, made by tenant A's staff. */
const RULES: Record<string, { rule: StaffRule; other?: () => Req; own?: () => Req }> = {
  'GET /api/admin/auth/me': { rule: { role: 'viewer', scope: 'self' } },
  'POST /api/admin/auth/logout': { rule: { role: 'viewer', scope: 'self' } },
  'POST /api/admin/auth/password': { rule: { role: 'viewer', scope: 'self' } },
  'GET /api/admin/operators': { rule: { role: 'viewer', scope: 'list' }, other: () => ({ method: 'GET', url: '/api/admin/operators?operatorId=b-usd' }) },
  'GET /api/admin/operators/:operatorId': {
    rule: { role: 'viewer', scope: 'operator' },
    other: () => ({ method: 'GET', url: '/api/admin/operators/b-usd' }),
    own: () => ({ method: 'GET', url: '/api/admin/operators/a-usd' }),
  },
  'PUT /api/admin/operators/:operatorId': {
    rule: { role: 'admin', scope: 'operator', allowNew: true },
    other: () => ({ method: 'PUT', url: '/api/admin/operators/b-usd', payload: profile('casino-b') }),
    own: () => ({ method: 'PUT', url: '/api/admin/operators/a-usd', payload: profile('casino-a') }),
  },
  'POST /api/admin/operators/:operatorId': {
    rule: { role: 'admin', scope: 'operator', allowNew: true },
    other: () => ({ method: 'POST', url: '/api/admin/operators/b-usd', payload: { ...profile('casino-b'), sharedSecret: undefined } }),
    own: () => ({ method: 'POST', url: '/api/admin/operators/a-new', payload: { ...profile('casino-a'), sharedSecret: undefined } }),
  },
  'PATCH /api/admin/operators/:operatorId': {
    rule: { role: 'admin', scope: 'operator' },
    other: () => ({ method: 'PATCH', url: '/api/admin/operators/b-usd', payload: { enabled: false } }),
    own: () => ({ method: 'PATCH', url: '/api/admin/operators/a-usd', payload: { enabled: true } }),
  },
  'POST /api/admin/operators/:operatorId/rotate-secret': {
    rule: { role: 'admin', scope: 'operator' },
    other: () => ({ method: 'POST', url: '/api/admin/operators/b-usd/rotate-secret', payload: { graceHours: 1 } }),
    own: () => ({ method: 'POST', url: '/api/admin/operators/a-eur/rotate-secret', payload: { graceHours: 0 } }),
  },
  'GET /api/admin/operators/:operatorId/history': {
    rule: { role: 'viewer', scope: 'operator' },
    other: () => ({ method: 'GET', url: '/api/admin/operators/b-usd/history' }),
    own: () => ({ method: 'GET', url: '/api/admin/operators/a-usd/history' }),
  },
  'GET /api/admin/staff': {
    rule: { role: 'viewer', scope: 'self' },
    other: () => ({ method: 'GET', url: '/api/admin/staff?tenantId=casino-b' }),
    own: () => ({ method: 'GET', url: '/api/admin/staff' }),
  },
  'POST /api/admin/staff': {
    rule: { role: 'admin', scope: 'self' },
    other: () => ({ method: 'POST', url: '/api/admin/staff', payload: { email: 'x@b.test', role: 'viewer', tenantId: 'casino-b' } }),
    own: () => ({ method: 'POST', url: '/api/admin/staff', payload: { email: `new-${Math.random()}@a.test`, role: 'viewer' } }),
  },
  'PATCH /api/admin/staff/:staffId': {
    rule: { role: 'admin', scope: 'staff' },
    other: () => ({ method: 'PATCH', url: `/api/admin/staff/${bAdmin.staffId}`, payload: { role: 'viewer' } }),
  },
  'DELETE /api/admin/staff/:staffId': {
    rule: { role: 'admin', scope: 'staff' },
    other: () => ({ method: 'DELETE', url: `/api/admin/staff/${bAdmin.staffId}` }),
  },
  'GET /api/admin/audit': {
    rule: { role: 'viewer', scope: 'list' },
    other: () => ({ method: 'GET', url: '/api/admin/audit?operatorId=b-usd' }),
    own: () => ({ method: 'GET', url: '/api/admin/audit' }),
  },
  'GET /api/admin/rounds': {
    rule: { role: 'viewer', scope: 'list' },
    other: () => ({ method: 'GET', url: '/api/admin/rounds?operatorId=b-usd' }),
    own: () => ({ method: 'GET', url: '/api/admin/rounds' }),
  },
  'GET /api/admin/rounds/:roundId': {
    rule: { role: 'viewer', scope: 'round' },
    other: () => ({ method: 'GET', url: `/api/admin/rounds/${roundB}` }),
    own: () => ({ method: 'GET', url: `/api/admin/rounds/${roundA}` }),
  },
  'POST /api/admin/rounds/:roundId/retry': {
    rule: { role: 'admin', scope: 'round' },
    other: () => ({ method: 'POST', url: `/api/admin/rounds/${roundB}/retry` }),
    own: () => ({ method: 'POST', url: `/api/admin/rounds/${roundA}/retry` }),
  },
  'GET /api/admin/pending': {
    rule: { role: 'viewer', scope: 'list' },
    other: () => ({ method: 'GET', url: '/api/admin/pending?operatorId=b-usd' }),
    own: () => ({ method: 'GET', url: '/api/admin/pending' }),
  },
  'GET /api/admin/reconciliation': {
    rule: { role: 'viewer', scope: 'list' },
    other: () => ({ method: 'GET', url: '/api/admin/reconciliation?operatorId=b-usd' }),
    own: () => ({ method: 'GET', url: '/api/admin/reconciliation' }),
  },
  'GET /api/admin/reconciliation/totals': {
    rule: { role: 'viewer', scope: 'list' },
    other: () => ({ method: 'GET', url: '/api/admin/reconciliation/totals?operatorId=b-usd' }),
    own: () => ({ method: 'GET', url: '/api/admin/reconciliation/totals' }),
  },
  'GET /api/admin/reconciliation.csv': {
    rule: { role: 'viewer', scope: 'list' },
    other: () => ({ method: 'GET', url: '/api/admin/reconciliation.csv?operatorId=b-usd' }),
    own: () => ({ method: 'GET', url: '/api/admin/reconciliation.csv' }),
  },
  'POST /api/admin/free-bet-campaigns': {
    rule: { role: 'admin', scope: 'list' },
    other: () => ({ method: 'POST', url: '/api/admin/free-bet-campaigns', payload: campaign('b-usd') }),
    own: () => ({ method: 'POST', url: '/api/admin/free-bet-campaigns', payload: campaign('a-usd') }),
  },
  'GET /api/admin/free-bet-campaigns': {
    rule: { role: 'viewer', scope: 'list' },
    other: () => ({ method: 'GET', url: '/api/admin/free-bet-campaigns?operatorId=b-usd' }),
    own: () => ({ method: 'GET', url: '/api/admin/free-bet-campaigns' }),
  },
  'GET /api/admin/free-bet-campaigns/:campaignId': {
    rule: { role: 'viewer', scope: 'campaign' },
    other: () => ({ method: 'GET', url: `/api/admin/free-bet-campaigns/${campaignB}` }),
    own: () => ({ method: 'GET', url: `/api/admin/free-bet-campaigns/${campaignA}` }),
  },
  'POST /api/admin/free-bet-campaigns/:campaignId/players': {
    rule: { role: 'admin', scope: 'campaign' },
    other: () => ({ method: 'POST', url: `/api/admin/free-bet-campaigns/${campaignB}/players`, payload: { playerRefs: ['p2'] } }),
    own: () => ({ method: 'POST', url: `/api/admin/free-bet-campaigns/${campaignA}/players`, payload: { playerRefs: ['p2'] } }),
  },
  'POST /api/admin/free-bet-campaigns/:campaignId/cancel': {
    rule: { role: 'admin', scope: 'campaign' },
    other: () => ({ method: 'POST', url: `/api/admin/free-bet-campaigns/${campaignB}/cancel` }),
    own: () => ({ method: 'POST', url: `/api/admin/free-bet-campaigns/${campaignA}/cancel` }),
  },
  // promotions (issue 30): tournaments and prize drops of the tenant's profiles
  'POST /api/admin/promotions': {
    rule: { role: 'admin', scope: 'list' },
    other: () => ({ method: 'POST', url: '/api/admin/promotions', payload: tournament('b-usd') }),
    own: () => ({ method: 'POST', url: '/api/admin/promotions', payload: tournament('a-usd') }),
  },
  'GET /api/admin/promotions': {
    rule: { role: 'viewer', scope: 'list' },
    other: () => ({ method: 'GET', url: '/api/admin/promotions?operatorId=b-usd' }),
    own: () => ({ method: 'GET', url: '/api/admin/promotions' }),
  },
  'GET /api/admin/promotions/:promoId': {
    rule: { role: 'viewer', scope: 'promotion' },
    other: () => ({ method: 'GET', url: `/api/admin/promotions/${promoB}` }),
    own: () => ({ method: 'GET', url: `/api/admin/promotions/${promoA}` }),
  },
  'GET /api/admin/promotions/:promoId/leaderboard': {
    rule: { role: 'viewer', scope: 'promotion' },
    other: () => ({ method: 'GET', url: `/api/admin/promotions/${promoB}/leaderboard` }),
    own: () => ({ method: 'GET', url: `/api/admin/promotions/${promoA}/leaderboard` }),
  },
  'GET /api/admin/promotions/:promoId/awards': {
    rule: { role: 'viewer', scope: 'promotion' },
    other: () => ({ method: 'GET', url: `/api/admin/promotions/${promoB}/awards` }),
    own: () => ({ method: 'GET', url: `/api/admin/promotions/${promoA}/awards` }),
  },
  'POST /api/admin/promotions/:promoId/cancel': {
    rule: { role: 'admin', scope: 'promotion' },
    other: () => ({ method: 'POST', url: `/api/admin/promotions/${promoB}/cancel` }),
    own: () => ({ method: 'POST', url: `/api/admin/promotions/${promoA}/cancel` }),
  },
  'GET /api/admin/operators/:operatorId/webhook': {
    rule: { role: 'viewer', scope: 'operator' },
    other: () => ({ method: 'GET', url: '/api/admin/operators/b-usd/webhook' }),
    own: () => ({ method: 'GET', url: '/api/admin/operators/a-usd/webhook' }),
  },
  'PUT /api/admin/operators/:operatorId/webhook': {
    rule: { role: 'admin', scope: 'operator' },
    other: () => ({ method: 'PUT', url: '/api/admin/operators/b-usd/webhook', payload: { url: 'http://127.0.0.1:9/hooks', events: ['credit.pending'] } }),
    own: () => ({ method: 'PUT', url: '/api/admin/operators/a-usd/webhook', payload: { url: 'http://127.0.0.1:9/hooks', events: ['credit.pending'] } }),
  },
  'POST /api/admin/operators/:operatorId/webhook/test': {
    rule: { role: 'admin', scope: 'operator' },
    other: () => ({ method: 'POST', url: '/api/admin/operators/b-usd/webhook/test' }),
    own: () => ({ method: 'POST', url: '/api/admin/operators/a-usd/webhook/test' }),
  },
  'GET /api/admin/operators/:operatorId/webhook/events': {
    rule: { role: 'viewer', scope: 'operator' },
    other: () => ({ method: 'GET', url: '/api/admin/operators/b-usd/webhook/events' }),
    own: () => ({ method: 'GET', url: '/api/admin/operators/a-usd/webhook/events' }),
  },
  'GET /api/admin/operators/:operatorId/webhook/deliveries': {
    rule: { role: 'viewer', scope: 'operator' },
    other: () => ({ method: 'GET', url: '/api/admin/operators/b-usd/webhook/deliveries' }),
    own: () => ({ method: 'GET', url: '/api/admin/operators/a-usd/webhook/deliveries' }),
  },
  'POST /api/admin/operators/:operatorId/webhook/events/:eventId/redeliver': {
    rule: { role: 'admin', scope: 'operator' },
    other: () => ({ method: 'POST', url: `/api/admin/operators/b-usd/webhook/events/${eventB}/redeliver` }),
    own: () => ({ method: 'POST', url: `/api/admin/operators/a-usd/webhook/events/${eventA}/redeliver` }),
  },
  'DELETE /api/admin/operators/:operatorId/webhook': {
    rule: { role: 'admin', scope: 'operator' },
    other: () => ({ method: 'DELETE', url: '/api/admin/operators/b-usd/webhook' }),
    own: () => ({ method: 'DELETE', url: '/api/admin/operators/a-usd/webhook' }),
  },
  'GET /api/admin/dashboard': {
    rule: { role: 'viewer', scope: 'list' },
    other: () => ({ method: 'GET', url: `/api/admin/dashboard?operatorId=b-usd&from=2020-01-01T00:00:00Z&to=2020-02-01T00:00:00Z` }),
    own: () => ({ method: 'GET', url: `/api/admin/dashboard?from=2020-01-01T00:00:00Z&to=2020-02-01T00:00:00Z` }),
  },
};

const send = (s: StaffSession | null, r: Req) =>
  t.app.inject({ method: r.method, url: r.url, headers: s ? s.headers : adminHeaders, ...(r.payload !== undefined ? { payload: r.payload as object } : {}) });

beforeAll(async () => {
  t = await createTestApp();
  for (const [id, tenant, currency] of [
    ['a-usd', 'casino-a', 'USD'],
    ['a-eur', 'casino-a', 'EUR'],
    ['b-usd', 'casino-b', 'USD'],
  ] as const) {
    const res = await t.app.inject({ method: 'PUT', url: `/api/admin/operators/${id}`, headers: adminHeaders, payload: profile(tenant, currency) });
    expect(res.statusCode, res.body).toBe(201);
  }
  roundA = await playDice(t, 'a-usd');
  roundB = await playDice(t, 'b-usd');
  for (const [id, set] of [
    ['a-usd', (v: string) => (campaignA = v)],
    ['b-usd', (v: string) => (campaignB = v)],
  ] as const) {
    const res = await t.app.inject({ method: 'POST', url: '/api/admin/free-bet-campaigns', headers: adminHeaders, payload: campaign(id) });
    expect(res.statusCode, res.body).toBe(201);
    set(res.json().campaignId);
  }
  for (const [id, set] of [
    ['a-usd', (v: string) => (promoA = v)],
    ['b-usd', (v: string) => (promoB = v)],
  ] as const) {
    const res = await t.app.inject({ method: 'POST', url: '/api/admin/promotions', headers: adminHeaders, payload: tournament(id) });
    expect(res.statusCode, res.body).toBe(201);
    set(res.json().promoId);
  }
  // a webhook receiver and an event of each tenant (the webhook routes' rows)
  for (const id of ['a-usd', 'b-usd']) await putEndpoint(t.services.db, id, { url: 'http://127.0.0.1:9/hooks', events: ['credit.pending'], enabled: true });
  eventA = (await enqueueEvent(t.services.db, 'a-usd', 'webhook.test', {}, null, { force: true }))!;
  eventB = (await enqueueEvent(t.services.db, 'b-usd', 'webhook.test', {}, null, { force: true }))!;
  platform = await staffSession(t, 'root@platform.test', 'platform_admin', null);
  aAdmin = await staffSession(t, 'admin@a.test', 'admin', 'casino-a');
  aViewer = await staffSession(t, 'viewer@a.test', 'viewer', 'casino-a');
  bAdmin = await staffSession(t, 'admin@b.test', 'admin', 'casino-b');
});
afterAll(async () => t?.close());

describe('every staff route has a row in the rule table', () => {
  it('lists exactly the staff routes of the app, each with the rule it declares', () => {
    const staffRoutes = t.app.routeTable.filter((r) => r.auth === 'staff' && r.method !== 'HEAD');
    expect(staffRoutes.map((r) => `${r.method} ${r.url}`).sort()).toEqual(Object.keys(RULES).sort());
    for (const r of staffRoutes) expect(r.staff, `${r.method} ${r.url}`).toEqual(RULES[`${r.method} ${r.url}`]!.rule);
    // every /api/admin/ route is a staff route, but sign-in's two public ones
    const adminRoutes = t.app.routeTable.filter((r) => r.url.startsWith('/api/admin/') && r.method !== 'HEAD');
    for (const r of adminRoutes) if (r.auth !== 'staff') expect(['GET /api/admin/auth/csrf', 'POST /api/admin/auth/login']).toContain(`${r.method} ${r.url}`);
  });
});

describe('casino staff of tenant A never reach tenant B', () => {
  for (const [route, { rule, other }] of Object.entries(RULES)) {
    if (!other) continue;
    it(`${route}: 403 FORBIDDEN for A's admin and viewer`, async () => {
      for (const who of [aAdmin, aViewer]) {
        const res = await send(who, other());
        expect(res.statusCode, `${who.email} ${route}: ${res.body}`).toBe(403);
        expect(res.json().code).toBe('FORBIDDEN');
      }
      expect(rule).toBeTruthy();
    });
  }

  it('lists show only the own tenant: profiles, rounds, reconciliation, audit, staff', async () => {
    const ops = (await send(aViewer, { method: 'GET', url: '/api/admin/operators' })).json().operators.map((o: { operatorId: string }) => o.operatorId);
    expect(ops.sort()).toEqual(['a-eur', 'a-usd']);
    const rounds = (await send(aViewer, { method: 'GET', url: '/api/admin/rounds' })).json().rounds.map((r: { operatorId: string }) => r.operatorId);
    expect(rounds).toEqual(['a-usd']);
    const rows = (await send(aViewer, { method: 'GET', url: '/api/admin/reconciliation' })).json().rows;
    expect(rows.length).toBeGreaterThan(0);
    expect(new Set(rows.map((r: { operatorId: string }) => r.operatorId))).toEqual(new Set(['a-usd']));
    const csv = (await send(aViewer, { method: 'GET', url: '/api/admin/reconciliation.csv' })).body;
    expect(csv).toContain('a-usd');
    expect(csv).not.toContain('b-usd');
    const staff = (await send(aViewer, { method: 'GET', url: '/api/admin/staff' })).json().staff.map((s: { email: string }) => s.email);
    expect(staff.sort()).toEqual(['admin@a.test', 'viewer@a.test']);
    const audit = (await send(aViewer, { method: 'GET', url: '/api/admin/audit' })).json().records;
    for (const r of audit) expect(r.tenantId).toBe('casino-a');
  });

  it('a round id of another tenant in the round search is simply not found', async () => {
    expect((await send(aViewer, { method: 'GET', url: `/api/admin/rounds?roundId=${roundB}` })).json().rounds).toEqual([]);
  });
});

describe('a viewer changes nothing', () => {
  for (const [route, { rule, own }] of Object.entries(RULES)) {
    if (rule.role !== 'admin' || !own) continue;
    it(`${route}: 403 FORBIDDEN for A's viewer on A's own data`, async () => {
      const res = await send(aViewer, own());
      expect(res.statusCode, res.body).toBe(403);
      expect(res.json().code).toBe('FORBIDDEN');
    });
  }
});

describe('the own tenant and the platform', () => {
  for (const [route, { rule, own }] of Object.entries(RULES)) {
    if (!own) continue;
    it(`${route}: A's ${rule.role === 'admin' ? 'admin' : 'viewer'} reaches A's own data`, async () => {
      const res = await send(rule.role === 'admin' ? aAdmin : aViewer, own());
      expect(res.statusCode, res.body).toBeLessThan(300);
    });
  }

  for (const [route, { other }] of Object.entries(RULES)) {
    if (!other || route.startsWith('DELETE') || route.startsWith('PATCH /api/admin/staff')) continue;
    it(`${route}: a platform admin (session and bearer token) reaches B's data`, async () => {
      for (const who of [platform, null]) {
        const req = other();
        const res = await send(
          who,
          req.method === 'POST' && req.url === '/api/admin/operators/b-usd'
            ? { ...req, url: `/api/admin/operators/b-${Math.random().toString(36).slice(2, 8)}` }
            : req.url === '/api/admin/staff' && req.method === 'POST'
              ? { ...req, payload: { email: `p-${Math.random()}@b.test`, role: 'viewer', tenantId: 'casino-b' } }
              : req,
        );
        expect(res.statusCode, `${route}: ${res.body}`).toBeLessThan(300);
      }
    });
  }

  it('casino staff cannot create a platform admin nor move a profile to another casino', async () => {
    expect((await send(aAdmin, { method: 'POST', url: '/api/admin/staff', payload: { email: 'root2@a.test', role: 'platform_admin' } })).statusCode).toBe(403);
    expect((await send(aAdmin, { method: 'PATCH', url: '/api/admin/operators/a-usd', payload: { tenantId: 'casino-b' } })).statusCode).toBe(403);
    expect((await send(aAdmin, { method: 'PUT', url: '/api/admin/operators/a-brand-new', payload: profile('casino-b') })).statusCode).toBe(403);
  });
});
