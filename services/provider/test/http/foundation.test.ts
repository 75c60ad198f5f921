import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { adminHeaders, createTestApp, type TestApp } from '../helpers/app.js';

let t: TestApp;
beforeAll(async () => {
  t = await createTestApp();
});
afterAll(async () => t?.close());

describe('health and readiness', () => {
  it('GET /health reports the v1 currency contract', async () => {
    const res = await t.app.inject({ method: 'GET', url: '/health' });
    expect(res.statusCode).toBe(200);
    const body = res.json();
    expect(body.status).toBe('ok');
    expect(body.version).toBe('0.1.0');
    expect(body.currencyContract.version).toBe('v1');
    expect(body.currencyContract.currencies).toHaveLength(17);
    expect(body.currencyContract.currencies).toContainEqual({ code: 'XLM', decimals: 7 });
    expect(body.currencyContract.currencies).toContainEqual({ code: 'uBTC', decimals: 2 });
  });

  it('GET /ready checks the database, Redis and an operator', async () => {
    const ok = await t.app.inject({ method: 'GET', url: '/ready?operatorId=demo-usd' });
    expect(ok.statusCode).toBe(200);
    expect(ok.json()).toEqual({ ready: true, checks: { database: 'ok', redis: 'ok', operator: 'ok' } });
    const missing = await t.app.inject({ method: 'GET', url: '/ready?operatorId=nope' });
    expect(missing.statusCode).toBe(503);
    expect(missing.json()).toMatchObject({ code: 'NOT_READY', ready: false, checks: { operator: 'not found' } });
  });
});

describe('sandbox launch and sessions', () => {
  it('creates a session for the demo operator', async () => {
    const launch = await t.app.inject({ method: 'POST', url: '/sandbox/launch', payload: { operatorId: 'demo-usd', playerRef: 'alice', gameType: 'dice' } });
    expect(launch.statusCode).toBe(200);
    const { launchToken, launchUrl } = launch.json();
    expect(launchUrl).toContain('/game.html?operatorId=demo-usd&game=dice&token=');
    const session = await t.app.inject({ method: 'POST', url: '/api/sessions', payload: { operatorId: 'demo-usd', launchToken, gameType: 'dice' } });
    expect(session.statusCode).toBe(200);
    const s = session.json();
    expect(s).toMatchObject({ operatorId: 'demo-usd', playerRef: 'alice', currency: 'USD', balance: 1000, gameType: 'dice', launchMode: 'single' });
    expect(s.fairness.serverSeedHash).toMatch(/^[0-9a-f]{64}$/);
    expect(s.fairness.nonce).toBe(0);
    const bal = await t.app.inject({ method: 'GET', url: `/api/balance?sessionId=${s.sessionId}` });
    expect(bal.json()).toEqual({ balance: 1000, currency: 'USD' });
  });

  it('refuses a bad launch token and an unknown operator with INVALID_SESSION', async () => {
    const bad = await t.app.inject({ method: 'POST', url: '/api/sessions', payload: { operatorId: 'demo-usd', launchToken: 'nope' } });
    expect(bad.statusCode).toBe(400);
    expect(bad.json().code).toBe('INVALID_SESSION');
    const unknown = await t.app.inject({ method: 'POST', url: '/api/sessions', payload: { operatorId: 'nobody', launchToken: 'x' } });
    expect(unknown.json().code).toBe('INVALID_SESSION');
    const bal = await t.app.inject({ method: 'GET', url: '/api/balance?sessionId=nope' });
    expect(bal.json().code).toBe('INVALID_SESSION');
  });

  it('a lobby session has gameType null', async () => {
    const launch = await t.app.inject({
      method: 'POST',
      url: '/sandbox/launch',
      payload: { operatorId: 'demo-usd', playerRef: 'bob', gameType: 'dice', launchMode: 'lobby' },
    });
    expect(launch.json().launchUrl).toContain('mode=lobby');
    const session = await t.app.inject({
      method: 'POST',
      url: '/api/sessions',
      payload: { operatorId: 'demo-usd', launchToken: launch.json().launchToken, launchMode: 'lobby' },
    });
    expect(session.json()).toMatchObject({ gameType: null, launchMode: 'lobby' });
  });
});

describe('validation errors', () => {
  it.each([
    ['wrong type', { operatorId: 'demo-usd', launchToken: 5 }],
    ['missing field', { operatorId: 'demo-usd' }],
    ['unknown game', { operatorId: 'demo-usd', launchToken: 'x', gameType: 'poker' }],
  ])('%s is a 400 VALIDATION_ERROR', async (_name, payload) => {
    const res = await t.app.inject({ method: 'POST', url: '/api/sessions', payload });
    expect(res.statusCode).toBe(400);
    expect(res.json()).toMatchObject({ statusCode: 400, error: 'Bad Request', code: 'VALIDATION_ERROR' });
  });

  it('a body that is not JSON, not JSON-typed or too large is a VALIDATION_ERROR', async () => {
    const notJson = await t.app.inject({ method: 'POST', url: '/api/sessions', headers: { 'content-type': 'application/json' }, payload: '{"operatorId": ' });
    expect(notJson.json()).toMatchObject({ statusCode: 400, code: 'VALIDATION_ERROR' });
    const text = await t.app.inject({ method: 'POST', url: '/api/sessions', headers: { 'content-type': 'text/plain' }, payload: 'hello' });
    expect(text.json()).toMatchObject({ statusCode: 400, code: 'VALIDATION_ERROR' });
    const big = await t.app.inject({
      method: 'POST',
      url: '/api/sessions',
      headers: { 'content-type': 'application/json' },
      payload: JSON.stringify({ x: 'a'.repeat(70_000) }),
    });
    expect(big.json()).toMatchObject({ statusCode: 400, code: 'VALIDATION_ERROR' });
  });

  it('an unknown route is a 404 NOT_FOUND', async () => {
    const res = await t.app.inject({ method: 'GET', url: '/nope' });
    expect(res.statusCode).toBe(404);
    expect(res.json().code).toBe('NOT_FOUND');
  });
});

describe('embed origins of a profile (CONTRACT.md §14)', () => {
  it('are stored as the URL standard serialises them, and anything but an origin is refused', async () => {
    const base = {
      currency: 'USD',
      callbackBaseUrl: 'sandbox://demo-casino',
      sharedSecret: 'secret-0123456789abcdef',
      minBet: 0.1,
      stakeStep: 0.01,
      maxPayout: 100,
    };
    const ok = await t.app.inject({
      method: 'PUT',
      url: '/api/admin/operators/op-origins',
      headers: adminHeaders,
      payload: { ...base, allowedEmbedOrigins: ['HTTPS://Casino.Example:443', 'http://localhost:8080', 'https://casino.example'] },
    });
    expect(ok.statusCode, ok.body).toBe(201);
    expect(ok.json().allowedEmbedOrigins).toEqual(['https://casino.example', 'http://localhost:8080']);
    const injections = [
      'https://a.example;sandbox', // issue 23 defect 5a: pasted into the CSP header as another directive
      'https://a.example; script-src *',
      'https://a.example,https://b.example',
      'https://a.example https://b.example',
      ' https://a.example',
      'https://a.example\t',
      'https://a.example#x',
      'https://a.example:8443/',
      'https://a.exa$mple',
      'https://a.example%3Bsandbox',
      "https://a.example'",
      'https://[::1]',
      'https://a_b.example',
      'https://bücher.example',
      'https://a.example:99999',
      'https://:pw@a.example',
    ];
    for (const bad of [
      'https://casino.example/',
      'https://casino.example/path',
      'https://*.casino.example',
      '*',
      'ftp://casino.example',
      'https://user@casino.example',
      'casino.example',
      'https://casino.example?x=1',
      'null',
      ...injections,
    ]) {
      const res = await t.app.inject({
        method: 'PUT',
        url: '/api/admin/operators/op-origins',
        headers: adminHeaders,
        payload: { ...base, allowedEmbedOrigins: [bad] },
      });
      expect(res.statusCode, bad).toBe(400);
      expect(res.json().code).toBe('VALIDATION_ERROR');
      const patch = await t.app.inject({
        method: 'PATCH',
        url: '/api/admin/operators/op-origins',
        headers: adminHeaders,
        payload: { allowedEmbedOrigins: [bad] },
      });
      expect(patch.statusCode, bad).toBe(400);
      expect(patch.json().code).toBe('VALIDATION_ERROR');
    }
    const stored = await t.app.inject({ method: 'GET', url: '/api/admin/operators/op-origins', headers: adminHeaders });
    expect(stored.json().allowedEmbedOrigins).toEqual(['https://casino.example', 'http://localhost:8080']);
  });
});

describe('admin API', () => {
  const profile = {
    currency: 'USD',
    callbackBaseUrl: 'http://127.0.0.1:9/casino',
    sharedSecret: 'a-very-secret-operator-secret',
    minBet: 0.1,
    stakeStep: 0.01,
    maxPayout: 5000,
    enabledGames: ['dice', 'mines'],
  };

  it('refuses a missing or wrong token with 401 UNAUTHORIZED', async () => {
    const none = await t.app.inject({ method: 'GET', url: '/api/admin/operators' });
    expect(none.statusCode).toBe(401);
    expect(none.json().code).toBe('UNAUTHORIZED');
    const wrong = await t.app.inject({ method: 'GET', url: '/api/admin/operators', headers: { authorization: 'Bearer wrong' } });
    expect(wrong.json().code).toBe('UNAUTHORIZED');
  });

  it('creates an operator pointing at an http://127.0.0.1 casino, never returning the secret', async () => {
    const res = await t.app.inject({ method: 'PUT', url: '/api/admin/operators/casino-a-usd', headers: adminHeaders, payload: profile });
    expect(res.statusCode).toBe(201);
    const body = res.json();
    expect(body).toMatchObject({
      operatorId: 'casino-a-usd',
      currency: 'USD',
      decimals: 2,
      minBet: 0.1,
      stakeStep: 0.01,
      maxPayout: 5000,
      enabledGames: ['dice', 'mines'],
    });
    expect(JSON.stringify(body)).not.toContain(profile.sharedSecret);
    const again = await t.app.inject({ method: 'PUT', url: '/api/admin/operators/casino-a-usd', headers: adminHeaders, payload: profile });
    expect(again.statusCode).toBe(200);
    const list = await t.app.inject({ method: 'GET', url: '/api/admin/operators', headers: adminHeaders });
    expect(list.body).not.toContain(profile.sharedSecret);
    expect(list.json().operators.map((o: { operatorId: string }) => o.operatorId)).toContain('casino-a-usd');
    const pub = await t.app.inject({ method: 'GET', url: '/api/operators/casino-a-usd/config' });
    expect(pub.json()).toEqual({
      operatorId: 'casino-a-usd',
      currency: 'USD',
      decimals: 2,
      minBet: 0.1,
      maxBet: null,
      stakeStep: 0.01,
      maxPayout: 5000,
      enabledGames: ['dice', 'mines'],
      theme: { showBalanceInEmbed: true, autobetStopOnHidden: false },
      allowedEmbedOrigins: [],
      responsibleGaming: null,
    });
    const stored = await t.services.db('operators').where({ operator_id: 'casino-a-usd' }).first();
    expect(stored.secret_enc).not.toContain(profile.sharedSecret);
  });

  it('checks the profile', async () => {
    const put = (payload: object) => t.app.inject({ method: 'PUT', url: '/api/admin/operators/x', headers: adminHeaders, payload: { ...profile, ...payload } });
    expect((await put({ currency: 'XYZ' })).json().code).toBe('UNSUPPORTED_CURRENCY');
    expect((await put({ minBet: 0.105 })).json().code).toBe('VALIDATION_ERROR');
    expect((await put({ minBet: 0.15, stakeStep: 0.1 })).json().code).toBe('VALIDATION_ERROR');
    expect((await put({ callbackBaseUrl: 'ftp://x' })).json().code).toBe('VALIDATION_ERROR');
    expect((await put({ callbackBaseUrl: 'sandbox://demo-casino' })).statusCode).toBe(201);
  });
});

describe('openapi', () => {
  it('serves an OpenAPI 3.1 document generated from the schemas', async () => {
    const res = await t.app.inject({ method: 'GET', url: '/openapi.json' });
    const doc = res.json();
    expect(doc.openapi).toBe('3.1.0');
    expect(doc.info.version).toBe('0.1.0');
    const sessionBody = doc.paths['/api/sessions'].post.requestBody.content['application/json'].schema;
    expect(sessionBody.required).toEqual(['operatorId', 'launchToken']);
    const put = doc.paths['/api/admin/operators/{operatorId}'].put.requestBody.content['application/json'].schema;
    expect(put.properties.minBet.type).toBe('number');
  });
});

describe('logging of unexpected errors', () => {
  it('keeps only the SQLSTATE of a database error, never its message', async () => {
    const { loggableError } = await import('../../src/http/error-handler.js');
    const dbErr = Object.assign(new Error("insert into seed_pairs values ('secret-seed') - duplicate key"), { code: '23505', constraint: 'x' });
    expect(JSON.stringify(loggableError(dbErr))).not.toContain('secret-seed');
    expect(loggableError(dbErr)).toMatchObject({ code: '23505', constraint: 'x', message: 'database error' });
    expect(loggableError(new TypeError('boom'))).toMatchObject({ type: 'TypeError', message: 'boom' });
  });
});
