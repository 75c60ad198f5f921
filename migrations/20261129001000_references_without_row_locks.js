// Issue 25 (the fourth session): the foreign keys a bet's statements checked — each callback's round
// (wallet_callbacks → rounds, twice a bet) and each round's seed pair (rounds → seed_pairs) — took a
// FOR KEY SHARE lock on the referenced row, and every such lock is a WAL record (3 a settled bet),
// only to keep the referenced row from being deleted or re-keyed before the inserting transaction
// commits. The rules stay in the database, held differently (docs/performance.md "Issue 25:
// PostgreSQL per bet, the fourth session"):
//
//  - a round and a seed pair, once written, are never deleted and never change their key: row
//    triggers refuse DELETE and an UPDATE of the key (on every partition: they are cloned), a
//    statement trigger refuses TRUNCATE of the table. (`rounds_delete_refused` fires before
//    `rounds_final_is_final`, which skipped the delete of a round not yet final without a word.) Rounds and callbacks leave only together, a
//    month at a time (gp_drop_time_partitions drops both partitions);
//  - so the referenced row only has to exist when the referencing row is inserted: AFTER INSERT row
//    triggers check that, as the foreign key did, at the end of the statement (they see the round
//    the same statement inserted in a sibling CTE) and raise foreign_key_violation under the old
//    constraint's name. No lock is needed: nothing can remove the row afterwards.
//
// Both triggers run where the foreign keys' own triggers ran (one call per inserted row): the trigger
// count of a bet is the same, and its WAL 3 records smaller.

/** @param {import('knex').Knex} knex */
export async function up(knex) {
  await knex.raw(`CREATE FUNCTION gp_refuse_unreferencing() RETURNS trigger LANGUAGE plpgsql AS $$
    BEGIN
      RAISE EXCEPTION '% of % is refused: its rows are referenced and are never deleted or re-keyed', TG_OP, TG_TABLE_NAME
        USING ERRCODE = 'restrict_violation';
    END $$`);
  for (const [table, key] of [
    ['rounds', 'OLD.round_id <> NEW.round_id OR OLD.created_at <> NEW.created_at'],
    ['seed_pairs', 'OLD.id <> NEW.id'],
  ]) {
    await knex.raw(`CREATE TRIGGER ${table}_delete_refused BEFORE DELETE ON ${table} FOR EACH ROW EXECUTE FUNCTION gp_refuse_unreferencing()`);
    await knex.raw(`CREATE TRIGGER ${table}_rekey_refused AFTER UPDATE ON ${table} FOR EACH ROW WHEN (${key}) EXECUTE FUNCTION gp_refuse_unreferencing()`);
    await knex.raw(`CREATE TRIGGER ${table}_truncate_refused BEFORE TRUNCATE ON ${table} FOR EACH STATEMENT EXECUTE FUNCTION gp_refuse_unreferencing()`);
  }

  await knex.raw(`CREATE FUNCTION wallet_callbacks_round_exists() RETURNS trigger LANGUAGE plpgsql AS $$
    BEGIN
      IF NOT EXISTS (SELECT 1 FROM rounds WHERE round_id = NEW.round_id AND created_at = NEW.round_created_at) THEN
        RAISE EXCEPTION 'insert on wallet_callbacks: round % (%) does not exist', NEW.round_id, NEW.round_created_at
          USING ERRCODE = 'foreign_key_violation', CONSTRAINT = 'wallet_callbacks_round_id_foreign';
      END IF;
      RETURN NULL;
    END $$`);
  await knex.raw(`CREATE FUNCTION rounds_seed_pair_exists() RETURNS trigger LANGUAGE plpgsql AS $$
    BEGIN
      IF NOT EXISTS (SELECT 1 FROM seed_pairs WHERE id = NEW.seed_pair_id) THEN
        RAISE EXCEPTION 'insert on rounds: seed pair % does not exist', NEW.seed_pair_id
          USING ERRCODE = 'foreign_key_violation', CONSTRAINT = 'rounds_seed_pair_id_foreign';
      END IF;
      RETURN NULL;
    END $$`);
  await knex.raw('ALTER TABLE wallet_callbacks DROP CONSTRAINT wallet_callbacks_round_id_foreign');
  await knex.raw('ALTER TABLE rounds DROP CONSTRAINT rounds_seed_pair_id_foreign');
  await knex.raw('CREATE TRIGGER wallet_callbacks_round_exists AFTER INSERT ON wallet_callbacks FOR EACH ROW EXECUTE FUNCTION wallet_callbacks_round_exists()');
  await knex.raw('CREATE TRIGGER rounds_seed_pair_exists AFTER INSERT ON rounds FOR EACH ROW EXECUTE FUNCTION rounds_seed_pair_exists()');
}

/** @param {import('knex').Knex} knex */
export async function down(knex) {
  await knex.raw('DROP TRIGGER rounds_seed_pair_exists ON rounds');
  await knex.raw('DROP TRIGGER wallet_callbacks_round_exists ON wallet_callbacks');
  for (const table of ['rounds', 'seed_pairs']) {
    await knex.raw(`DROP TRIGGER ${table}_delete_refused ON ${table}`);
    await knex.raw(`DROP TRIGGER ${table}_rekey_refused ON ${table}`);
    await knex.raw(`DROP TRIGGER ${table}_truncate_refused ON ${table}`);
  }
  await knex.raw('DROP FUNCTION rounds_seed_pair_exists()');
  await knex.raw('DROP FUNCTION wallet_callbacks_round_exists()');
  await knex.raw('DROP FUNCTION gp_refuse_unreferencing()');
  await knex.raw('ALTER TABLE rounds ADD CONSTRAINT rounds_seed_pair_id_foreign FOREIGN KEY (seed_pair_id) REFERENCES seed_pairs (id)');
  await knex.raw(
    'ALTER TABLE wallet_callbacks ADD CONSTRAINT wallet_callbacks_round_id_foreign FOREIGN KEY (round_id, round_created_at) REFERENCES rounds (round_id, created_at)',
  );
}
