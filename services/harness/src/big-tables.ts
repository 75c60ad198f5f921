/**
 * The `big` bench scenario's load (issue 25: "cost flat as work grows"): N settled dice rounds of
 * 180 to 90 days ago, oldest first (ids are UUIDv7 of that time, as the provider's; they fill the partition of
 * the history before the provider's first start), each with its debit and credit callbacks and
 * its idempotency record (of a session that began with the round: migration 20261129100000
 * partitions them by their session's start), written
 * straight into the run's database in batches (generate_series, every index and CHECK rule in
 * place, as years of play would leave them). The bench then plays the same dice load as on the
 * empty database and compares per-bet CPU, statements, WAL and p99.
 *
 * The rows are shaped like the provider's own (same columns, statuses, key forms, body sizes of
 * a real callback), spread over 100,000 players of the bench operator, under one revealed seed
 * pair of their own so no nonce collides with a live player's.
 */
import pg from 'pg';

export interface BigLoadOptions {
  databaseUrl: string;
  operatorId: string;
  rounds: number;
  /** Rows per statement. */
  batch?: number;
  print: (line: string) => void;
}

/**
 * The rounds of the batch just inserted ($1 seed pair, $2–$3 nonces, $4 operator, $5 rounds in all),
 * found by the operator's time index (rounds_operator_created_desc): their times are the batch's
 * slice of the 90 days (`now()` is the transaction's, the same for the three inserts of a batch;
 * a UUIDv7 keeps the millisecond, rounded: the bounds are 1 ms wider, the nonces keep the batch).
 * Selected by seed pair and nonce alone, each batch read every round loaded before it (no index has
 * them): quadratic, 85 minutes for 10 million.
 */
const BATCH_ROUNDS = `r.operator_id = $4
           AND r.created_at BETWEEN now() - interval '180 days' + interval '90 days' * ($2::float8 / $5::float8) - interval '1 ms'
                                AND now() - interval '180 days' + interval '90 days' * ($3::float8 / $5::float8) + interval '1 ms'
           AND r.seed_pair_id = $1 AND r.nonce BETWEEN $2 AND $3`;

export async function loadSettledRounds(o: BigLoadOptions): Promise<{ seconds: number; bytes: string }> {
  const started = performance.now();
  const db = new pg.Client({ connectionString: o.databaseUrl });
  await db.connect();
  try {
    const session = await db.query<{ session_id: string; currency: string }>('SELECT session_id, currency FROM sessions WHERE operator_id = $1 LIMIT 1', [
      o.operatorId,
    ]);
    if (!session.rows[0]) throw new Error(`no session of ${o.operatorId} to hang the rounds on`);
    const { session_id: sessionId, currency } = session.rows[0];
    const pair = await db.query<{ id: string }>(
      `INSERT INTO seed_pairs (operator_id, player_ref, server_seed, server_seed_hash, client_seed, next_nonce, revealed, revealed_at)
       VALUES ($1, 'big-load', repeat('a', 64), repeat('b', 64), 'big-load', $2, true, now()) RETURNING id::text`,
      [o.operatorId, o.rounds],
    );
    const seedPairId = pair.rows[0]!.id;
    // The row triggers are left out of the load (the CHECK rules are not): each row is valid by
    // construction — its seed pair was inserted above, each callback and record is selected from its
    // round — and their look-ups (a round's seed pair, a callback's round: 30 million SPI queries for
    // 10 million rounds) only made the load slower. Bets measured afterwards run every trigger.
    await db.query(`SET session_replication_role = replica`);
    const batch = o.batch ?? 250_000;
    for (let from = 0; from < o.rounds; from += batch) {
      const to = Math.min(o.rounds, from + batch) - 1;
      // one transaction a batch: rounds, then their callbacks and idempotency records
      await db.query('BEGIN');
      await db.query(
        `INSERT INTO rounds (round_id, operator_id, player_ref, session_id, game_type, currency, amount, total_staked, params, seed_pair_id, nonce, client_seed,
                             status, result, multiplier, payout, close_status, created_at, updated_at, settled_at)
         SELECT id, $1, 'big-' || (i % 100000), $2, 'dice', $3, 100, 100, '{"target": 50.5, "direction": "over"}'::jsonb, $4, i, 'big-load',
                'settled', jsonb_build_object('roll', (i % 10001) / 100.0, 'target', 50.5, 'direction', 'over', 'winChance', 49.5),
                CASE WHEN i % 2 = 0 THEN 2 ELSE 0 END, CASE WHEN i % 2 = 0 THEN 200 ELSE 0 END, 'settled',
                gp_round_time(id), gp_round_time(id), gp_round_time(id)
         FROM generate_series($5::bigint, $6::bigint) AS i,
              -- in time order, as years of play write them (a key that grows with time lands at its
              -- index's right edge; a random order wrote into pages all over each index)
              LATERAL (SELECT now() - interval '180 days' + interval '90 days' * (i::float8 / $7::float8) AS t) AS ts,
              -- a UUIDv7 of that time, as the provider makes them (its time is the round's: migration 20261128131000)
              LATERAL (SELECT lpad(to_hex((extract(epoch FROM t) * 1000)::bigint), 12, '0') AS h, md5(i::text) AS r) AS parts,
              LATERAL (SELECT substr(h, 1, 8) || '-' || substr(h, 9, 4) || '-7' || substr(r, 1, 3) || '-8' || substr(r, 4, 3) || '-' || substr(r, 7, 12) AS id) AS ids`,
        [o.operatorId, sessionId, currency, seedPairId, from, to, o.rounds],
      );
      await db.query(
        `INSERT INTO wallet_callbacks (round_created_at, round_id, operator_id, player_ref, operation, purpose, idempotency_key, amount, currency, method, path, url,
                                       request_body, request_body_enc, response_body, status_code, callback_status, attempt_count, casino_transaction_id, created_at, updated_at)
         SELECT r.created_at, r.round_id, r.operator_id, r.player_ref, op.operation, op.purpose, r.round_id || ':' || op.operation, op.amount, r.currency, 'POST', '/wallet/' || op.operation,
                'https://casino.example/wallet/' || op.operation,
                '{"operatorId":"' || r.operator_id || '","playerRef":"' || r.player_ref || '","gameType":"dice","roundId":"' || r.round_id || '","amount":' || op.amount || ',"currency":"' || r.currency || '"}',
                'v1.' || md5(r.round_id || op.operation) || md5(r.round_id), '{"casinoTransactionId":"tx-' || r.round_id || '-' || op.operation || '","balance":1000.00,"currency":"' || r.currency || '"}',
                200, 'succeeded', 1, 'tx-' || r.round_id || '-' || op.operation, r.created_at, r.created_at
         FROM rounds r, LATERAL (VALUES ('debit', 'bet', r.amount), ('credit', 'win', r.payout)) AS op(operation, purpose, amount)
         WHERE ${BATCH_ROUNDS}`,
        [seedPairId, from, to, o.operatorId, o.rounds],
      );
      await db.query(
        // each record in the partition of its session's start (migration 20261129100000): a session
        // that began with its round (its id the round's UUIDv7, so its time is the round's)
        `INSERT INTO idempotency_records (operator_id, session_id, session_at, idempotency_key, request_hash, round_id, state, response_status, response_body, response_round_status, created_at, completed_at)
         SELECT r.operator_id, left(r.round_id, 36), gp_session_time(left(r.round_id, 36)), 'big-key-' || r.nonce, md5(r.round_id), r.round_id, 'completed', 200,
                jsonb_build_object('roundId', r.round_id, 'roundStatus', 'settled'), 'settled', r.created_at, r.created_at
         FROM rounds r WHERE ${BATCH_ROUNDS}`,
        [seedPairId, from, to, o.operatorId, o.rounds],
      );
      await db.query('COMMIT');
      o.print(`  loaded ${(to + 1).toLocaleString('en')} of ${o.rounds.toLocaleString('en')} rounds (${((performance.now() - started) / 1000).toFixed(0)} s)`);
    }
    await db.query('RESET session_replication_role');
    await db.query('ANALYZE rounds, wallet_callbacks, idempotency_records');
    const size = await db.query<{ s: string }>('SELECT pg_size_pretty(pg_database_size(current_database())) AS s');
    return { seconds: (performance.now() - started) / 1000, bytes: size.rows[0]!.s };
  } finally {
    await db.end();
  }
}
