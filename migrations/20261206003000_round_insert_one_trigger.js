// Issue 25 (the fifth session): a round's insert ran two row triggers — rounds_track_insert (BEFORE,
// with a WHEN condition PostgreSQL prepares again for every inserting statement: the round in flight,
// and a Mines or Blackjack round's open slot) and rounds_seed_pair_exists (AFTER: its seed pair exists,
// migration 20261129001000) — two PL/pgSQL calls a bet. One BEFORE INSERT trigger now does both, with
// no WHEN: the seed pair's existence is checked before the row is written, which holds the same rule
// (a seed pair is never deleted or re-keyed, and the code never inserts a pair and a round in one
// statement; a statement that did, the round's CTE run first, would be refused — never a round let in
// without its pair), and the final statuses are tested inside. Same errors, same names.

const FINAL = `('settled', 'cashed_out', 'busted', 'cancelled', 'error')`;

/** @param {import('knex').Knex} knex */
export async function up(knex) {
  await knex.raw(`CREATE FUNCTION rounds_before_insert() RETURNS trigger LANGUAGE plpgsql AS $$
    BEGIN
      IF NOT EXISTS (SELECT 1 FROM seed_pairs WHERE id = NEW.seed_pair_id) THEN
        RAISE EXCEPTION 'insert on rounds: seed pair % does not exist', NEW.seed_pair_id
          USING ERRCODE = 'foreign_key_violation', CONSTRAINT = 'rounds_seed_pair_id_foreign';
      END IF;
      IF NEW.status NOT IN ${FINAL} THEN
        INSERT INTO rounds_in_flight (round_id, created_at) VALUES (NEW.round_id, NEW.created_at);
        IF NEW.game_type IN ('mines', 'blackjack') AND NEW.status IN ('debit_requested', 'active') THEN
          INSERT INTO open_rounds (operator_id, player_ref, game_type, round_id) VALUES (NEW.operator_id, NEW.player_ref, NEW.game_type, NEW.round_id);
        END IF;
      END IF;
      RETURN NEW;
    END $$`);
  await knex.raw('DROP TRIGGER rounds_track_insert ON rounds');
  await knex.raw('DROP TRIGGER rounds_seed_pair_exists ON rounds');
  await knex.raw('CREATE TRIGGER rounds_before_insert BEFORE INSERT ON rounds FOR EACH ROW EXECUTE FUNCTION rounds_before_insert()');
  await knex.raw('DROP FUNCTION rounds_seed_pair_exists()');
  await knex.raw('DROP FUNCTION rounds_track_insert()');
}

/** @param {import('knex').Knex} knex */
export async function down(knex) {
  await knex.raw(`CREATE FUNCTION rounds_track_insert() RETURNS trigger LANGUAGE plpgsql AS $$
    BEGIN
      INSERT INTO rounds_in_flight (round_id, created_at) VALUES (NEW.round_id, NEW.created_at);
      IF NEW.game_type IN ('mines', 'blackjack') AND NEW.status IN ('debit_requested', 'active') THEN
        INSERT INTO open_rounds (operator_id, player_ref, game_type, round_id) VALUES (NEW.operator_id, NEW.player_ref, NEW.game_type, NEW.round_id);
      END IF;
      RETURN NEW;
    END $$`);
  await knex.raw(`CREATE FUNCTION rounds_seed_pair_exists() RETURNS trigger LANGUAGE plpgsql AS $$
    BEGIN
      IF NOT EXISTS (SELECT 1 FROM seed_pairs WHERE id = NEW.seed_pair_id) THEN
        RAISE EXCEPTION 'insert on rounds: seed pair % does not exist', NEW.seed_pair_id
          USING ERRCODE = 'foreign_key_violation', CONSTRAINT = 'rounds_seed_pair_id_foreign';
      END IF;
      RETURN NULL;
    END $$`);
  await knex.raw('DROP TRIGGER rounds_before_insert ON rounds');
  await knex.raw(
    `CREATE TRIGGER rounds_track_insert BEFORE INSERT ON rounds FOR EACH ROW WHEN (NEW.status NOT IN ${FINAL}) EXECUTE FUNCTION rounds_track_insert()`,
  );
  await knex.raw('CREATE TRIGGER rounds_seed_pair_exists AFTER INSERT ON rounds FOR EACH ROW EXECUTE FUNCTION rounds_seed_pair_exists()');
  await knex.raw('DROP FUNCTION rounds_before_insert()');
}
