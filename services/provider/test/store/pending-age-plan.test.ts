/**
 * The oldest pending credit's age (gp_wallet_retries_oldest_pending_seconds, read at every
 * Prometheus scrape: rounds/pending-age.ts) looks up each round in flight's callbacks by its key,
 * never scanning the history of callbacks: on the bench's 10-million-round database the join it
 * replaced was planned as a scan of every callback, 20–40 s a scrape (issue 25, the thirteenth session).
 */
import knexPkg, { type Knex } from 'knex';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { newRoundId } from '../../src/infra/random.js';
import { OLDEST_PENDING_SQL, oldestPendingAges } from '../../src/rounds/pending-age.js';
import { createTestDatabase } from '../helpers/app.js';

let db: Knex;
let drop: () => Promise<void>;
let pairId: string;

beforeAll(async () => {
  const d = await createTestDatabase();
  drop = d.drop;
  db = knexPkg.knex({ client: 'pg', connection: d.url, pool: { min: 0, max: 2 } });
  await db('operators').insert({
    operator_id: 'op',
    currency: 'USD',
    callback_base_url: 'sandbox://demo-casino',
    secret_enc: 'x',
    min_bet: 1,
    stake_step: 1,
    max_payout: 1000,
    enabled_games: JSON.stringify(['dice']),
  });
  await db('sessions').insert({
    session_id: 's1',
    operator_id: 'op',
    player_ref: 'p',
    currency: 'USD',
    game_type: null,
    launch_mode: 'lobby',
    launch_token_enc: 'x',
  });
  pairId = String(
    (await db('seed_pairs').insert({ operator_id: 'op', player_ref: 'p', server_seed: 'a', server_seed_hash: 'b', client_seed: 'c' }).returning('id'))[0].id,
  );
});
afterAll(async () => {
  await db?.destroy();
  await drop?.();
});

const month = (d: Date) => `${d.getUTCFullYear()}_${String(d.getUTCMonth() + 1).padStart(2, '0')}`;

it('looks up each round in flight by its key, never scanning the callbacks of the history', async () => {
  const now = new Date();
  // a history of settled rounds with their debits and credits, and 64 rounds waiting for their credit
  const settled = Array.from({ length: 5_000 }, (_, i) => newRoundId(now.getTime() - 60_000 - i));
  const pending = Array.from({ length: 64 }, (_, i) => newRoundId(now.getTime() - 3_600_000 - i));
  let nonce = 0;
  const rows = (ids: string[], status: string) =>
    ids.map((id) => ({
      round_id: id,
      created_at: db.raw('gp_round_time(?)', [id]),
      operator_id: 'op',
      player_ref: 'p',
      session_id: 's1',
      game_type: 'dice',
      currency: 'USD',
      amount: 10,
      total_staked: 10,
      params: '{}',
      seed_pair_id: pairId,
      nonce: ++nonce,
      client_seed: 'c',
      status,
    }));
  const all = [...rows(settled, 'settled'), ...rows(pending, 'credit_pending')];
  for (let i = 0; i < all.length; i += 1_000) await db('rounds').insert(all.slice(i, i + 1_000));
  await db.raw(
    `INSERT INTO wallet_callbacks (round_created_at, round_id, operator_id, player_ref, operation, purpose, idempotency_key, amount, currency, method, path, url, request_body, request_body_enc, callback_status)
     SELECT r.created_at, r.round_id, 'op', 'p', o.op, 'bet', r.round_id || ':' || o.op, 10, 'USD', 'POST', '/wallet/' || o.op, 'x', '{}', 'x', 'succeeded'
     FROM rounds r, (VALUES ('debit'), ('credit')) AS o(op)`,
  );
  await db.raw('ANALYZE rounds, wallet_callbacks, rounds_in_flight');

  const res = (await db.raw(`EXPLAIN (COSTS OFF) ${OLDEST_PENDING_SQL}`)) as { rows: { 'QUERY PLAN': string }[] };
  const plan = res.rows.map((r) => r['QUERY PLAN']).join('\n');
  if (process.env.SHOW_PLANS) console.log(plan);
  // the month that holds the 10,128 callbacks is read by its key index, once per round in flight (the others are empty)
  expect(plan).not.toMatch(new RegExp(`Seq Scan on wallet_callbacks_${month(now)}`));
  expect(plan).toMatch(new RegExp(`Index (Only )?Scan using wallet_callbacks_${month(now)}_idempotency_key_round_created_at_key`));
  expect(plan).toMatch(/Index Cond: \(\(idempotency_key >= \(r\.round_id \|\| ':'::text\)\)/);

  const ages = await oldestPendingAges(db);
  expect(ages).toEqual([{ operatorId: 'op', operation: 'credit', seconds: expect.any(Number) as number }]);
  // from the credit's first send (written just now), not from the round's creation an hour ago
  expect(ages[0]!.seconds).toBeLessThan(1_800);
});
