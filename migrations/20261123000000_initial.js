// The initial schema: operators, sessions, seed pairs, rounds, wallet callbacks (the audit),
// idempotency records, the demo casino's wallet, and the reconciliation view.
// Amounts are integer minor units in NUMERIC; multipliers NUMERIC with 4 decimals.
// Money rules held by the database (not only in code):
//  - one idempotency record per (operator, session, key); one callback per idempotency key;
//  - one current seed pair per player; no two rounds share (seed pair, nonce);
//  - one open Mines and one open Blackjack round per player (partial unique index);
//  - a round in a final status never changes again (trigger);
//  - amounts are positive where they must be (CHECK).

const CURRENCIES = ['USD', 'EUR', 'GBP', 'USDT', 'USDC', 'BTC', 'uBTC', 'ETH', 'LTC', 'DOGE', 'BNB', 'SOL', 'XRP', 'ADA', 'TRX', 'XLM', 'ZEC'];
const GAMES = ['dice', 'limbo', 'plinko', 'keno', 'mines', 'blackjack'];
const STATUSES = ['debit_requested', 'active', 'settled', 'cashed_out', 'busted', 'credit_pending', 'rollback_pending', 'cancelled', 'error'];
const inList = (values) => values.map((v) => `'${v}'`).join(', ');

/** @param {import('knex').Knex} knex */
export async function up(knex) {
  await knex.schema.createTable('operators', (t) => {
    t.text('operator_id').primary();
    t.text('tenant_id');
    t.text('currency').notNullable();
    t.text('callback_base_url').notNullable();
    t.text('secret_enc').notNullable();
    t.decimal('min_bet', 40, 0).notNullable();
    t.decimal('max_bet', 40, 0);
    t.decimal('stake_step', 40, 0).notNullable();
    t.decimal('max_payout', 40, 0).notNullable();
    t.jsonb('enabled_games').notNullable();
    t.jsonb('theme').notNullable().defaultTo('{}');
    t.jsonb('allowed_embed_origins').notNullable().defaultTo('[]');
    t.jsonb('abandoned_round_policy').notNullable().defaultTo('{}');
    t.boolean('enabled').notNullable().defaultTo(true);
    t.timestamp('created_at', { useTz: true }).notNullable().defaultTo(knex.fn.now());
    t.timestamp('updated_at', { useTz: true }).notNullable().defaultTo(knex.fn.now());
  });
  await knex.raw(`ALTER TABLE operators
    ADD CONSTRAINT operators_currency_check CHECK (currency IN (${inList(CURRENCIES)})),
    ADD CONSTRAINT operators_limits_check CHECK (min_bet > 0 AND stake_step > 0 AND max_payout > 0
      AND (max_bet IS NULL OR max_bet >= min_bet))`);

  await knex.schema.createTable('sessions', (t) => {
    t.text('session_id').primary();
    t.text('operator_id').notNullable().references('operators.operator_id');
    t.text('player_ref').notNullable();
    t.text('display_name');
    t.text('currency').notNullable();
    t.text('game_type');
    t.text('launch_mode').notNullable();
    t.text('launch_token_enc').notNullable();
    t.timestamp('created_at', { useTz: true }).notNullable().defaultTo(knex.fn.now());
    t.index(['operator_id', 'player_ref']);
  });
  await knex.raw(`ALTER TABLE sessions
    ADD CONSTRAINT sessions_launch_mode_check CHECK (launch_mode IN ('single', 'lobby')),
    ADD CONSTRAINT sessions_game_check CHECK ((launch_mode = 'lobby' AND game_type IS NULL)
      OR (launch_mode = 'single' AND game_type IN (${inList(GAMES)})))`);

  await knex.schema.createTable('seed_pairs', (t) => {
    t.bigIncrements('id').primary();
    t.text('operator_id').notNullable().references('operators.operator_id');
    t.text('player_ref').notNullable();
    t.text('server_seed').notNullable();
    t.text('server_seed_hash').notNullable();
    t.text('client_seed').notNullable();
    t.bigInteger('next_nonce').notNullable().defaultTo(0);
    t.boolean('revealed').notNullable().defaultTo(false);
    t.timestamp('created_at', { useTz: true }).notNullable().defaultTo(knex.fn.now());
    t.timestamp('revealed_at', { useTz: true });
  });
  await knex.raw(`CREATE UNIQUE INDEX seed_pairs_one_current ON seed_pairs (operator_id, player_ref) WHERE NOT revealed`);
  await knex.raw(`ALTER TABLE seed_pairs ADD CONSTRAINT seed_pairs_nonce_check CHECK (next_nonce >= 0)`);

  await knex.schema.createTable('rounds', (t) => {
    t.text('round_id').primary();
    t.text('operator_id').notNullable().references('operators.operator_id');
    t.text('player_ref').notNullable();
    t.text('session_id').notNullable().references('sessions.session_id');
    t.text('game_type').notNullable();
    t.text('currency').notNullable();
    t.decimal('amount', 40, 0).notNullable();
    t.decimal('total_staked', 40, 0).notNullable();
    t.jsonb('params').notNullable();
    t.bigInteger('seed_pair_id').notNullable().references('seed_pairs.id');
    t.bigInteger('nonce').notNullable();
    t.text('client_seed').notNullable();
    t.text('status').notNullable();
    t.jsonb('state');
    t.jsonb('result');
    t.decimal('multiplier', 24, 4);
    t.decimal('payout', 40, 0);
    t.text('error_code');
    t.text('error_message');
    t.text('close_status'); // the final status the round takes once its credit is confirmed
    t.integer('version').notNullable().defaultTo(0);
    // While a request or the retry job works on the round, nobody else does; a lease that ran
    // out means the worker died and the retry job may take the round over.
    t.timestamp('lease_until', { useTz: true });
    t.timestamp('created_at', { useTz: true }).notNullable().defaultTo(knex.fn.now());
    t.timestamp('updated_at', { useTz: true }).notNullable().defaultTo(knex.fn.now());
    t.timestamp('settled_at', { useTz: true });
    t.unique(['seed_pair_id', 'nonce']);
    t.index(['operator_id', 'player_ref', 'status']);
    t.index(['status', 'updated_at']);
  });
  await knex.raw(`ALTER TABLE rounds
    ADD CONSTRAINT rounds_status_check CHECK (status IN (${inList(STATUSES)})),
    ADD CONSTRAINT rounds_game_check CHECK (game_type IN (${inList(GAMES)})),
    ADD CONSTRAINT rounds_amount_check CHECK (amount > 0 AND total_staked >= amount),
    ADD CONSTRAINT rounds_payout_check CHECK (payout IS NULL OR payout >= 0),
    ADD CONSTRAINT rounds_close_status_check CHECK (close_status IS NULL OR close_status IN ('settled', 'cashed_out', 'busted'))`);
  await knex.raw(`CREATE UNIQUE INDEX rounds_one_open_per_player ON rounds (operator_id, player_ref, game_type)
    WHERE game_type IN ('mines', 'blackjack') AND status IN ('debit_requested', 'active')`);
  await knex.raw(`CREATE FUNCTION rounds_final_is_final() RETURNS trigger AS $$
    BEGIN
      IF OLD.status IN ('settled', 'cashed_out', 'busted', 'cancelled', 'error') THEN
        RAISE EXCEPTION 'round % is final (%) and cannot change', OLD.round_id, OLD.status;
      END IF;
      RETURN NEW;
    END $$ LANGUAGE plpgsql`);
  await knex.raw(`CREATE TRIGGER rounds_final_is_final BEFORE UPDATE OR DELETE ON rounds
    FOR EACH ROW EXECUTE FUNCTION rounds_final_is_final()`);

  await knex.schema.createTable('wallet_callbacks', (t) => {
    t.bigIncrements('id').primary();
    t.text('round_id').notNullable().references('rounds.round_id');
    t.text('operator_id').notNullable();
    t.text('player_ref').notNullable();
    t.text('operation').notNullable(); // debit | credit | rollback
    t.text('purpose').notNullable(); // bet | insurance | double | split | win
    t.text('idempotency_key').notNullable().unique();
    t.text('debit_idempotency_key');
    t.decimal('amount', 40, 0).notNullable();
    t.text('currency').notNullable();
    t.text('method').notNullable();
    t.text('path').notNullable();
    t.text('url').notNullable();
    t.text('request_body').notNullable(); // for the audit: the launch token masked
    t.text('request_body_enc').notNullable(); // the exact bytes sent, sealed: a retry sends them again
    t.text('response_body');
    t.integer('status_code');
    t.text('callback_status').notNullable();
    t.text('error_code');
    t.text('error_message');
    t.integer('attempt_count').notNullable().defaultTo(0);
    t.text('casino_transaction_id');
    t.timestamp('created_at', { useTz: true }).notNullable().defaultTo(knex.fn.now());
    t.timestamp('updated_at', { useTz: true }).notNullable().defaultTo(knex.fn.now());
    t.index(['round_id']);
    t.index(['operator_id', 'created_at']);
    t.index(['callback_status', 'operation']);
  });
  await knex.raw(`ALTER TABLE wallet_callbacks
    ADD CONSTRAINT wallet_callbacks_operation_check CHECK (operation IN ('debit', 'credit', 'rollback')),
    ADD CONSTRAINT wallet_callbacks_status_check CHECK (callback_status IN ('pending', 'succeeded', 'failed')),
    ADD CONSTRAINT wallet_callbacks_amount_check CHECK (amount >= 0 AND (operation = 'credit' OR amount > 0)),
    ADD CONSTRAINT wallet_callbacks_rollback_check CHECK ((operation = 'rollback') = (debit_idempotency_key IS NOT NULL))`);
  // One rollback per debit, and a settled callback never becomes pending again.
  await knex.raw(`CREATE UNIQUE INDEX wallet_callbacks_one_rollback ON wallet_callbacks (debit_idempotency_key) WHERE operation = 'rollback'`);
  await knex.raw(`CREATE UNIQUE INDEX wallet_callbacks_one_credit ON wallet_callbacks (round_id) WHERE operation = 'credit'`);
  await knex.raw(`CREATE FUNCTION wallet_callbacks_final_is_final() RETURNS trigger AS $$
    BEGIN
      IF OLD.callback_status IN ('succeeded', 'failed') AND NEW.callback_status <> OLD.callback_status THEN
        RAISE EXCEPTION 'callback % is % and cannot change status', OLD.idempotency_key, OLD.callback_status;
      END IF;
      RETURN NEW;
    END $$ LANGUAGE plpgsql`);
  await knex.raw(`CREATE TRIGGER wallet_callbacks_final_is_final BEFORE UPDATE ON wallet_callbacks
    FOR EACH ROW EXECUTE FUNCTION wallet_callbacks_final_is_final()`);

  await knex.schema.createTable('idempotency_records', (t) => {
    t.bigIncrements('id').primary();
    t.text('operator_id').notNullable();
    t.text('session_id').notNullable();
    t.text('idempotency_key').notNullable();
    t.text('request_hash').notNullable();
    t.text('round_id');
    t.text('state').notNullable().defaultTo('in_progress'); // in_progress | completed
    t.integer('response_status');
    t.jsonb('response_body');
    t.text('response_round_status');
    t.timestamp('created_at', { useTz: true }).notNullable().defaultTo(knex.fn.now());
    t.timestamp('completed_at', { useTz: true });
    t.unique(['operator_id', 'session_id', 'idempotency_key']);
  });
  await knex.raw(`ALTER TABLE idempotency_records
    ADD CONSTRAINT idempotency_records_state_check CHECK (state IN ('in_progress', 'completed'))`);

  // The demo casino behind sandbox://demo-casino: the wallet interface's semantics, persisted.
  await knex.schema.createTable('demo_wallet_players', (t) => {
    t.text('operator_id').notNullable();
    t.text('player_ref').notNullable();
    t.text('display_name').notNullable();
    t.text('currency').notNullable();
    t.decimal('balance', 40, 0).notNullable();
    t.primary(['operator_id', 'player_ref']);
  });
  await knex.raw(`ALTER TABLE demo_wallet_players ADD CONSTRAINT demo_wallet_players_balance_check CHECK (balance >= 0)`);
  await knex.schema.createTable('demo_wallet_tokens', (t) => {
    t.text('token_hash').primary();
    t.text('operator_id').notNullable();
    t.text('player_ref').notNullable();
    t.timestamp('created_at', { useTz: true }).notNullable().defaultTo(knex.fn.now());
  });
  await knex.schema.createTable('demo_wallet_transactions', (t) => {
    t.bigIncrements('id').primary();
    t.text('operator_id').notNullable();
    t.text('idempotency_key').notNullable();
    t.text('operation').notNullable();
    t.text('request_hash').notNullable();
    t.text('player_ref').notNullable();
    t.text('round_id');
    t.decimal('amount', 40, 0).notNullable();
    t.integer('status_code').notNullable();
    t.jsonb('response').notNullable();
    t.timestamp('created_at', { useTz: true }).notNullable().defaultTo(knex.fn.now());
    t.unique(['operator_id', 'idempotency_key']);
  });

  await knex.raw(`CREATE VIEW reconciliation_rows AS
    SELECT c.id,
      CASE WHEN c.callback_status = 'pending' AND c.operation IN ('credit', 'rollback')
           THEN c.operation || '_pending' ELSE c.operation END AS type,
      c.round_id, c.operator_id, c.player_ref, r.game_type, c.amount, c.currency,
      c.casino_transaction_id, c.idempotency_key, c.callback_status AS status, c.created_at
    FROM wallet_callbacks c JOIN rounds r ON r.round_id = c.round_id`);
}

/** @param {import('knex').Knex} knex */
export async function down(knex) {
  await knex.raw('DROP VIEW IF EXISTS reconciliation_rows');
  for (const table of [
    'demo_wallet_transactions',
    'demo_wallet_tokens',
    'demo_wallet_players',
    'idempotency_records',
    'wallet_callbacks',
    'rounds',
    'seed_pairs',
    'sessions',
    'operators',
  ]) {
    await knex.schema.dropTableIfExists(table);
  }
  await knex.raw('DROP FUNCTION IF EXISTS rounds_final_is_final() CASCADE');
  await knex.raw('DROP FUNCTION IF EXISTS wallet_callbacks_final_is_final() CASCADE');
}
