/** Shared steps of the Mines tests: sessions, requests, and a peek at the hidden mines (from the database). */
import type { ReferenceCasino } from '@gp/reference-casino';
import { expect } from 'vitest';
import { adminHeaders, CRON_SECRET, type TestApp } from '../helpers/app.js';

import { get, key, post, type Res } from '../helpers/requests.js';
export { get, key, post, type Res };

/** A demo-operator session of `playerRef` (single-game Mines launch unless told otherwise). */
export async function demoSession(t: TestApp, playerRef: string, gameType = 'mines'): Promise<string> {
  const launch = await post(t, '/sandbox/launch', { operatorId: 'demo-usd', playerRef, gameType });
  expect(launch.statusCode, launch.body).toBe(200);
  const session = await post(t, '/api/sessions', { operatorId: 'demo-usd', launchToken: launch.json().launchToken, gameType });
  expect(session.statusCode, session.body).toBe(200);
  return session.json().sessionId as string;
}

/** Creates (or replaces) an operator profile that calls the reference casino over HTTP. */
export async function casinoOperator(t: TestApp, casino: ReferenceCasino, operatorId: string, secret: string, limits: { maxPayout: number }): Promise<void> {
  const res = await t.app.inject({
    method: 'PUT',
    url: `/api/admin/operators/${operatorId}`,
    headers: adminHeaders,
    payload: { currency: 'USD', callbackBaseUrl: casino.url, sharedSecret: secret, minBet: 0.01, stakeStep: 0.01, maxPayout: limits.maxPayout },
  });
  expect([200, 201], res.body).toContain(res.statusCode);
}

/** A session of a casino player (created with 100.00 USD when new). */
export async function casinoSession(t: TestApp, casino: ReferenceCasino, operatorId: string, playerRef: string): Promise<string> {
  try {
    casino.balanceOf(playerRef, 'USD');
  } catch {
    casino.createPlayer({ playerRef, balance: '100.00', currency: 'USD' });
  }
  const launchToken = casino.issueLaunchToken(playerRef);
  const session = await post(t, '/api/sessions', { operatorId, launchToken, gameType: 'mines' });
  expect(session.statusCode, session.body).toBe(200);
  return session.json().sessionId as string;
}

export async function start(t: TestApp, sessionId: string, body: Record<string, unknown> = {}): Promise<Res> {
  return post(t, '/api/mines/rounds', { sessionId, amount: 1, idempotencyKey: key('start'), ...body });
}

export async function startOk(t: TestApp, sessionId: string, body: Record<string, unknown> = {}) {
  const res = await start(t, sessionId, body);
  expect(res.statusCode, res.body).toBe(200);
  return res.json();
}

export async function reveal(t: TestApp, sessionId: string, roundId: string, tile: number, idempotencyKey = key('reveal')): Promise<Res> {
  return post(t, `/api/mines/rounds/${roundId}/reveal`, { sessionId, tile, idempotencyKey });
}

export async function cashout(t: TestApp, sessionId: string, roundId: string, idempotencyKey = key('cashout')): Promise<Res> {
  return post(t, `/api/mines/rounds/${roundId}/cashout`, { sessionId, idempotencyKey });
}

export async function cron(t: TestApp, operatorId: string): Promise<Res> {
  return t.app.inject({ method: 'GET', url: `/api/cron/wallet-retries?operatorId=${operatorId}`, headers: { authorization: `Bearer ${CRON_SECRET}` } });
}

/** The hidden mines of a round, read from its stored state (the test's peek behind the curtain). */
export async function minesOf(t: TestApp, roundId: string): Promise<number[]> {
  const row = await t.services.db('rounds').where({ round_id: roundId }).first('state');
  const state = typeof row.state === 'string' ? JSON.parse(row.state) : row.state;
  return state.mines as number[];
}

export async function safeTilesOf(t: TestApp, roundId: string): Promise<number[]> {
  const mines = await minesOf(t, roundId);
  return Array.from({ length: 25 }, (_, i) => i).filter((i) => !mines.includes(i));
}

export async function statusOf(t: TestApp, roundId: string): Promise<string> {
  const row = await t.services.db('rounds').where({ round_id: roundId }).first('status');
  return row.status as string;
}

/** The wallet callbacks the service recorded for a round, as `operation:amount`. */
export async function callbacksOf(t: TestApp, roundId: string): Promise<string[]> {
  const rows: { operation: string; amount: string | number }[] = await t.services.db('wallet_callbacks').where({ round_id: roundId }).orderBy('id');
  return rows.map((r) => `${r.operation}:${String(r.amount).replace(/\.0+$/, '')}`);
}
