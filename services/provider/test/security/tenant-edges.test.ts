/**
 * Issue 23 defect 5 (the provider's part but the balance rate limit): a disabled profile can no
 * longer use the signed operator API, and public URLs come from PUBLIC_BASE_URL, never from the
 * request's Host header (the catalogue is cached publicly; a forged Host would poison it).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { signedHeaders } from '../../src/wallet/signing.js';
import { loadConfig } from '../../src/config.js';
import { adminHeaders, createTestApp, type TestApp } from '../helpers/app.js';

const SECRET = 'edge-secret-0123456789abcdef';
const profile = {
  currency: 'USD',
  callbackBaseUrl: 'sandbox://demo-casino',
  sharedSecret: SECRET,
  minBet: 0.1,
  stakeStep: 0.01,
  maxPayout: 100,
  tenantId: 'casino-edge',
};

describe('a disabled profile and the signed operator API', () => {
  let t: TestApp;
  let roundId = '';
  beforeAll(async () => {
    t = await createTestApp();
    expect((await t.app.inject({ method: 'PUT', url: '/api/admin/operators/edge-usd', headers: adminHeaders, payload: profile })).statusCode).toBe(201);
    const launch = await t.app.inject({ method: 'POST', url: '/sandbox/launch', payload: { operatorId: 'edge-usd', playerRef: 'p1', gameType: 'dice' } });
    const session = await t.app.inject({ method: 'POST', url: '/api/sessions', payload: { operatorId: 'edge-usd', launchToken: launch.json().launchToken } });
    const bet = await t.app.inject({
      method: 'POST',
      url: '/api/bets',
      payload: { sessionId: session.json().sessionId, gameType: 'dice', amount: 1, idempotencyKey: 'edge-1', params: { target: 50.5, direction: 'over' } },
    });
    expect(bet.statusCode, bet.body).toBe(200);
    roundId = bet.json().roundId;
  });
  afterAll(async () => t?.close());

  const signed = (method: string, path: string, body = '', secret = SECRET) =>
    t.app.inject({
      method: method as 'GET',
      url: path,
      headers: { ...signedHeaders('edge-usd', secret, method, path, body, Date.now()), ...(body ? { 'content-type': 'application/json' } : {}) },
      ...(body ? { payload: body } : {}),
    });
  const calls = () => [
    signed('GET', '/api/reconciliation?operatorId=edge-usd&limit=5'),
    signed('GET', '/api/reconciliation/totals?operatorId=edge-usd'),
    signed('GET', `/api/bets/${roundId}`),
    signed('GET', '/api/free-bet-campaigns?operatorId=edge-usd'),
    signed(
      'POST',
      '/api/free-bet-campaigns',
      JSON.stringify({
        operatorId: 'edge-usd',
        name: 'x',
        gameType: 'dice',
        amount: 1,
        betsPerPlayer: 1,
        players: ['p1'],
        expiresAt: new Date(Date.now() + 3_600_000).toISOString(),
      }),
    ),
  ];
  const setEnabled = (enabled: boolean) => t.app.inject({ method: 'PATCH', url: '/api/admin/operators/edge-usd', headers: adminHeaders, payload: { enabled } });

  it('while enabled the signed routes answer; once disabled every one is 403 FORBIDDEN; enabled again they answer', async () => {
    for (const res of await Promise.all(calls().slice(0, 4))) expect(res.statusCode, res.body).toBe(200);
    expect((await setEnabled(false)).statusCode).toBe(200);
    for (const res of await Promise.all(calls())) {
      expect(res.statusCode, res.body).toBe(403);
      expect(res.json().code).toBe('FORBIDDEN');
      expect(res.json().message).toMatch(/disabled/);
    }
    expect((await setEnabled(true)).statusCode).toBe(200);
    for (const res of await Promise.all(calls().slice(0, 4))) expect(res.statusCode, res.body).toBe(200);
  });

  it('a wrong signature on a disabled profile is still SIGNATURE_INVALID (its state is told to the secret holder only)', async () => {
    expect((await setEnabled(false)).statusCode).toBe(200);
    const res = await signed('GET', '/api/reconciliation?operatorId=edge-usd&limit=5', '', 'not-the-secret-0123456789');
    expect(res.statusCode).toBe(401);
    expect(res.json().code).toBe('SIGNATURE_INVALID');
    expect((await setEnabled(true)).statusCode).toBe(200);
  });
});

describe('PUBLIC_BASE_URL, never the Host header', () => {
  it('is required in production, like SECRET_KEY, and must be an http(s) base without query, fragment or user info', () => {
    const key = 'b'.repeat(64);
    expect(() => loadConfig({ NODE_ENV: 'production', SECRET_KEY: key })).toThrow(/PUBLIC_BASE_URL: is required in production/);
    for (const bad of [
      'games.example.com',
      'ftp://games.example.com',
      'https://games.example.com?x=1',
      'https://games.example.com/#x',
      'https://u:p@games.example.com',
      'https://games example.com',
    ]) {
      expect(() => loadConfig({ NODE_ENV: 'production', SECRET_KEY: key, PUBLIC_BASE_URL: bad }), bad).toThrow(/PUBLIC_BASE_URL/);
    }
    expect(loadConfig({ NODE_ENV: 'production', SECRET_KEY: key, PUBLIC_BASE_URL: 'https://games.example.com/' }).publicBaseUrl).toBe(
      'https://games.example.com',
    );
    expect(loadConfig({ NODE_ENV: 'production', SECRET_KEY: key, PUBLIC_BASE_URL: 'https://cdn.example.com/games' }).publicBaseUrl).toBe(
      'https://cdn.example.com/games',
    );
    expect(loadConfig({ NODE_ENV: 'development' }).publicBaseUrl).toBeUndefined();
  });

  it('the catalogue and the sandbox launch use the configured base whatever Host says', async () => {
    const t = await createTestApp({ env: { PUBLIC_BASE_URL: 'https://games.example.com' } });
    try {
      const games = await t.app.inject({ method: 'GET', url: '/api/games?operatorId=demo-usd', headers: { host: 'evil.example' } });
      expect(games.statusCode).toBe(200);
      for (const g of games.json().games as { thumbnailUrl: string }[]) expect(new URL(g.thumbnailUrl).origin).toBe('https://games.example.com');
      const launch = await t.app.inject({
        method: 'POST',
        url: '/sandbox/launch',
        headers: { host: 'evil.example' },
        payload: { operatorId: 'demo-usd', playerRef: 'p', gameType: 'dice' },
      });
      expect(launch.json().launchUrl).toMatch(/^https:\/\/games\.example\.com\/game\.html\?/);
    } finally {
      await t.close();
    }
  });

  it('outside production without it: the listen address, not Host', async () => {
    const t = await createTestApp({ listen: true });
    try {
      const games = await t.app.inject({ method: 'GET', url: '/api/games?operatorId=demo-usd', headers: { host: 'evil.example' } });
      for (const g of games.json().games as { thumbnailUrl: string }[]) expect(new URL(g.thumbnailUrl).origin).toBe(new URL(t.url).origin);
      const launch = await t.app.inject({
        method: 'POST',
        url: '/sandbox/launch',
        headers: { host: 'evil.example', 'x-forwarded-host': 'evil.example' },
        payload: { operatorId: 'demo-usd', playerRef: 'p', gameType: 'dice' },
      });
      expect(new URL(launch.json().launchUrl).origin).toBe(new URL(t.url).origin);
    } finally {
      await t.close();
    }
  });
});
