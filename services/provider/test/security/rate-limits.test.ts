/**
 * Rate limits (issue 15 item 8): per session on bet and action routes, per IP on session
 * creation, sandbox launch and verify; 429 RATE_LIMITED in the error envelope with Retry-After;
 * the counters live in Redis, so two app instances (two pods) share them; a route takes a policy
 * by its config (`rateLimitPolicy`).
 */
import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { buildApp } from '../../src/app.js';
import { createTestApp, type TestApp } from '../helpers/app.js';
import { newKey, startWorld, type Player, type World } from '../helpers/casino.js';

const LIMITS = { RATE_LIMIT_SESSION_PER_MIN: '3', RATE_LIMIT_IP_PER_MIN: '4', RATE_LIMIT_LOGIN_PER_MIN: '2' };
const prefix = `gp-test-rl:${randomBytes(4).toString('hex')}:`;

let w: World;
let second: TestApp;
let balancePlayer: Player;
beforeAll(async () => {
  w = await startWorld([{ operatorId: 'op-rl' }], { env: LIMITS, redisKeyPrefix: prefix });
  // from an address of its own: the session-creation budget of 127.0.0.1 belongs to the tests below
  w.casino.createPlayer({ playerRef: 'rl-bal', displayName: 'Balance', balance: '1000', currency: 'USD' });
  const launchToken = w.casino.issueLaunchToken('rl-bal', { operatorId: 'op-rl' });
  const s = await w.t.app.inject({
    method: 'POST',
    url: '/api/sessions',
    remoteAddress: '192.0.2.50',
    payload: { operatorId: 'op-rl', launchToken, gameType: 'dice' },
  });
  balancePlayer = { playerRef: 'rl-bal', operatorId: 'op-rl', currency: 'USD', sessionId: String(s.json().sessionId), launchToken };
  // a second pod on the same database and Redis
  second = await createTestApp({ env: LIMITS, redisKeyPrefix: prefix, databaseUrl: w.t.config.databaseUrl! });
});
afterAll(async () => {
  await second?.close();
  await w?.close();
});

// The client's address as the socket gives it: no proxy is trusted by default (issue 23), so a header could not set it.
const fromIp = (ip: string) => ({ remoteAddress: ip });

describe('rate limits', () => {
  it('per session on bets: the 4th bet of a session in a minute is 429 RATE_LIMITED with Retry-After; another session is not affected', async () => {
    const a = await w.player('rl-a');
    const b = await w.player('rl-b');
    for (let i = 0; i < 3; i++) expect((await w.bet(a, 'dice', 1, { target: 50, direction: 'over' })).status).toBe(200);
    const res = await w.t.app.inject({
      method: 'POST',
      url: '/api/bets',
      headers: { 'content-type': 'application/json' },
      payload: { sessionId: a.sessionId, gameType: 'dice', amount: 1, params: { target: 50, direction: 'over' }, idempotencyKey: newKey() },
    });
    expect(res.statusCode).toBe(429);
    expect(res.json()).toMatchObject({ statusCode: 429, error: 'Too Many Requests', code: 'RATE_LIMITED' });
    expect(Number(res.headers['retry-after'])).toBeGreaterThan(0);
    expect(Number(res.headers['retry-after'])).toBeLessThanOrEqual(60);
    // the refused bet moved no money: the player's casino balance shows three bets
    expect(w.ledger('').length).toBe(0);
    expect((await w.t.services.db('rounds').where({ player_ref: 'rl-a' }).count<{ n: string }[]>({ n: '*' }))[0]!.n).toBe('3');
    expect((await w.bet(b, 'dice', 1, { target: 50, direction: 'over' })).status).toBe(200);
  });

  it('shares the counters between pods (Redis): a session limited on one instance is limited on the other', async () => {
    const c = await w.player('rl-c');
    for (let i = 0; i < 3; i++) expect((await w.bet(c, 'dice', 1, { target: 50, direction: 'over' })).status).toBe(200);
    const res = await second.app.inject({
      method: 'POST',
      url: '/api/bets',
      headers: { 'content-type': 'application/json' },
      payload: { sessionId: c.sessionId, gameType: 'dice', amount: 1, params: { target: 50, direction: 'over' }, idempotencyKey: newKey() },
    });
    expect(res.statusCode).toBe(429);
    expect(res.json().code).toBe('RATE_LIMITED');
  });

  it('per session on round actions (Mines reveal)', async () => {
    const p = await w.player('rl-m', { gameType: 'mines' });
    const start = await w.call('POST', '/api/mines/rounds', { sessionId: p.sessionId, amount: 1, mineCount: 1, idempotencyKey: newKey() });
    expect(start.status).toBe(200);
    const codes: number[] = [];
    for (let tile = 0; tile < 4; tile++) {
      const r = await w.call('POST', `/api/mines/rounds/${start.body.roundId}/reveal`, { sessionId: p.sessionId, tile, idempotencyKey: newKey() });
      codes.push(r.status);
    }
    // 3 reveals allowed (a mine may end the round early: ROUND_NOT_ACTIVE 400), the 4th refused
    expect(codes.slice(0, 3).every((s) => s === 200 || s === 400)).toBe(true);
    expect(codes[3]).toBe(429);
  });

  it('per IP on session creation, sandbox launch and verify, each route its own budget, on either pod', async () => {
    const ip = '203.0.113.7';
    const launch = { operatorId: 'demo-usd', playerRef: 'rl-ip', gameType: 'dice' };
    const codes: number[] = [];
    for (let i = 0; i < 5; i++) {
      const app = i % 2 === 0 ? w.t.app : second.app;
      codes.push((await app.inject({ method: 'POST', url: '/sandbox/launch', ...fromIp(ip), payload: launch })).statusCode);
    }
    expect(codes).toEqual([200, 200, 200, 200, 429]);
    // another IP is not limited
    expect((await w.t.app.inject({ method: 'POST', url: '/sandbox/launch', ...fromIp('203.0.113.8'), payload: launch })).statusCode).toBe(200);
    // the same IP on another route still has its budget there
    const verify = { gameType: 'dice', serverSeed: 'a'.repeat(64), clientSeed: 'c', nonce: 0, params: { target: 50, direction: 'over' } };
    const verifyCodes: number[] = [];
    for (let i = 0; i < 5; i++) verifyCodes.push((await w.t.app.inject({ method: 'POST', url: '/api/verify', ...fromIp(ip), payload: verify })).statusCode);
    expect(verifyCodes.slice(0, 4).every((s) => s !== 429)).toBe(true);
    expect(verifyCodes[4]).toBe(429);
    const sessions: number[] = [];
    for (let i = 0; i < 5; i++) {
      sessions.push(
        (
          await w.t.app.inject({
            method: 'POST',
            url: '/api/sessions',
            ...fromIp(ip),
            payload: { operatorId: 'op-rl', launchToken: 'unknown-token', gameType: 'dice' },
          })
        ).statusCode,
      );
    }
    expect(sessions.slice(0, 4).every((s) => s === 400)).toBe(true);
    expect(sessions[4]).toBe(429);
  });

  it('a route takes the login limit by its config (the staff login of the admin console uses it)', async () => {
    // the app as a route module would extend it: the route declared before the app is ready
    const { app } = await buildApp({ ...w.t.config, redisKeyPrefix: `${prefix}login:` }, { logger: false });
    try {
      app.post(
        '/api/admin/test-login',
        { config: { auth: 'public', rateLimitPolicy: 'login' }, schema: { operationId: 'testLogin', response: { 200: z.object({ ok: z.boolean() }) } } },
        async () => ({ ok: true }),
      );
      await app.ready();
      const codes: number[] = [];
      for (let i = 0; i < 3; i++) codes.push((await app.inject({ method: 'POST', url: '/api/admin/test-login', ...fromIp('198.51.100.1') })).statusCode);
      expect(codes).toEqual([200, 200, 429]);
      // the console's real sign-in route carries the same policy (per IP, before the CSRF and password checks)
      const login: number[] = [];
      for (let i = 0; i < 3; i++)
        login.push(
          (
            await app.inject({
              method: 'POST',
              url: '/api/admin/auth/login',
              ...fromIp('198.51.100.2'),
              payload: { email: 'x@y.test', password: 'wrong password' },
            })
          ).statusCode,
        );
      expect(login.slice(0, 2).every((c) => c !== 429)).toBe(true);
      expect(login[2]).toBe(429);
    } finally {
      await app.close();
    }
  });

  it('a client cannot pick its own per-IP key with X-Forwarded-For: by default no proxy is trusted, even on a private network (issue 23)', async () => {
    const launch = { operatorId: 'demo-usd', playerRef: 'rl-xff', gameType: 'dice' };
    const codes: number[] = [];
    for (let i = 0; i < 5; i++) {
      // a peer on a private network rotating the header, as a pod beside ours could
      codes.push(
        (
          await w.t.app.inject({
            method: 'POST',
            url: '/sandbox/launch',
            remoteAddress: '10.1.2.3',
            headers: { 'x-forwarded-for': `198.18.0.${i + 1}` },
            payload: launch,
          })
        ).statusCode,
      );
    }
    expect(codes).toEqual([200, 200, 200, 200, 429]);
    // and the IP a request is known by (audit lines, limits) is the peer's
    let seen = '';
    const { app } = await buildApp({ ...w.t.config, redisKeyPrefix: `${prefix}ip:` }, { logger: false });
    try {
      app.get(
        '/api/test-ip',
        { config: { auth: 'public' }, schema: { operationId: 'testIp', response: { 200: z.object({ ip: z.string() }) } } },
        async (request) => ({ ip: (seen = request.ip) }),
      );
      await app.ready();
      await app.inject({ method: 'GET', url: '/api/test-ip', remoteAddress: '127.0.0.1', headers: { 'x-forwarded-for': '203.0.113.99' } });
      expect(seen).toBe('127.0.0.1');
    } finally {
      await app.close();
    }
    // a deployment that names its one proxy hop (the chart's TRUST_PROXY=1) gets the client's address from it
    const { app: proxied } = await buildApp({ ...w.t.config, trustProxy: 1, redisKeyPrefix: `${prefix}ip2:` }, { logger: false });
    try {
      proxied.get(
        '/api/test-ip',
        { config: { auth: 'public' }, schema: { operationId: 'testIp', response: { 200: z.object({ ip: z.string() }) } } },
        async (request) => ({ ip: (seen = request.ip) }),
      );
      await proxied.ready();
      await proxied.inject({ method: 'GET', url: '/api/test-ip', remoteAddress: '10.0.0.2', headers: { 'x-forwarded-for': '203.0.113.99' } });
      expect(seen).toBe('203.0.113.99');
    } finally {
      await proxied.close();
    }
  });

  it('per session on GET /api/balance: each read is a signed casino call, so a flood stops at the limit (issue 23)', async () => {
    const d = balancePlayer;
    const before = w.casino.requests().filter((r) => r.path === '/wallet/balance').length;
    const codes: number[] = [];
    for (let i = 0; i < 5; i++) codes.push((await w.t.app.inject({ method: 'GET', url: `/api/balance?sessionId=${d.sessionId}` })).statusCode);
    expect(codes).toEqual([200, 200, 200, 429, 429]);
    expect(w.casino.requests().filter((r) => r.path === '/wallet/balance').length - before).toBe(3);
  });
});
