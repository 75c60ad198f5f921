/**
 * Shared steps of the Blackjack tests: sessions, requests, scripted decks and seed searches.
 *
 * Scripted decks: the engine deals from 52 floats, so a test opens a real round through the API
 * and then writes, into its stored state, the state `startBlackjack` deals from scripted floats
 * (the test's hand behind the curtain; the money path and the rules then run as in production).
 * Openings the deal decides at once (naturals, the peek) are found instead by searching client
 * seeds against the player's committed server seed, read from the database.
 */
import { expect } from 'vitest';
import { floats } from '@gp/game-core/fairness';
import { startBlackjack, type BlackjackState } from '@gp/game-core/games';
import type { TestApp } from '../helpers/app.js';
import { CRON_SECRET } from '../helpers/app.js';
import { deck } from '@gp/game-core/games';

import { get, key, post, type Res } from '../helpers/requests.js';
export { get, key, post, type Res };

/** A demo-operator session of `playerRef` (single-game Blackjack launch). */
export async function demoSession(t: TestApp, playerRef: string): Promise<string> {
  const launch = await post(t, '/sandbox/launch', { operatorId: 'demo-usd', playerRef, gameType: 'blackjack' });
  expect(launch.statusCode, launch.body).toBe(200);
  const session = await post(t, '/api/sessions', { operatorId: 'demo-usd', launchToken: launch.json().launchToken, gameType: 'blackjack' });
  expect(session.statusCode, session.body).toBe(200);
  return session.json().sessionId as string;
}

export const start = (t: TestApp, sessionId: string, body: Record<string, unknown> = {}) =>
  post(t, '/api/blackjack/rounds', { sessionId, amount: 1, idempotencyKey: key('start'), ...body });

export const act = (t: TestApp, sessionId: string, roundId: string, action: string, idempotencyKey = key(action)) =>
  post(t, `/api/blackjack/rounds/${roundId}/${action}`, { sessionId, idempotencyKey });

export const insurance = (t: TestApp, sessionId: string, roundId: string, takeInsurance: boolean, idempotencyKey = key('ins')) =>
  post(t, `/api/blackjack/rounds/${roundId}/insurance`, { sessionId, idempotencyKey, takeInsurance });

export async function ok(res: Res | Promise<Res>) {
  const r = await res;
  expect(r.statusCode, r.body).toBe(200);
  return r.json();
}

export const cron = (t: TestApp, query = '') =>
  t.app.inject({ method: 'GET', url: `/api/cron/wallet-retries${query ? `?${query}` : ''}`, headers: { authorization: `Bearer ${CRON_SECRET}` } });

/** Starts rounds (amount 1.00 unless told) until one is active (an opening the deal decides settles at once). */
export async function startActive(t: TestApp, sessionId: string, body: Record<string, unknown> = {}) {
  for (let i = 0; i < 30; i++) {
    const round = await ok(start(t, sessionId, body));
    if (round.roundStatus === 'active') return round;
  }
  throw new Error('no active round in 30 starts');
}

/** Replaces the stored state of an active round with the one dealt from `cards` (p0, p1, up, hole, draws...). */
export async function script(t: TestApp, roundId: string, cards: string[], filler = '2D'): Promise<BlackjackState> {
  const row = await t.services.db('rounds').where({ round_id: roundId }).first();
  expect(row.status).toBe('active');
  const state = startBlackjack(deck(cards, filler), BigInt(String(row.amount)));
  await t.services
    .db('rounds')
    .where({ round_id: roundId })
    .update({ state: JSON.stringify(state) });
  return state;
}

/** Opens an active round and scripts its deck. */
export async function scripted(t: TestApp, sessionId: string, cards: string[], filler = '2D'): Promise<string> {
  const round = await startActive(t, sessionId);
  await script(t, round.roundId, cards, filler);
  return round.roundId as string;
}

/** A client seed whose deal, under the player's committed server seed and next nonce, satisfies `wanted`. */
export async function clientSeedFor(
  t: TestApp,
  operatorId: string,
  playerRef: string,
  betMinor: bigint,
  wanted: (s: BlackjackState) => boolean,
): Promise<string> {
  const pair = await t.services.db('seed_pairs').where({ operator_id: operatorId, player_ref: playerRef, revealed: false }).first();
  expect(pair).toBeTruthy();
  for (let i = 0; i < 200_000; i++) {
    const clientSeed = `search-${i}`;
    if (wanted(startBlackjack(floats(pair.server_seed, clientSeed, BigInt(String(pair.next_nonce)), 52), betMinor))) return clientSeed;
  }
  throw new Error('no client seed found');
}

/** The player of a session (operator, playerRef). */
export async function playerOf(t: TestApp, sessionId: string): Promise<{ operatorId: string; playerRef: string }> {
  const row = await t.services.db('sessions').where({ session_id: sessionId }).first();
  return { operatorId: row.operator_id, playerRef: row.player_ref };
}

/** The wallet callbacks of a round as (path, key, amount in minor units, status). */
export async function callbacks(t: TestApp, roundId: string) {
  const rows = await t.services.db('wallet_callbacks').where({ round_id: roundId }).orderBy('id');
  return rows.map((r: { operation: string; idempotency_key: string; amount: string; callback_status: string }) => ({
    operation: r.operation,
    key: r.idempotency_key.slice(roundId.length),
    amount: Number(r.amount),
    status: r.callback_status,
  }));
}

/** The demo casino's applied transactions of a round (minor units). */
export async function demoLedger(t: TestApp, roundId: string) {
  const rows = await t.services.db('demo_wallet_transactions').where({ round_id: roundId, status_code: 200 }).orderBy('id');
  return rows.map((r: { operation: string; idempotency_key: string; amount: string }) => ({
    operation: r.operation,
    key: r.idempotency_key.slice(roundId.length),
    amount: Number(r.amount),
  }));
}
