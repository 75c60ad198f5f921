// Issue 25 (the fifth session): the CHECK constraints of the three tables a bet writes — rounds (6),
// wallet_callbacks (5), idempotency_records (2) — were a quarter of PostgreSQL's CPU per dice bet.
// PostgreSQL 15 prepares a table's CHECK constraints again for every statement that inserts or
// updates it (ExecRelCheck: each constraint's stored expression read back with stringToNode and
// planned with expression_planner, which also parses and inlines every SQL function the expression
// calls), and re-checks every one of them on every UPDATE, whatever columns it sets. A dice bet
// touches rounds three times, callbacks four times and its idempotency record twice: 13 table
// preparations of 2 to 6 constraints each, rounds_id_time and idempotency_records_session_time
// parsing gp_round_time's SQL each time (docs/performance.md "The fifth session: where PostgreSQL's time went").
//
// Each table's rules now live in one plpgsql function called by one CHECK constraint: the stored
// expression is one function call over the row's columns (nothing to inline, little to read back),
// and plpgsql keeps the function compiled and its expressions planned for the connection's life.
// A row that keeps every rule costs one expression (plpgsql sets up an expression's state once per
// transaction, and each of a bet's statements is its own); only a row that breaks one is looked at
// rule by rule, to name it.
// The rules are the same, word for word, and so are their names: a row that breaks one is refused
// with SQLSTATE 23514 (check_violation), the message PostgreSQL writes for a CHECK constraint and
// the old constraint's name in it and in the error's constraint field. NULL passes, as in a CHECK.
// Measured on one round's UPDATE (pgbench, one client): 0.28 ms → 0.15–0.17 ms.
//
// Locks: the new constraints are added NOT VALID in one short transaction (with the functions and
// the old constraints' drop), then validated outside it, which reads every row under SHARE UPDATE
// EXCLUSIVE — bets go on meanwhile (the old constraints held the same rules, so no row fails). The
// validation read 1 M rounds, 2 M callbacks and 1 M idempotency records in ≈ 19 s here (≈ 3 min at
// 10 M rounds). Hence no transaction of knex's around the whole migration; each step can run again
// after an interruption (knex records the migration only once it has finished).

const rowsOf = (r) => r.rows ?? r;

export const config = { transaction: false };

const TABLES = ['rounds', 'wallet_callbacks', 'idempotency_records'];

/** The legacy partition's bound, as migration 20261128131000 wrote it into rounds_id_time (or, on a second run, into gp_rounds_rules). */
async function legacyBound(knex) {
  const def = rowsOf(
    await knex.raw(`SELECT pg_get_constraintdef(oid) AS def FROM pg_constraint WHERE conname = 'rounds_id_time' AND conrelid = 'rounds'::regclass
      UNION ALL SELECT prosrc FROM pg_proc WHERE proname = 'gp_rounds_rules'`),
  )[0]?.def;
  const cutover = /created_at < '([^']+)'/.exec(def ?? '')?.[1];
  if (!cutover) throw new Error(`rounds_id_time: no legacy bound in ${def}`);
  return cutover;
}

/** @param {import('knex').Knex} knex */
export async function up(knex) {
  const cutover = await legacyBound(knex);
  await knex.transaction((trx) => addRules(trx, cutover));
  for (const table of TABLES) await knex.raw(`ALTER TABLE ${table} VALIDATE CONSTRAINT ${table}_rules`);
}

/** The functions and the NOT VALID constraints, the old constraints dropped (in one transaction). */
async function addRules(knex, cutover) {
  await knex.raw(`CREATE OR REPLACE FUNCTION gp_check_violation(tbl text, rule text) RETURNS boolean LANGUAGE plpgsql IMMUTABLE PARALLEL SAFE AS $$
    BEGIN
      RAISE EXCEPTION 'new row for relation "%" violates check constraint "%"', tbl, rule USING ERRCODE = 'check_violation', CONSTRAINT = rule, TABLE = tbl;
    END $$`);

  await knex.raw(`CREATE OR REPLACE FUNCTION gp_rounds_rules(round_id text, created_at timestamptz, status text, game_type text, close_status text,
      amount numeric, total_staked numeric, payout numeric) RETURNS boolean LANGUAGE plpgsql IMMUTABLE PARALLEL SAFE AS $$
    DECLARE
      id_time timestamptz;
    BEGIN
      -- the fast path, true only when every rule is (a legacy id, with no time in it, takes the slow path)
      IF gp_round_time(round_id) = created_at
        AND status IN ('debit_requested', 'active', 'settled', 'cashed_out', 'busted', 'credit_pending', 'rollback_pending', 'cancelled', 'error')
        AND game_type IN ('dice', 'limbo', 'plinko', 'keno', 'mines', 'blackjack')
        AND (close_status IS NULL OR close_status IN ('settled', 'cashed_out', 'busted'))
        AND amount > 0 AND total_staked >= amount
        AND (payout IS NULL OR payout >= 0) THEN
        RETURN true;
      END IF;
      -- a rule is false or NULL: name the one that is false (NULL passes, as in a CHECK)
      id_time := gp_round_time(round_id);
      IF NOT (CASE WHEN id_time IS NULL THEN created_at < '${cutover}'::timestamptz ELSE id_time = created_at END) THEN
        RETURN gp_check_violation('rounds', 'rounds_id_time');
      END IF;
      IF NOT (status IN ('debit_requested', 'active', 'settled', 'cashed_out', 'busted', 'credit_pending', 'rollback_pending', 'cancelled', 'error')) THEN
        RETURN gp_check_violation('rounds', 'rounds_status_check');
      END IF;
      IF NOT (game_type IN ('dice', 'limbo', 'plinko', 'keno', 'mines', 'blackjack')) THEN
        RETURN gp_check_violation('rounds', 'rounds_game_check');
      END IF;
      IF NOT (close_status IS NULL OR close_status IN ('settled', 'cashed_out', 'busted')) THEN
        RETURN gp_check_violation('rounds', 'rounds_close_status_check');
      END IF;
      IF NOT (amount > 0 AND total_staked >= amount) THEN
        RETURN gp_check_violation('rounds', 'rounds_amount_check');
      END IF;
      IF NOT (payout IS NULL OR payout >= 0) THEN
        RETURN gp_check_violation('rounds', 'rounds_payout_check');
      END IF;
      RETURN true;
    END $$`);
  await knex.raw(`ALTER TABLE rounds DROP CONSTRAINT IF EXISTS rounds_id_time, DROP CONSTRAINT IF EXISTS rounds_status_check, DROP CONSTRAINT IF EXISTS rounds_game_check,
    DROP CONSTRAINT IF EXISTS rounds_close_status_check, DROP CONSTRAINT IF EXISTS rounds_amount_check, DROP CONSTRAINT IF EXISTS rounds_payout_check,
    DROP CONSTRAINT IF EXISTS rounds_rules,
    ADD CONSTRAINT rounds_rules CHECK (gp_rounds_rules(round_id, created_at, status, game_type, close_status, amount, total_staked, payout)) NOT VALID`);

  await knex.raw(`CREATE OR REPLACE FUNCTION gp_wallet_callbacks_rules(round_id text, operation text, idempotency_key text, debit_idempotency_key text,
      amount numeric, callback_status text) RETURNS boolean LANGUAGE plpgsql IMMUTABLE PARALLEL SAFE AS $$
    BEGIN
      IF operation IN ('debit', 'credit', 'rollback')
        AND amount >= 0 AND (operation = 'credit' OR amount > 0)
        AND (operation = 'rollback') = (debit_idempotency_key IS NOT NULL)
        AND callback_status IN ('pending', 'succeeded', 'failed')
        AND starts_with(idempotency_key, round_id || ':') AND (debit_idempotency_key IS NULL OR starts_with(debit_idempotency_key, round_id || ':')) THEN
        RETURN true;
      END IF;
      IF NOT (operation IN ('debit', 'credit', 'rollback')) THEN
        RETURN gp_check_violation('wallet_callbacks', 'wallet_callbacks_operation_check');
      END IF;
      IF NOT (amount >= 0 AND (operation = 'credit' OR amount > 0)) THEN
        RETURN gp_check_violation('wallet_callbacks', 'wallet_callbacks_amount_check');
      END IF;
      IF NOT ((operation = 'rollback') = (debit_idempotency_key IS NOT NULL)) THEN
        RETURN gp_check_violation('wallet_callbacks', 'wallet_callbacks_rollback_check');
      END IF;
      IF NOT (callback_status IN ('pending', 'succeeded', 'failed')) THEN
        RETURN gp_check_violation('wallet_callbacks', 'wallet_callbacks_status_check');
      END IF;
      IF NOT (starts_with(idempotency_key, round_id || ':') AND (debit_idempotency_key IS NULL OR starts_with(debit_idempotency_key, round_id || ':'))) THEN
        RETURN gp_check_violation('wallet_callbacks', 'wallet_callbacks_key_of_round');
      END IF;
      RETURN true;
    END $$`);
  await knex.raw(`ALTER TABLE wallet_callbacks DROP CONSTRAINT IF EXISTS wallet_callbacks_operation_check, DROP CONSTRAINT IF EXISTS wallet_callbacks_amount_check,
    DROP CONSTRAINT IF EXISTS wallet_callbacks_rollback_check, DROP CONSTRAINT IF EXISTS wallet_callbacks_status_check, DROP CONSTRAINT IF EXISTS wallet_callbacks_key_of_round,
    DROP CONSTRAINT IF EXISTS wallet_callbacks_rules,
    ADD CONSTRAINT wallet_callbacks_rules CHECK (gp_wallet_callbacks_rules(round_id, operation, idempotency_key, debit_idempotency_key, amount, callback_status)) NOT VALID`);

  await knex.raw(`CREATE OR REPLACE FUNCTION gp_idempotency_records_rules(session_id text, session_at timestamptz, state text) RETURNS boolean
      LANGUAGE plpgsql IMMUTABLE PARALLEL SAFE AS $$
    BEGIN
      IF state IN ('in_progress', 'completed') AND session_at = gp_session_time(session_id) THEN
        RETURN true;
      END IF;
      IF NOT (state IN ('in_progress', 'completed')) THEN
        RETURN gp_check_violation('idempotency_records', 'idempotency_records_state_check');
      END IF;
      IF NOT (session_at = gp_session_time(session_id)) THEN
        RETURN gp_check_violation('idempotency_records', 'idempotency_records_session_time');
      END IF;
      RETURN true;
    END $$`);
  await knex.raw(`ALTER TABLE idempotency_records DROP CONSTRAINT IF EXISTS idempotency_records_state_check, DROP CONSTRAINT IF EXISTS idempotency_records_session_time,
    DROP CONSTRAINT IF EXISTS idempotency_records_rules,
    ADD CONSTRAINT idempotency_records_rules CHECK (gp_idempotency_records_rules(session_id, session_at, state)) NOT VALID`);
}

/** @param {import('knex').Knex} knex */
export async function down(knex) {
  await knex.transaction((trx) => dropRules(trx));
}

/** The old constraints back (validated, in one transaction), the functions dropped. */
async function dropRules(knex) {
  const def = rowsOf(await knex.raw(`SELECT prosrc FROM pg_proc WHERE proname = 'gp_rounds_rules'`))[0].prosrc;
  const cutover = /created_at < '([^']+)'/.exec(def)?.[1];
  await knex.raw(`ALTER TABLE idempotency_records DROP CONSTRAINT idempotency_records_rules,
    ADD CONSTRAINT idempotency_records_state_check CHECK (state IN ('in_progress', 'completed')),
    ADD CONSTRAINT idempotency_records_session_time CHECK (session_at = gp_session_time(session_id))`);
  await knex.raw(`ALTER TABLE wallet_callbacks DROP CONSTRAINT wallet_callbacks_rules,
    ADD CONSTRAINT wallet_callbacks_operation_check CHECK (operation IN ('debit', 'credit', 'rollback')),
    ADD CONSTRAINT wallet_callbacks_amount_check CHECK (amount >= 0 AND (operation = 'credit' OR amount > 0)),
    ADD CONSTRAINT wallet_callbacks_rollback_check CHECK ((operation = 'rollback') = (debit_idempotency_key IS NOT NULL)),
    ADD CONSTRAINT wallet_callbacks_status_check CHECK (callback_status IN ('pending', 'succeeded', 'failed')),
    ADD CONSTRAINT wallet_callbacks_key_of_round CHECK (starts_with(idempotency_key, round_id || ':') AND (debit_idempotency_key IS NULL OR starts_with(debit_idempotency_key, round_id || ':')))`);
  await knex.raw(`ALTER TABLE rounds DROP CONSTRAINT rounds_rules,
    ADD CONSTRAINT rounds_id_time CHECK (CASE WHEN gp_round_time(round_id) IS NULL THEN created_at < '${cutover}' ELSE gp_round_time(round_id) = created_at END),
    ADD CONSTRAINT rounds_status_check CHECK (status IN ('debit_requested', 'active', 'settled', 'cashed_out', 'busted', 'credit_pending', 'rollback_pending', 'cancelled', 'error')),
    ADD CONSTRAINT rounds_game_check CHECK (game_type IN ('dice', 'limbo', 'plinko', 'keno', 'mines', 'blackjack')),
    ADD CONSTRAINT rounds_close_status_check CHECK (close_status IS NULL OR close_status IN ('settled', 'cashed_out', 'busted')),
    ADD CONSTRAINT rounds_amount_check CHECK (amount > 0 AND total_staked >= amount),
    ADD CONSTRAINT rounds_payout_check CHECK (payout IS NULL OR payout >= 0)`);
  await knex.raw('DROP FUNCTION gp_idempotency_records_rules(text, timestamptz, text)');
  await knex.raw('DROP FUNCTION gp_wallet_callbacks_rules(text, text, text, text, numeric, text)');
  await knex.raw('DROP FUNCTION gp_rounds_rules(text, timestamptz, text, text, text, numeric, numeric, numeric)');
  await knex.raw('DROP FUNCTION gp_check_violation(text, text)');
}
