/**
 * The `big` bench scenario's load (issue 25, big-tables.ts) keeps up with the schema: a few
 * thousand settled rounds land with their callbacks and idempotency records, oldest first, in the
 * history partition (not in the month a bet writes), and the provider serves them like its own:
 * the public round view of a loaded round answers with its callback audit, and a bet after the
 * load settles. A migration that changes a hot table breaks this test, not a 40-minute bench run.
 */
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BENCH_OPERATOR } from '../src/bench.js';
import { loadSettledRounds } from '../src/big-tables.js';
import { closePools, request } from '../src/client.js';
import { createPlayer, type Player } from '../src/players.js';
import { startWorld, type World } from '../src/world.js';

const ROUNDS = 3_000;
let world: World;
let player: Player;
let db: pg.Client;

beforeAll(async () => {
  world = await startWorld({ slot: 'bigTest', providers: 1, operators: [BENCH_OPERATOR], logLevel: 'warn', metrics: false });
  player = await createPlayer(world.casino, () => world.providers[0]!.url, { index: 0, playerRef: 'big-test', operator: BENCH_OPERATOR, balance: '1000.00' });
  db = new pg.Client({ connectionString: world.db.url });
  await db.connect();
}, 120_000);
afterAll(async () => {
  await db?.end();
  await closePools();
  await world?.stop();
});

describe('the big scenario’s load', () => {
  it('writes settled rounds with their callbacks and records into the history, oldest first, and the provider serves them', async () => {
    const lines: string[] = [];
    await loadSettledRounds({ databaseUrl: world.db.url, operatorId: BENCH_OPERATOR.operatorId, rounds: ROUNDS, batch: 1_000, print: (l) => lines.push(l) });
    expect(lines.at(-1)).toContain(`${ROUNDS.toLocaleString('en')} of ${ROUNDS.toLocaleString('en')}`);

    const loaded = await db.query<{ n: string; parts: string[]; ordered: boolean; oldest_days: number; newest_days: number }>(
      `SELECT count(*)::text AS n, array_agg(DISTINCT tableoid::regclass::text) AS parts,
              bool_and(created_at >= prev) AS ordered,
              (extract(epoch FROM now() - min(created_at)) / 86400)::float8 AS oldest_days, (extract(epoch FROM now() - max(created_at)) / 86400)::float8 AS newest_days
         FROM (SELECT created_at, tableoid, coalesce(lag(created_at) OVER (ORDER BY nonce), '-infinity') AS prev
                 FROM rounds WHERE player_ref LIKE 'big-%' AND client_seed = 'big-load') r`,
    );
    const row = loaded.rows[0]!;
    expect(Number(row.n)).toBe(ROUNDS);
    expect(row.ordered).toBe(true); // in time order, as play writes them
    expect(row.oldest_days).toBeGreaterThan(179);
    expect(row.newest_days).toBeGreaterThan(89);
    // the history partition, not the month a bet writes
    expect(row.parts).toEqual(['rounds_legacy']);

    const counts = await db.query<{ callbacks: string; records: string }>(
      `SELECT (SELECT count(*) FROM wallet_callbacks WHERE round_id IN (SELECT round_id FROM rounds WHERE client_seed = 'big-load'))::text AS callbacks,
              (SELECT count(*) FROM idempotency_records WHERE idempotency_key LIKE 'big-key-%')::text AS records`,
    );
    expect(counts.rows[0]).toEqual({ callbacks: String(2 * ROUNDS), records: String(ROUNDS) });
    // the records too: the history partition, not the week a live session's keys go to (migration 20261129100000)
    const recordParts = await db.query<{ parts: string[] }>(
      `SELECT array_agg(DISTINCT tableoid::regclass::text) AS parts FROM idempotency_records WHERE idempotency_key LIKE 'big-key-%'`,
    );
    expect(recordParts.rows[0]!.parts).toEqual(['idempotency_records_legacy']);

    // the provider reads a loaded round like one of its own
    const one = await db.query<{ round_id: string }>(`SELECT round_id FROM rounds WHERE client_seed = 'big-load' ORDER BY nonce DESC LIMIT 1`);
    const provider = world.providers[0]!.url;
    const view = await request(provider, 'GET', `/api/bets/${one.rows[0]!.round_id}`);
    expect(view.status, view.text).toBe(200);
    expect(view.body).toMatchObject({ roundId: one.rows[0]!.round_id, roundStatus: 'settled' });
    expect(JSON.stringify(view.body)).toContain('"debit"');

    // and plays on
    const bet = await request(provider, 'POST', '/api/bets', {
      sessionId: player.sessionId,
      gameType: 'dice',
      amount: 1,
      params: { target: 50.5, direction: 'over' },
      idempotencyKey: 'big-test-after-load',
    });
    expect(bet.status, bet.text).toBe(200);
    expect(bet.body.roundStatus).toBe('settled');
  }, 120_000);
});
