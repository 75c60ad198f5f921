/**
 * My bets (issue 12): GET /api/player/bets answers the rounds of the session's player only —
 * every game, across that player's sessions, newest first, paged — never another player's, and
 * never an unrevealed server seed; an open Mines round shows no mines.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, type TestApp } from '../helpers/app.js';

let t: TestApp;
const sessionOf = async (playerRef: string, launchMode = 'lobby') => {
  const launch = await t.app.inject({ method: 'POST', url: '/sandbox/launch', payload: { operatorId: 'demo-usd', playerRef, gameType: 'dice', launchMode } });
  const session = await t.app.inject({
    method: 'POST',
    url: '/api/sessions',
    payload: { operatorId: 'demo-usd', launchToken: launch.json().launchToken, launchMode },
  });
  return session.json().sessionId as string;
};
let k = 0;
const bet = (sessionId: string, gameType = 'dice') =>
  t.app.inject({
    method: 'POST',
    url: '/api/bets',
    payload: { sessionId, gameType, amount: 1, idempotencyKey: `pb-${++k}`, params: gameType === 'dice' ? { target: 50, direction: 'over' } : { target: 2 } },
  });
const list = (q: string) => t.app.inject({ method: 'GET', url: `/api/player/bets?${q}` });

beforeAll(async () => {
  t = await createTestApp();
});
afterAll(async () => t?.close());

describe('GET /api/player/bets', () => {
  it('lists only the session player’s rounds, across their sessions, newest first, and pages', async () => {
    const alice1 = await sessionOf('pb-alice');
    const alice2 = await sessionOf('pb-alice');
    const bob = await sessionOf('pb-bob');
    const ids: string[] = [];
    for (const [s, g] of [
      [alice1, 'dice'],
      [alice2, 'limbo'],
      [alice1, 'dice'],
    ] as const)
      ids.push((await bet(s, g)).json().roundId);
    const bobRound = (await bet(bob)).json().roundId;

    const res = await list(`sessionId=${alice2}`);
    expect(res.statusCode, res.body).toBe(200);
    const page = res.json();
    expect(page.bets.map((b: { roundId: string }) => b.roundId)).toEqual([...ids].reverse());
    expect(page.nextCursor).toBeNull();
    expect(res.body).not.toContain(bobRound);
    for (const b of page.bets) {
      expect(b.bet.playerRef).toBe('pb-alice');
      expect(b.fairness.serverSeed).toBeUndefined(); // the pair is not rotated yet
      expect(b.casinoCallbackAudit).toBeUndefined();
      expect(b.balance).toBeUndefined();
    }
    expect(page.bets[0].bet).toMatchObject({ gameType: 'dice', amount: 1, currency: 'USD' });

    const first = (await list(`sessionId=${alice1}&limit=2`)).json();
    expect(first.bets).toHaveLength(2);
    expect(first.nextCursor).toBe(first.bets[1].roundId);
    const second = (await list(`sessionId=${alice1}&limit=2&before=${first.nextCursor}`)).json();
    expect(second.bets.map((b: { roundId: string }) => b.roundId)).toEqual([ids[0]]);
    expect(second.nextCursor).toBeNull();
    // another player's round as a cursor finds nothing of theirs
    expect((await list(`sessionId=${alice1}&before=${bobRound}`)).json().bets).toEqual([]);
  });

  it('shows the server seed once rotated, and an open Mines round without its mines', async () => {
    const s = await sessionOf('pb-carol');
    const settled = (await bet(s)).json().roundId;
    const mines = await t.app.inject({
      method: 'POST',
      url: '/api/mines/rounds',
      payload: { sessionId: s, amount: 1, idempotencyKey: `pb-m-${++k}`, mineCount: 3 },
    });
    expect(mines.json().roundStatus).toBe('active');
    let bets = (await list(`sessionId=${s}`)).json().bets;
    expect(bets[0].roundStatus).toBe('active');
    expect(bets[0].result.mines).toBeUndefined();
    expect(bets[0].fairness.serverSeed).toBeUndefined();
    // settle the mines round (reveal until bust or cash out), then rotate
    let r = mines.json();
    for (let tile = 0; r.roundStatus === 'active' && tile < 25; tile++) {
      r = (
        await t.app.inject({ method: 'POST', url: `/api/mines/rounds/${r.roundId}/reveal`, payload: { sessionId: s, tile, idempotencyKey: `pb-r-${++k}` } })
      ).json();
      if (r.roundStatus === 'active')
        r = (
          await t.app.inject({ method: 'POST', url: `/api/mines/rounds/${r.roundId}/cashout`, payload: { sessionId: s, idempotencyKey: `pb-c-${++k}` } })
        ).json();
    }
    const rotate = await t.app.inject({ method: 'POST', url: '/api/fairness/rotate', payload: { sessionId: s } });
    expect(rotate.statusCode, rotate.body).toBe(200);
    bets = (await list(`sessionId=${s}`)).json().bets;
    const old = bets.find((b: { roundId: string }) => b.roundId === settled);
    expect(old.fairness.serverSeed).toBe(rotate.json().previousServerSeed);
    expect(bets[0].result.mines).toHaveLength(3);
  });

  it('refuses a missing, unknown or malformed query with 4xx codes', async () => {
    expect((await list('')).json().code).toBe('VALIDATION_ERROR');
    expect((await list('sessionId=nope')).json().code).toBe('INVALID_SESSION');
    const s = await sessionOf('pb-dave');
    for (const q of ['limit=0', 'limit=51', 'limit=x', `before=${'x'.repeat(201)}`]) {
      const res = await list(`sessionId=${s}&${q}`);
      expect(res.statusCode, q).toBe(400);
      expect(res.json().code).toBe('VALIDATION_ERROR');
    }
  });

  it('is in /openapi.json with its operationId and answer schema', async () => {
    const doc = (await t.app.inject({ method: 'GET', url: '/openapi.json' })).json();
    const op = doc.paths['/api/player/bets'].get;
    expect(op.operationId).toBe('listPlayerBets');
    expect(op.responses['200']).toBeDefined();
  });
});
