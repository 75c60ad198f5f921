/** Seed pairs, rotation and verification over HTTP (CONTRACT.md §9, §12). */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { hashServerSeed } from '@gp/game-core/fairness';
import { createTestApp, type TestApp } from '../helpers/app.js';

let t: TestApp;
const bodies: string[] = [];

async function demoSession(playerRef: string, launchMode: 'single' | 'lobby' = 'lobby') {
  const launch = await t.app.inject({ method: 'POST', url: '/sandbox/launch', payload: { operatorId: 'demo-usd', playerRef, gameType: 'dice', launchMode } });
  const res = await t.app.inject({
    method: 'POST',
    url: '/api/sessions',
    payload: { operatorId: 'demo-usd', launchToken: launch.json().launchToken, launchMode },
  });
  bodies.push(res.body);
  return res.json();
}

const bet = async (sessionId: string, gameType: string, params: object, key: string, extra: object = {}) => {
  const res = await t.app.inject({ method: 'POST', url: '/api/bets', payload: { sessionId, gameType, amount: 1, idempotencyKey: key, params, ...extra } });
  bodies.push(res.body);
  return res;
};

beforeAll(async () => {
  t = await createTestApp();
});
afterAll(async () => t?.close());

describe('seed pairs', () => {
  it('nonces count every bet of the pair and never repeat, even for concurrent bets', async () => {
    const s = await demoSession('nonce-player');
    const results = await Promise.all(Array.from({ length: 12 }, (_, i) => bet(s.sessionId, 'limbo', { target: 2 }, `n-${i}`)));
    const nonces = results.map((r) => r.json().fairness.nonce).sort((a: number, b: number) => a - b);
    expect(nonces).toEqual(Array.from({ length: 12 }, (_, i) => i));
  });

  it('a bet with clientSeed uses it and it becomes the pair client seed', async () => {
    const s = await demoSession('seed-player');
    const r = await bet(s.sessionId, 'dice', { target: 50, direction: 'under' }, 'c1', { clientSeed: 'my lucky seed' });
    expect(r.json().fairness.clientSeed).toBe('my lucky seed');
    const again = await demoSession('seed-player');
    expect(again.fairness).toMatchObject({ clientSeed: 'my lucky seed', nonce: 1, serverSeedHash: s.fairness.serverSeedHash });
  });

  it('rotation reveals the seed, commits a new one, and every bet verifies', async () => {
    const s = await demoSession('verify-player');
    const games: [string, object][] = [
      ['dice', { target: 40.5, direction: 'over' }],
      ['limbo', { target: 1.5 }],
      ['plinko', { rows: 12, risk: 'medium' }],
      ['keno', { picks: [3, 7, 11, 19, 23, 40], risk: 'high' }],
    ];
    const placed = [];
    for (const [i, [gameType, params]] of games.entries()) placed.push((await bet(s.sessionId, gameType, params, `v-${i}`)).json());
    const before = await t.app.inject({ method: 'GET', url: `/api/bets/${placed[0].roundId}` });
    expect(before.json().fairness.serverSeed).toBeUndefined();

    const rot = await t.app.inject({ method: 'POST', url: '/api/fairness/rotate', payload: { sessionId: s.sessionId, clientSeed: 'next-seed' } });
    expect(rot.statusCode).toBe(200);
    const r = rot.json();
    expect(r.previousServerSeedHash).toBe(s.fairness.serverSeedHash);
    expect(hashServerSeed(r.previousServerSeed)).toBe(r.previousServerSeedHash);
    expect(r).toMatchObject({ previousNonce: 4, nonce: 0, clientSeed: 'next-seed' });
    expect(r.serverSeedHash).not.toBe(r.previousServerSeedHash);

    // No answer before the rotation carried the seed.
    for (const body of bodies) expect(body).not.toContain(r.previousServerSeed);

    for (const p of placed) {
      const stored = (await t.app.inject({ method: 'GET', url: `/api/bets/${p.roundId}` })).json();
      expect(stored.fairness.serverSeed).toBe(r.previousServerSeed);
      const v = await t.app.inject({
        method: 'POST',
        url: '/api/verify',
        payload: {
          gameType: p.bet.gameType,
          serverSeed: r.previousServerSeed,
          serverSeedHash: r.previousServerSeedHash,
          clientSeed: p.fairness.clientSeed,
          nonce: p.fairness.nonce,
          amount: 1,
          params: p.bet.params,
        },
      });
      expect(v.statusCode, v.body).toBe(200);
      expect(v.json()).toMatchObject({ gameType: p.bet.gameType, result: p.result, multiplier: p.bet.multiplier, payout: p.bet.payout, won: p.bet.won });
    }
  });
});

describe('POST /api/verify', () => {
  const check = {
    serverSeed: '18e93f4a7b5b58d2569765766d1b6c3296bbd8430d6f20249044d72f14720159',
    serverSeedHash: hashServerSeed('18e93f4a7b5b58d2569765766d1b6c3296bbd8430d6f20249044d72f14720159'),
    clientSeed: 'bb62964774',
    nonce: 1,
    amount: 1,
  };
  const verify = (payload: object) => t.app.inject({ method: 'POST', url: '/api/verify', payload: { ...check, ...payload } });

  it('reproduces the check value of CONTRACT.md §9', async () => {
    expect((await verify({ gameType: 'dice', params: { target: 50, direction: 'over' } })).json().result.roll).toBe(77.18);
    expect((await verify({ gameType: 'limbo', params: { target: 1.2 } })).json()).toMatchObject({
      result: { result: 1.28 },
      multiplier: 1.2,
      payout: 1.2,
      won: true,
    });
  });

  it('answers every game', async () => {
    for (const [gameType, params] of [
      ['plinko', {}],
      ['keno', { picks: [1, 2, 3] }],
      ['mines', { mineCount: 3, revealed: [] }],
      ['blackjack', {}],
    ] as const) {
      const res = await verify({ gameType, params });
      expect(res.statusCode, `${gameType}: ${res.body}`).toBe(200);
      expect(res.json().gameType).toBe(gameType);
    }
    expect((await verify({ gameType: 'blackjack' })).json().result.cards).toHaveLength(52);
    expect((await verify({ gameType: 'mines', params: { mineCount: 5 } })).json().result.mines).toHaveLength(5);
  });

  it('refuses wrong inputs with their codes', async () => {
    expect((await verify({ gameType: 'dice', params: { target: 50, direction: 'over' }, serverSeedHash: 'ab'.repeat(32) })).json().code).toBe(
      'VALIDATION_ERROR',
    );
    expect((await verify({ gameType: 'dice', params: { target: 50, direction: 'over' }, currency: 'XYZ' })).json().code).toBe('UNSUPPORTED_CURRENCY');
    expect((await verify({ gameType: 'dice', params: { target: 99, direction: 'over' } })).json().code).toBe('INVALID_GAME_PARAMS');
    expect((await verify({ gameType: 'keno', params: { picks: [1, 1] } })).json().code).toBe('VALIDATION_ERROR');
    expect((await verify({ gameType: 'poker' })).json().code).toBe('VALIDATION_ERROR');
    expect((await verify({ gameType: 'dice', params: { target: 50, direction: 'over' }, nonce: '1' })).json().code).toBe('VALIDATION_ERROR');
    expect((await verify({ gameType: 'blackjack', params: { actions: ['split', 'split'] } })).json().code).toBe('VALIDATION_ERROR');
  });
});
