// Issue 25: a settled bet's writes as HOT updates (no new index entries when a round or a callback
// changes), and no hot row every bet locks. Measured (docs/performance.md): WAL records per dice bet
// and index entries written per bet.
//
// PostgreSQL updates a row in place on its page ("HOT": no index touched) only when no column any
// index uses (key, INCLUDE, expression or partial-index predicate) changes. Every write of a round
// changes `status`, and `status` was in two partial indexes (rounds_in_flight and the predicate of
// rounds_one_open_per_player), so each of a bet's two round updates wrote an entry into all nine
// indexes of rounds; every callback result changed `callback_status`, in the predicate of
// wallet_callbacks_pending, so each wrote into all eight indexes of wallet_callbacks.
//
//  - rounds_one_open_per_player (one open Mines or Blackjack round per player and game: a money
//    rule) becomes the primary key of a small table `open_rounds`, kept by the rounds' triggers
//    (a round of those games that opens takes its row, one that leaves debit_requested/active frees
//    it; a second open round of the player is a unique violation of the same constraint name, as
//    before). Dice, limbo, plinko and keno never touch it.
//  - rounds_in_flight (the retry job's, the sweep's, the metrics' and the console's pending
//    rounds) becomes a table `rounds_in_flight` of the ids of rounds that are not final, kept by the
//    same triggers: a row when a round is inserted not final, removed when it becomes final. Those
//    queries join it (round-store/, pending-age.ts).
//  - wallet_callbacks_pending served one query (Blackjack extra debits' rollbacks still pending):
//    now a partial index of those rollbacks on columns that never change.
//  - rounds → operators and rounds → sessions foreign keys: each insert of a round locked the
//    operator's row (FOR KEY SHARE), a row every bet of the operator shares: a MultiXact per
//    concurrent bet (WAL, and contention). Operators and sessions are never deleted (no code path
//    removes either), and the round's operator and session come from the session row the request
//    read. The keys that guard money stay: rounds → seed_pairs, wallet_callbacks → rounds, the
//    unique keys, the one credit and one rollback per round, the final-is-final triggers.
//  - fillfactor: new pages of the hot tables keep room for the updated version of their rows, so
//    an update finds space on its own page (a HOT update needs that too).

const FINAL = "('settled', 'cashed_out', 'busted', 'cancelled', 'error')";
const OPEN = "('debit_requested', 'active')";
const HELD = "('mines', 'blackjack')";

/** @param {import('knex').Knex} knex */
export async function up(knex) {
  await knex.raw('DROP INDEX IF EXISTS rounds_in_flight');
  await knex.raw('CREATE TABLE rounds_in_flight (round_id text PRIMARY KEY)');
  await knex.raw(`INSERT INTO rounds_in_flight (round_id) SELECT round_id FROM rounds WHERE status NOT IN ${FINAL}`);

  await knex.raw('DROP INDEX IF EXISTS rounds_one_open_per_player');
  await knex.raw(`CREATE TABLE open_rounds (
    operator_id text NOT NULL,
    player_ref text NOT NULL,
    game_type text NOT NULL,
    round_id text NOT NULL,
    CONSTRAINT rounds_one_open_per_player PRIMARY KEY (operator_id, player_ref, game_type)
  )`);
  await knex.raw(`INSERT INTO open_rounds (operator_id, player_ref, game_type, round_id)
    SELECT operator_id, player_ref, game_type, round_id FROM rounds WHERE game_type IN ${HELD} AND status IN ${OPEN}`);

  // A round inserted not final: its in-flight row, and (Mines, Blackjack) its open-round slot.
  await knex.raw(`CREATE FUNCTION rounds_track_insert() RETURNS trigger AS $$
    BEGIN
      INSERT INTO rounds_in_flight (round_id) VALUES (NEW.round_id);
      IF NEW.game_type IN ${HELD} AND NEW.status IN ${OPEN} THEN
        INSERT INTO open_rounds (operator_id, player_ref, game_type, round_id) VALUES (NEW.operator_id, NEW.player_ref, NEW.game_type, NEW.round_id);
      END IF;
      RETURN NEW;
    END $$ LANGUAGE plpgsql`);
  await knex.raw(`CREATE TRIGGER rounds_track_insert BEFORE INSERT ON rounds FOR EACH ROW
    WHEN (NEW.status NOT IN ${FINAL}) EXECUTE FUNCTION rounds_track_insert()`);
  // The trigger every update and delete of a round already ran: a final round stays as it is (as
  // before; a delete of a round that is not final is skipped, as before), and a status change keeps
  // the two tables above.
  await knex.raw(`CREATE OR REPLACE FUNCTION rounds_final_is_final() RETURNS trigger AS $$
    BEGIN
      IF OLD.status IN ${FINAL} THEN
        RAISE EXCEPTION 'round % is final (%) and cannot change', OLD.round_id, OLD.status;
      END IF;
      IF TG_OP = 'UPDATE' AND NEW.status <> OLD.status THEN
        IF OLD.game_type IN ${HELD} THEN
          IF OLD.status IN ${OPEN} AND NEW.status NOT IN ${OPEN} THEN
            DELETE FROM open_rounds WHERE operator_id = OLD.operator_id AND player_ref = OLD.player_ref AND game_type = OLD.game_type AND round_id = OLD.round_id;
          ELSIF OLD.status NOT IN ${OPEN} AND NEW.status IN ${OPEN} THEN
            INSERT INTO open_rounds (operator_id, player_ref, game_type, round_id) VALUES (NEW.operator_id, NEW.player_ref, NEW.game_type, NEW.round_id);
          END IF;
        END IF;
        IF NEW.status IN ${FINAL} THEN
          DELETE FROM rounds_in_flight WHERE round_id = OLD.round_id;
        END IF;
      END IF;
      RETURN NEW;
    END $$ LANGUAGE plpgsql`);

  await knex.raw('DROP INDEX IF EXISTS wallet_callbacks_pending');
  await knex.raw(
    `CREATE INDEX wallet_callbacks_extra_rollbacks ON wallet_callbacks (id) WHERE operation = 'rollback' AND purpose IN ('insurance', 'double', 'split')`,
  );

  await knex.raw('ALTER TABLE rounds DROP CONSTRAINT IF EXISTS rounds_operator_id_foreign');
  await knex.raw('ALTER TABLE rounds DROP CONSTRAINT IF EXISTS rounds_session_id_foreign');

  await knex.raw('ALTER TABLE rounds SET (fillfactor = 70)');
  await knex.raw('ALTER TABLE wallet_callbacks SET (fillfactor = 60)');
  await knex.raw('ALTER TABLE idempotency_records SET (fillfactor = 60)');
  await knex.raw('ALTER TABLE player_balances SET (fillfactor = 50)');
  await knex.raw('ALTER TABLE seed_pairs SET (fillfactor = 70)');
}

/** @param {import('knex').Knex} knex */
export async function down(knex) {
  for (const t of ['rounds', 'wallet_callbacks', 'idempotency_records', 'player_balances', 'seed_pairs']) await knex.raw(`ALTER TABLE ${t} RESET (fillfactor)`);
  await knex.raw('ALTER TABLE rounds ADD CONSTRAINT rounds_operator_id_foreign FOREIGN KEY (operator_id) REFERENCES operators (operator_id)');
  await knex.raw('ALTER TABLE rounds ADD CONSTRAINT rounds_session_id_foreign FOREIGN KEY (session_id) REFERENCES sessions (session_id)');
  await knex.raw('DROP INDEX IF EXISTS wallet_callbacks_extra_rollbacks');
  await knex.raw(`CREATE INDEX wallet_callbacks_pending ON wallet_callbacks (operation) WHERE callback_status = 'pending'`);
  await knex.raw(`CREATE OR REPLACE FUNCTION rounds_final_is_final() RETURNS trigger AS $$
    BEGIN
      IF OLD.status IN ${FINAL} THEN
        RAISE EXCEPTION 'round % is final (%) and cannot change', OLD.round_id, OLD.status;
      END IF;
      RETURN NEW;
    END $$ LANGUAGE plpgsql`);
  await knex.raw('DROP TRIGGER IF EXISTS rounds_track_insert ON rounds');
  await knex.raw('DROP FUNCTION IF EXISTS rounds_track_insert()');
  await knex.raw('DROP TABLE IF EXISTS open_rounds');
  await knex.raw(
    `CREATE UNIQUE INDEX rounds_one_open_per_player ON rounds (operator_id, player_ref, game_type) WHERE game_type IN ${HELD} AND status IN ${OPEN}`,
  );
  await knex.raw('DROP TABLE IF EXISTS rounds_in_flight');
  await knex.raw(
    `CREATE INDEX rounds_in_flight ON rounds (status, updated_at) WHERE status IN ('debit_requested', 'active', 'credit_pending', 'rollback_pending')`,
  );
}
