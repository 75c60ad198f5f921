/**
 * The embedded currency switch on the server (CONTRACT.md §14): `POST /api/sessions` with
 * `switchFromSessionId` refuses a target profile of another tenant with FORBIDDEN before any
 * casino call; a profile of the same casino gets a new session in the currency the casino
 * validated. Against a real HTTP casino and the real PostgreSQL. Also: the public configuration
 * answers `allowedEmbedOrigins` (CONTRACT.md §5).
 */
import { startReferenceCasino, type ReferenceCasino } from '@gp/reference-casino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { adminHeaders, createTestApp, type TestApp } from '../helpers/app.js';

const SECRET = 'casino-secret-for-switches-0123';
let t: TestApp;
let casino: ReferenceCasino;

const PROFILES = [
  { id: 'sw-usd', currency: 'USD', decimals: 2, tenantId: 'casino-a' },
  { id: 'sw-eur', currency: 'EUR', decimals: 2, tenantId: 'casino-a' },
  { id: 'sw-btc', currency: 'BTC', decimals: 8, tenantId: 'casino-b' },
  { id: 'sw-gbp', currency: 'GBP', decimals: 2, tenantId: null },
] as const;

beforeAll(async () => {
  casino = await startReferenceCasino({
    operators: Object.fromEntries(PROFILES.map((p) => [p.id, { secret: SECRET, currency: p.currency, decimals: p.decimals }])),
  });
  t = await createTestApp();
  for (const p of PROFILES) {
    const res = await t.app.inject({
      method: 'PUT',
      url: `/api/admin/operators/${p.id}`,
      headers: adminHeaders,
      payload: {
        currency: p.currency,
        callbackBaseUrl: casino.url,
        sharedSecret: SECRET,
        minBet: p.decimals === 8 ? 0.00000001 : 0.01,
        stakeStep: p.decimals === 8 ? 0.00000001 : 0.01,
        maxPayout: 1000,
        tenantId: p.tenantId,
        allowedEmbedOrigins: ['https://casino-a.example'],
      },
    });
    expect(res.statusCode, res.body).toBe(201);
  }
  casino.createPlayer({ playerRef: 'ann', balance: '50', currency: 'USD' });
  casino.createPlayer({ playerRef: 'ann', balance: '70.25', currency: 'EUR' });
  casino.createPlayer({ playerRef: 'ann', balance: '0.5', currency: 'BTC' });
  casino.createPlayer({ playerRef: 'ann', balance: '9', currency: 'GBP' });
});
afterAll(async () => {
  await t?.close();
  await casino?.close();
});

async function session(operatorId: string, extra: object = {}) {
  const launchToken = casino.issueLaunchToken('ann', { operatorId });
  return t.app.inject({ method: 'POST', url: '/api/sessions', payload: { operatorId, launchToken, gameType: 'dice', ...extra } });
}

const casinoCallsOf = (operatorId: string) => casino.requests().filter((r) => r.operatorId === operatorId).length;

describe('currency switch: POST /api/sessions with switchFromSessionId', () => {
  it('switches to a profile of the same tenant: a new session in the currency the casino validated', async () => {
    const from = (await session('sw-usd')).json();
    const res = await session('sw-eur', { switchFromSessionId: from.sessionId });
    expect(res.statusCode, res.body).toBe(200);
    expect(res.json()).toMatchObject({ operatorId: 'sw-eur', currency: 'EUR', balance: 70.25, playerRef: 'ann' });
    expect(res.json().sessionId).not.toBe(from.sessionId);
  });

  it('refuses a target profile of another tenant with FORBIDDEN before any casino call', async () => {
    const from = (await session('sw-usd')).json();
    const before = casinoCallsOf('sw-btc');
    const res = await session('sw-btc', { switchFromSessionId: from.sessionId });
    expect(res.statusCode).toBe(403);
    expect(res.json()).toMatchObject({ code: 'FORBIDDEN' });
    expect(casinoCallsOf('sw-btc')).toBe(before);
  });

  it('refuses a target profile without a tenant when the current profile has one', async () => {
    const from = (await session('sw-eur')).json();
    const before = casinoCallsOf('sw-gbp');
    const res = await session('sw-gbp', { switchFromSessionId: from.sessionId });
    expect(res.json()).toMatchObject({ code: 'FORBIDDEN' });
    expect(casinoCallsOf('sw-gbp')).toBe(before);
  });

  it('lets a profile without a tenant switch to any profile (the target casino validates the token)', async () => {
    const from = (await session('sw-gbp')).json();
    const res = await session('sw-btc', { switchFromSessionId: from.sessionId });
    expect(res.statusCode, res.body).toBe(200);
    expect(res.json()).toMatchObject({ currency: 'BTC', balance: 0.5 });
  });

  it('answers INVALID_SESSION for an unknown session to switch from, without a casino call', async () => {
    const before = casinoCallsOf('sw-eur');
    const res = await session('sw-eur', { switchFromSessionId: 'no-such-session' });
    expect(res.statusCode).toBe(400);
    expect(res.json().code).toBe('INVALID_SESSION');
    expect(casinoCallsOf('sw-eur')).toBe(before);
  });

  it('still validates the launch token with the target casino: a token of another profile is INVALID_SESSION', async () => {
    const from = (await session('sw-usd')).json();
    const usdToken = casino.issueLaunchToken('ann', { operatorId: 'sw-usd' });
    const res = await t.app.inject({
      method: 'POST',
      url: '/api/sessions',
      payload: { operatorId: 'sw-eur', launchToken: usdToken, switchFromSessionId: from.sessionId },
    });
    expect(res.json().code).toBe('INVALID_SESSION');
  });
});

describe('public configuration', () => {
  it('answers allowedEmbedOrigins (the page accepts window messages from these only) and never the secret or callback base', async () => {
    const res = await t.app.inject({ method: 'GET', url: '/api/operators/sw-usd/config' });
    expect(res.json()).toMatchObject({ operatorId: 'sw-usd', currency: 'USD', decimals: 2, allowedEmbedOrigins: ['https://casino-a.example'] });
    expect(res.body).not.toContain(SECRET);
    expect(res.body).not.toContain(casino.url);
  });
});
