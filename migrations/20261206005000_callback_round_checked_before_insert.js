// Issue 25 (the seventh session): "a callback's round exists" (migration 20261129001000, the
// foreign key without its row lock) ran as an AFTER INSERT row trigger: each callback a bet records
// (two) queued an after-trigger event that the end of the statement replayed, the row fetched again
// to hand to the function. The same check now runs BEFORE the row is written (the row in hand, no
// queue), as the round's own seed-pair check does (migration 20261206003000). It holds the same rule:
// a round is never deleted or re-keyed (rounds_delete_refused, rounds_rekey_refused), so a round seen
// before the callback's row is written is there when it is; and the code's statements that write a
// round and its callback in one statement insert or update the round first (the callback is
// `INSERT … SELECT` from the round's CTE: round-store/rows.ts insertCallbackFrom), which the check
// then sees. Same error, same constraint name.

const CHECK = `CREATE OR REPLACE FUNCTION wallet_callbacks_round_exists() RETURNS trigger LANGUAGE plpgsql AS $$
    BEGIN
      IF NOT EXISTS (SELECT 1 FROM rounds WHERE round_id = NEW.round_id AND created_at = NEW.round_created_at) THEN
        RAISE EXCEPTION 'insert on wallet_callbacks: round % (%) does not exist', NEW.round_id, NEW.round_created_at
          USING ERRCODE = 'foreign_key_violation', CONSTRAINT = 'wallet_callbacks_round_id_foreign';
      END IF;
      RETURN %RETURN%;
    END $$`;

/** @param {import('knex').Knex} knex */
export async function up(knex) {
  await knex.raw(CHECK.replace('%RETURN%', 'NEW'));
  await knex.raw('DROP TRIGGER wallet_callbacks_round_exists ON wallet_callbacks');
  await knex.raw(
    'CREATE TRIGGER wallet_callbacks_round_exists BEFORE INSERT ON wallet_callbacks FOR EACH ROW EXECUTE FUNCTION wallet_callbacks_round_exists()',
  );
}

/** @param {import('knex').Knex} knex */
export async function down(knex) {
  await knex.raw(CHECK.replace('%RETURN%', 'NULL'));
  await knex.raw('DROP TRIGGER wallet_callbacks_round_exists ON wallet_callbacks');
  await knex.raw('CREATE TRIGGER wallet_callbacks_round_exists AFTER INSERT ON wallet_callbacks FOR EACH ROW EXECUTE FUNCTION wallet_callbacks_round_exists()');
}
