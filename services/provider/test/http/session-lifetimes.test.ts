/**
 * Player sessions end (issue 23, defect 4): after SESSION_IDLE_MINUTES without a request, after
 * SESSION_MAX_HOURS whatever the play, and when the casino ends them through the signed operator
 * API. An ended session answers INVALID_SESSION and moves no money; the player's open round
 * resumes in a new session, and a pending credit of a round of an ended session is still paid.
 */
import { setTimeout as sleep } from 'node:timers/promises';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, type TestApp } from '../helpers/app.js';
import { drainRetries, newKey, operatorSigned, rawJson, startWorld, type Player, type World } from '../helpers/casino.js';

const DICE = { target: 50, direction: 'over' };

let idle: World; // sessions end after 1.2 s without a request
let short: World; // sessions end 2.5 s after they began
let w: World; // the defaults (2 h idle, 24 h)
let pod2: TestApp; // a second pod of `w`
beforeAll(async () => {
  [idle, short, w] = await Promise.all([
    startWorld([{ operatorId: 'op-idle' }], { env: { SESSION_IDLE_MINUTES: '0.02' } }),
    startWorld([{ operatorId: 'op-short' }], { env: { SESSION_MAX_HOURS: String(2.5 / 3600) } }),
    startWorld([{ operatorId: 'op-end' }, { operatorId: 'op-other' }]),
  ]);
  pod2 = await createTestApp({ databaseUrl: w.t.config.databaseUrl! });
});
afterAll(async () => {
  await pod2?.close();
  await Promise.all([idle?.close(), short?.close(), w?.close()]);
});

const endSessions = (world: World, signer: string, body: Record<string, unknown>) => {
  const text = rawJson(body);
  return world.call('POST', '/api/sessions/end', text, operatorSigned(signer, 'POST', '/api/sessions/end', { body: text }));
};

describe('session lifetimes', () => {
  it('a session idle past SESSION_IDLE_MINUTES is INVALID_SESSION and moves nothing; play keeps it alive; a new session works', async () => {
    const p = await idle.player('idle-a');
    // a request every 0.4 s for 2 s: never idle for 1.2 s, so it lives on
    for (let i = 0; i < 5; i++) {
      expect((await idle.bet(p, 'dice', 1, DICE)).status).toBe(200);
      await sleep(400);
    }
    await sleep(1500);
    const key = newKey('late');
    const late = await idle.bet(p, 'dice', 1, DICE, key);
    expect(late.status).toBe(400);
    expect(late.body.code).toBe('INVALID_SESSION');
    expect(late.body.message).toMatch(/expired/);
    expect(idle.requestsOf(key)).toHaveLength(0);
    expect((await idle.call('GET', `/api/balance?sessionId=${p.sessionId}`)).body.code).toBe('INVALID_SESSION');
    // it stays ended, also after a while
    expect((await idle.bet(p, 'dice', 1, DICE)).body.code).toBe('INVALID_SESSION');
    const again = await idle.newSession(p);
    expect((await idle.bet(again, 'dice', 1, DICE)).status).toBe(200);
  });

  it('a session older than SESSION_MAX_HOURS is INVALID_SESSION even while the player plays', async () => {
    const p = await short.player('short-a');
    const codes: (string | number)[] = [];
    const started = Date.now();
    while (Date.now() - started < 3500) {
      const r = await short.bet(p, 'dice', 1, DICE);
      codes.push(r.status === 200 ? 200 : String(r.body.code));
      await sleep(300);
    }
    expect(codes[0]).toBe(200);
    expect(codes.at(-1)).toBe('INVALID_SESSION');
    // once refused, never accepted again
    const firstRefused = codes.indexOf('INVALID_SESSION');
    expect(codes.slice(firstRefused).every((c) => c === 'INVALID_SESSION')).toBe(true);
  });

  it("the casino ends a player's sessions (signed): every pod refuses them, another casino may not, and the open Mines round resumes in a new session", async () => {
    const p = await w.player('end-a', { operatorId: 'op-end' });
    const other = await w.player('end-b', { operatorId: 'op-end' });
    const start = await w.call('POST', '/api/mines/rounds', { sessionId: p.sessionId, amount: 1, mineCount: 1, idempotencyKey: newKey() });
    expect(start.status).toBe(200);
    const roundId = String(start.body.roundId);
    // another casino cannot end them; a request without a signature is refused
    expect((await endSessions(w, 'op-other', { operatorId: 'op-end', playerRef: 'end-a' })).status).toBe(403);
    expect((await w.call('POST', '/api/sessions/end', { operatorId: 'op-end', playerRef: 'end-a' })).status).toBe(401);
    expect((await endSessions(w, 'op-end', { operatorId: 'op-end' })).body.code).toBe('VALIDATION_ERROR');
    // pod 2 has served the session before (it holds it in memory)
    expect((await pod2.app.inject({ method: 'GET', url: `/api/mines/rounds/active?sessionId=${p.sessionId}` })).statusCode).toBe(200);

    const ended = await endSessions(w, 'op-end', { operatorId: 'op-end', playerRef: 'end-a', reason: 'self-exclusion' });
    expect(ended.status).toBe(200);
    expect(ended.body).toEqual({ ended: 1 });
    const reveal = await w.call('POST', `/api/mines/rounds/${roundId}/reveal`, { sessionId: p.sessionId, tile: 0, idempotencyKey: newKey() });
    expect(reveal.body.code).toBe('INVALID_SESSION');
    // every pod within its recheck (5 s)
    let onPod2 = 0;
    for (let i = 0; i < 30 && onPod2 !== 400; i++) {
      onPod2 = (await pod2.app.inject({ method: 'GET', url: `/api/mines/rounds/active?sessionId=${p.sessionId}` })).statusCode;
      if (onPod2 !== 400) await sleep(250);
    }
    expect(onPod2).toBe(400);
    // the other player of the casino plays on
    expect((await w.bet(other, 'dice', 1, DICE)).status).toBe(200);
    // ending again finds nothing open
    expect((await endSessions(w, 'op-end', { operatorId: 'op-end', playerRef: 'end-a' })).body).toEqual({ ended: 0 });
    // the stored end is final (a database rule)
    await expect(w.t.services.db('sessions').where({ session_id: p.sessionId }).update({ ended_at: null, ended_reason: null })).rejects.toThrow(
      /sessions_end_is_final/,
    );

    // a new session of the player sees the round and cashes it out (or busts): one credit either way
    const next = await w.newSession(p, { gameType: 'mines', launchMode: 'single' });
    const active = await w.call('GET', `/api/mines/rounds/active?sessionId=${next.sessionId}`);
    expect((active.body.round as { roundId: string }).roundId).toBe(roundId);
    let final: string | undefined;
    for (let tile = 0; tile < 25 && final === undefined; tile++) {
      const r = await w.call('POST', `/api/mines/rounds/${roundId}/reveal`, { sessionId: next.sessionId, tile, idempotencyKey: newKey() });
      expect(r.status).toBe(200);
      if (r.body.roundStatus !== 'active') final = String(r.body.roundStatus);
      else if (tile >= 1) {
        const c = await w.call('POST', `/api/mines/rounds/${roundId}/cashout`, { sessionId: next.sessionId, idempotencyKey: newKey() });
        final = String(c.body.roundStatus);
      }
    }
    expect(['cashed_out', 'busted']).toContain(final);
    expect(w.ledger(roundId).filter((tx) => tx.type === 'credit')).toHaveLength(1);
  });

  it("a credit left pending is paid after the round's session ended (the retry needs no live session)", async () => {
    const p: Player = await w.player('end-c', { operatorId: 'op-end' });
    w.casino.setFaults([{ path: '/wallet/credit', kind: 'status', status: 503, times: 2 }]);
    const bet = await w.bet(p, 'dice', 1, { target: 2, direction: 'over' });
    w.casino.clearFaults();
    expect(bet.body.roundStatus).toBe('credit_pending');
    expect((await endSessions(w, 'op-end', { operatorId: 'op-end', sessionId: p.sessionId })).body).toEqual({ ended: 1 });
    await drainRetries(w);
    expect((await w.dbRound(String(bet.body.roundId))).status).toBe('settled');
  });
});
