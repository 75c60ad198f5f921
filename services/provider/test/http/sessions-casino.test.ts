/** Sessions against a real HTTP casino (SPEC.md wallet rules 1–2, CONTRACT.md §5). */
import { startReferenceCasino, type ReferenceCasino } from '@gp/reference-casino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { adminHeaders, createTestApp, type TestApp } from '../helpers/app.js';

const SECRET = 'casino-secret-for-sessions-0123';
let t: TestApp;
let casino: ReferenceCasino;

beforeAll(async () => {
  casino = await startReferenceCasino({
    operators: { 'cas-doge': { secret: SECRET, currency: 'DOGE', decimals: 8 }, 'cas-usd': { secret: SECRET, currency: 'USD', decimals: 2 } },
  });
  t = await createTestApp();
  for (const [id, currency] of [
    ['cas-doge', 'DOGE'],
    ['cas-usd', 'USD'],
  ] as const) {
    const res = await t.app.inject({
      method: 'PUT',
      url: `/api/admin/operators/${id}`,
      headers: adminHeaders,
      payload: {
        currency,
        callbackBaseUrl: casino.url,
        sharedSecret: SECRET,
        minBet: 0.01,
        stakeStep: 0.01,
        maxPayout: 1000000,
        enabledGames: ['dice', 'limbo'],
      },
    });
    expect(res.statusCode).toBe(201);
  }
});
afterAll(async () => {
  await t?.close();
  await casino?.close();
});

const createSession = (operatorId: string, launchToken: string, extra: object = {}) =>
  t.app.inject({ method: 'POST', url: '/api/sessions', payload: { operatorId, launchToken, ...extra } });

describe('sessions on an HTTP casino', () => {
  it('validates the token, reads the balance exactly and signs every callback', async () => {
    casino.createPlayer({ playerRef: 'whale', displayName: 'Whale', balance: '123456789012345.12345678', currency: 'DOGE' });
    const token = casino.issueLaunchToken('whale', { operatorId: 'cas-doge' });
    const res = await createSession('cas-doge', token, { gameType: 'limbo' });
    expect(res.statusCode, res.body).toBe(200);
    expect(res.body).toContain('"balance":123456789012345.12345678');
    expect(res.json()).toMatchObject({
      operatorId: 'cas-doge',
      playerRef: 'whale',
      displayName: 'Whale',
      currency: 'DOGE',
      gameType: 'limbo',
      launchMode: 'single',
    });
    const bal = await t.app.inject({ method: 'GET', url: `/api/balance?sessionId=${res.json().sessionId}` });
    expect(bal.body).toBe('{"balance":123456789012345.12345678,"currency":"DOGE"}');
    const paths = casino
      .requests()
      .filter((r) => r.operatorId === 'cas-doge')
      .map((r) => [r.path, r.status]);
    expect(paths).toEqual([
      ['/wallet/validate-session', 200],
      ['/wallet/balance', 200],
      ['/wallet/balance', 200],
    ]);
  });

  it('refuses a session the casino validates in another supported currency: CURRENCY_MISMATCH', async () => {
    casino.createPlayer({ playerRef: 'eur-player', balance: '10', currency: 'USD' });
    const token = casino.issueLaunchToken('eur-player', { operatorId: 'cas-usd' });
    casino.setTokenCurrency(token, 'EUR');
    const res = await createSession('cas-usd', token);
    expect(res.statusCode).toBe(400);
    expect(res.json().code).toBe('CURRENCY_MISMATCH');
  });

  it('refuses an unsupported currency code: UNSUPPORTED_CURRENCY', async () => {
    casino.createPlayer({ playerRef: 'xyz-player', balance: '10', currency: 'USD' });
    const token = casino.issueLaunchToken('xyz-player', { operatorId: 'cas-usd' });
    casino.setTokenCurrency(token, 'XYZ');
    const res = await createSession('cas-usd', token);
    expect(res.json().code).toBe('UNSUPPORTED_CURRENCY');
  });

  it('answers INVALID_SESSION for a token the casino does not know', async () => {
    const res = await createSession('cas-usd', 'not-a-token');
    expect(res.statusCode).toBe(400);
    expect(res.json().code).toBe('INVALID_SESSION');
  });

  it('refuses a single-game launch of a disabled game: GAME_DISABLED', async () => {
    casino.createPlayer({ playerRef: 'p-disabled', balance: '10', currency: 'USD' });
    const token = casino.issueLaunchToken('p-disabled', { operatorId: 'cas-usd' });
    const res = await createSession('cas-usd', token, { gameType: 'mines' });
    expect(res.json().code).toBe('GAME_DISABLED');
  });

  it('maps an unreachable casino to CASINO_NETWORK_ERROR (502)', async () => {
    await t.app.inject({
      method: 'PUT',
      url: '/api/admin/operators/cas-down',
      headers: adminHeaders,
      payload: { currency: 'USD', callbackBaseUrl: 'http://127.0.0.1:9', sharedSecret: SECRET, minBet: 0.01, stakeStep: 0.01, maxPayout: 100 },
    });
    const res = await createSession('cas-down', 'whatever');
    expect(res.statusCode).toBe(502);
    expect(res.json().code).toBe('CASINO_NETWORK_ERROR');
  });
});

describe('production rules', () => {
  it('accepts only https:// (or the sandbox) as callback base', async () => {
    const prod = await createTestApp({ env: { NODE_ENV: 'production' } });
    try {
      const put = (callbackBaseUrl: string) =>
        prod.app.inject({
          method: 'PUT',
          url: '/api/admin/operators/prod-op',
          headers: adminHeaders,
          payload: { currency: 'USD', callbackBaseUrl, sharedSecret: SECRET, minBet: 0.01, stakeStep: 0.01, maxPayout: 100 },
        });
      expect((await put('http://casino.example')).json().code).toBe('VALIDATION_ERROR');
      expect((await put('https://casino.example/api')).statusCode).toBe(201);
      expect((await put('sandbox://demo-casino')).statusCode).toBe(200);
      const launch = await prod.app.inject({ method: 'POST', url: '/sandbox/launch', payload: { operatorId: 'prod-op', playerRef: 'x', gameType: 'dice' } });
      expect(launch.statusCode).toBe(403);
      const demo = await prod.app.inject({ method: 'GET', url: '/api/operators/demo-usd/config' });
      expect(demo.statusCode).toBe(404);
    } finally {
      await prod.close();
    }
  });
});
