/** The money rules the database itself holds (migrations/), whatever the code does. */
import knexPkg, { type Knex } from 'knex';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { newRoundId, newSessionId } from '../../src/infra/random.js';
import { createTestDatabase } from '../helpers/app.js';
import { insertCallbackRow } from '../helpers/callback-rows.js';

let db: Knex;
let drop: () => Promise<void>;

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
    enabled_games: JSON.stringify(['dice', 'mines']),
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
  await db('seed_pairs').insert({ operator_id: 'op', player_ref: 'p', server_seed: 'a', server_seed_hash: 'b', client_seed: 'c' });
});
afterAll(async () => {
  await db?.destroy();
  await drop?.();
});

let n = 0;
async function round(patch: Record<string, unknown> = {}) {
  const pair = await db('seed_pairs').first('id');
  n += 1;
  const id = newRoundId();
  await db('rounds').insert({
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
    seed_pair_id: pair.id,
    nonce: n,
    client_seed: 'c',
    status: 'debit_requested',
    ...patch,
  });
  return id;
}

describe('database constraints', () => {
  it('a final round never changes again', async () => {
    const id = await round();
    await db('rounds').where({ round_id: id }).update({ status: 'settled' });
    await expect(db('rounds').where({ round_id: id }).update({ status: 'credit_pending' })).rejects.toThrow(/final/);
    await expect(db('rounds').where({ round_id: id }).update({ payout: 5 })).rejects.toThrow(/final/);
    await expect(db('rounds').where({ round_id: id }).delete()).rejects.toThrow(/final|never deleted/);
  });

  it("a round id is a UUIDv7 and its time is the round's: ids stay unique across the monthly partitions", async () => {
    const id = await round({ nonce: 900 });
    await expect(round({ nonce: 901, round_id: id, created_at: db.raw('gp_round_time(?)', [id]) })).rejects.toThrow(/unique|duplicate/i);
    await expect(round({ nonce: 902, created_at: db.raw("now() + interval '1 hour'") })).rejects.toThrow(/rounds_id_time/);
    await expect(round({ nonce: 903, round_id: 'not-a-uuidv7', created_at: db.raw('now()') })).rejects.toThrow(/rounds_id_time/);
  });

  it('two rounds never share a nonce of one seed pair', async () => {
    await round({ nonce: 1000 });
    await expect(round({ nonce: 1000 })).rejects.toThrow(/unique/i);
  });

  it('one open mines round per player', async () => {
    await round({ game_type: 'mines', status: 'active', nonce: 2000 });
    await expect(round({ game_type: 'mines', status: 'debit_requested', nonce: 2001 })).rejects.toThrow(/rounds_one_open_per_player/);
  });

  it('the open-round slot and the rounds in flight follow the status (migration 20261128130000: kept by triggers, not by the code)', async () => {
    const first = await round({ game_type: 'blackjack', status: 'debit_requested', nonce: 2100 });
    await db('rounds').where({ round_id: first }).update({ status: 'active' });
    await expect(round({ game_type: 'blackjack', status: 'active', nonce: 2101 })).rejects.toThrow(/rounds_one_open_per_player/);
    // closing frees the slot: the player may open the next round
    await db('rounds').where({ round_id: first }).update({ status: 'credit_pending' });
    const second = await round({ game_type: 'blackjack', status: 'active', nonce: 2102 });
    expect(await db('open_rounds').where({ player_ref: 'p', game_type: 'blackjack' }).pluck('round_id')).toEqual([second]);
    const inFlight = async () => (await db('rounds_in_flight').whereIn('round_id', [first, second]).pluck('round_id')).sort();
    expect(await inFlight()).toEqual([first, second].sort());
    await db('rounds').where({ round_id: first }).update({ status: 'settled' });
    await db('rounds').where({ round_id: second }).update({ status: 'cancelled' });
    expect(await inFlight()).toEqual([]);
    expect(await db('open_rounds').where({ player_ref: 'p', game_type: 'blackjack' }).pluck('round_id')).toEqual([]);
    // a round written final (an import) is never in flight
    const done = await round({ status: 'settled', nonce: 2103 });
    expect(await db('rounds_in_flight').where({ round_id: done }).first()).toBeUndefined();
  });

  it('stakes are positive and statuses known', async () => {
    await expect(round({ amount: 0, total_staked: 0, nonce: 3000 })).rejects.toThrow(/rounds_amount_check/);
    await expect(round({ status: 'weird', nonce: 3001 })).rejects.toThrow(/rounds_status_check/);
  });

  it('one callback per idempotency key, one credit per round, one rollback per debit', async () => {
    const id = await round({ nonce: 4000 });
    const cb = (key: string, operation: string, extra: Record<string, unknown> = {}) =>
      insertCallbackRow(db, id, { operation, idempotency_key: key, ...extra });
    await cb(`${id}:debit`, 'debit');
    await expect(cb(`${id}:debit`, 'debit')).rejects.toThrow(/unique/i);
    // a round's one credit and a debit's one rollback: their keys are fixed (migration 20261206002000), so the unique key refuses a second
    await cb(`${id}:credit`, 'credit');
    await expect(cb(`${id}:credit`, 'credit')).rejects.toThrow(/unique/i);
    await expect(cb(`${id}:credit2`, 'credit')).rejects.toThrow(/wallet_callbacks_credit_key/);
    await cb(`${id}:debit:rollback`, 'rollback', { debit_idempotency_key: `${id}:debit` });
    await expect(cb(`${id}:debit:rollback`, 'rollback', { debit_idempotency_key: `${id}:debit` })).rejects.toThrow(/unique/i);
    await expect(cb(`${id}:debit:rollback2`, 'rollback', { debit_idempotency_key: `${id}:debit` })).rejects.toThrow(/wallet_callbacks_rollback_key/);
    // a key names its round (so it is unique across the monthly partitions: migration 20261128131000)
    await expect(cb(`other:debit`, 'debit')).rejects.toThrow(/wallet_callbacks_key_of_round/);
    await db('wallet_callbacks')
      .where({ idempotency_key: `${id}:debit` })
      .update({ callback_status: 'succeeded' });
    await expect(
      db('wallet_callbacks')
        .where({ idempotency_key: `${id}:debit` })
        .update({ callback_status: 'pending' }),
    ).rejects.toThrow(/cannot change/);
  });

  it('a callback belongs to a round that exists, a round to a seed pair that exists; neither is ever deleted or re-keyed (migration 20261129001000)', async () => {
    const id = await round({ nonce: 5000 });
    const cb = (roundId: string, at: Knex.Raw) => insertCallbackRow(db, roundId, { round_created_at: at });
    // no such round (an unknown id; a known id at another time)
    const unknown = newRoundId();
    await expect(cb(unknown, db.raw('gp_round_time(?)', [unknown]))).rejects.toThrow(/wallet_callbacks_round_id_foreign|does not exist/);
    await expect(cb(id, db.raw("gp_round_time(?) - interval '1 ms'", [id]))).rejects.toThrow(/does not exist/);
    await cb(id, db.raw('gp_round_time(?)', [id]));
    // the round inserted by the same statement counts (the opening statement's CTEs)
    const fresh = newRoundId();
    const pair = (await db('seed_pairs').first('id')) as { id: number };
    await db.raw(
      `WITH r AS (INSERT INTO rounds (round_id, created_at, operator_id, player_ref, session_id, game_type, currency, amount, total_staked, params, seed_pair_id, nonce, client_seed, status)
         VALUES (?, gp_round_time(?), 'op', 'p', 's1', 'dice', 'USD', 10, 10, '{}', ?, 5001, 'c', 'debit_requested') RETURNING round_id, created_at)
       INSERT INTO wallet_callbacks (round_created_at, round_id, operator_id, player_ref, operation, purpose, idempotency_key, amount, currency, method, path, url, request_body, request_body_enc, callback_status)
         SELECT created_at, round_id, 'op', 'p', 'debit', 'bet', round_id || ':debit', 10, 'USD', 'POST', '/wallet/debit', 'x', '{}', 'x', 'pending' FROM r`,
      [fresh, fresh, pair.id],
    );
    // a round's seed pair exists
    await expect(round({ nonce: 5002, seed_pair_id: 987654321 })).rejects.toThrow(/rounds_seed_pair_id_foreign|does not exist/);
    // nothing can take a referenced row away: no delete, no new key, no truncate
    await expect(db('rounds').where({ round_id: id }).delete()).rejects.toThrow(/never deleted/);
    await expect(db.raw(`DELETE FROM rounds_legacy`)).resolves.toBeTruthy(); // (empty: no row, no refusal)
    await expect(
      db('rounds')
        .where({ round_id: id })
        .update({ created_at: db.raw("created_at + interval '1 ms'") }),
    ).rejects.toThrow(/never deleted|rounds_id_time/);
    // a new id with its own time keeps rounds_id_time: the trigger on the key columns refuses it (migration 20261206001000)
    const other = newRoundId();
    await expect(
      db('rounds')
        .where({ round_id: id })
        .update({ round_id: other, created_at: db.raw('gp_round_time(?)', [other]) }),
    ).rejects.toThrow(/never deleted or re-keyed/);
    await expect(db('seed_pairs').where({ id: pair.id }).delete()).rejects.toThrow(/never deleted/);
    await expect(db('seed_pairs').where({ id: pair.id }).update({ id: 987654322 })).rejects.toThrow(/never deleted/);
    await expect(db.raw('TRUNCATE rounds CASCADE')).rejects.toThrow(/never deleted/);
    await expect(db.raw('TRUNCATE seed_pairs CASCADE')).rejects.toThrow(/never deleted/);
  });

  it('one idempotency record per operator, session and key (its partition is its session start: migration 20261129100000)', async () => {
    for (const sessionId of ['s1', newSessionId()]) {
      const rec = {
        operator_id: 'op',
        session_id: sessionId,
        idempotency_key: 'k',
        request_hash: 'h',
        session_at: db.raw('gp_session_time(?::text)', [sessionId]),
      };
      await db('idempotency_records').insert(rec);
      await expect(db('idempotency_records').insert(rec)).rejects.toThrow(/idempotency_records_\w*pkey/);
    }
  });

  it('every row rule of the three tables a bet writes holds, by its name, on insert and on update (one CHECK a table: migration 20261206000000)', async () => {
    const refused = async (p: Promise<unknown>, rule: string) => {
      const err = (await p.then(
        () => null,
        (e: unknown) => e,
      )) as { code?: string; constraint?: string; message?: string } | null;
      expect(err, rule).not.toBeNull();
      expect({ code: err!.code, constraint: err!.constraint }).toEqual({ code: '23514', constraint: rule });
      expect(err!.message).toContain(`violates check constraint "${rule}"`);
    };
    // rounds: each rule refused on insert, and on update of a row that kept them all
    const id = await round({ nonce: 6000 });
    const upd = (patch: Record<string, unknown>) => db('rounds').where({ round_id: id }).update(patch);
    await refused(round({ nonce: 6001, created_at: db.raw("now() - interval '1 day'") }), 'rounds_id_time');
    await refused(round({ nonce: 6002, status: 'paid' }), 'rounds_status_check');
    await refused(upd({ status: 'paid' }), 'rounds_status_check');
    await refused(round({ nonce: 6003, game_type: 'roulette' }), 'rounds_game_check');
    await refused(upd({ game_type: 'roulette' }), 'rounds_game_check');
    await refused(upd({ close_status: 'won' }), 'rounds_close_status_check');
    await refused(upd({ total_staked: 5 }), 'rounds_amount_check');
    await refused(round({ nonce: 6004, amount: -1, total_staked: 10 }), 'rounds_amount_check');
    await refused(upd({ payout: -1 }), 'rounds_payout_check');
    // what the rules allow still passes: NULLs where a CHECK lets them, a legacy (non-UUIDv7) id from before the partitions
    await upd({ close_status: 'cashed_out', payout: 0, total_staked: 20 });
    await upd({ close_status: null, payout: null });
    await refused(round({ nonce: 6005, round_id: 'legacy-id', created_at: db.raw('now()') }), 'rounds_id_time');
    await round({ nonce: 6006, round_id: 'legacy-id', created_at: db.raw("'2020-01-01'::timestamptz") });

    // wallet callbacks
    const cb = (extra: Record<string, unknown> = {}) => insertCallbackRow(db, id, extra);
    await refused(cb({ operation: 'refund' }), 'wallet_callbacks_operation_check');
    await refused(cb({ amount: 0 }), 'wallet_callbacks_amount_check');
    await refused(cb({ debit_idempotency_key: `${id}:debit` }), 'wallet_callbacks_rollback_check');
    await refused(cb({ operation: 'rollback', idempotency_key: `${id}:debit:rollback` }), 'wallet_callbacks_rollback_check');
    await refused(cb({ callback_status: 'lost' }), 'wallet_callbacks_status_check');
    await refused(cb({ idempotency_key: 'another-round:debit' }), 'wallet_callbacks_key_of_round');
    await cb({ operation: 'credit', purpose: 'win', idempotency_key: `${id}:credit`, amount: 0 }); // a credit of 0: a lost bet
    const credit = () => db('wallet_callbacks').where({ idempotency_key: `${id}:credit` });
    await refused(credit().update({ callback_status: 'lost' }), 'wallet_callbacks_status_check');
    await refused(credit().update({ amount: -1 }), 'wallet_callbacks_amount_check');

    // idempotency records
    const sessionId = newSessionId();
    const rec = {
      operator_id: 'op',
      session_id: sessionId,
      idempotency_key: 'rules',
      request_hash: 'h',
      session_at: db.raw('gp_session_time(?::text)', [sessionId]),
    };
    await refused(db('idempotency_records').insert({ ...rec, state: 'done' }), 'idempotency_records_state_check');
    await refused(
      db('idempotency_records').insert({ ...rec, session_at: db.raw("gp_session_time(?::text) + interval '1 ms'", [sessionId]) }),
      'idempotency_records_session_time',
    );
    await db('idempotency_records').insert(rec);
    await refused(db('idempotency_records').where({ session_id: sessionId }).update({ state: 'done' }), 'idempotency_records_state_check');

    // one CHECK constraint a table: PostgreSQL prepares each again for every statement that writes the table
    const checks = await db.raw(
      `SELECT conrelid::regclass::text AS t, count(*)::int AS n FROM pg_constraint WHERE contype = 'c' AND conrelid IN ('rounds'::regclass, 'wallet_callbacks'::regclass, 'idempotency_records'::regclass) GROUP BY 1 ORDER BY 1`,
    );
    expect(checks.rows).toEqual([
      { t: 'idempotency_records', n: 1 },
      { t: 'rounds', n: 1 },
      { t: 'wallet_callbacks', n: 1 },
    ]);
  });

  it('one current seed pair per player', async () => {
    await expect(db('seed_pairs').insert({ operator_id: 'op', player_ref: 'p', server_seed: 'x', server_seed_hash: 'y', client_seed: 'z' })).rejects.toThrow(
      /seed_pairs_one_current/,
    );
  });
});
