// Issue 25 (the fifth session): the triggers that refuse a new key for a round or a seed pair
// (migration 20261129001000) fired on every UPDATE of those tables and tested their WHEN condition,
// which PostgreSQL reads back and plans again for every statement that updates the table (two of a
// dice bet's three statements update its round, one its seed pair). They now fire only for an
// UPDATE that names a key column: no statement of the code ever does, so their condition is never
// prepared, and an UPDATE that could change a key (it must name the column to) is still refused when
// it does. No BEFORE UPDATE trigger exists on either table that could change a key on its own.

const KEYS = [
  ['rounds', 'round_id, created_at', 'OLD.round_id <> NEW.round_id OR OLD.created_at <> NEW.created_at'],
  ['seed_pairs', 'id', 'OLD.id <> NEW.id'],
];

/** @param {import('knex').Knex} knex */
export async function up(knex) {
  for (const [table, columns, changed] of KEYS) {
    await knex.raw(`DROP TRIGGER ${table}_rekey_refused ON ${table}`);
    await knex.raw(
      `CREATE TRIGGER ${table}_rekey_refused AFTER UPDATE OF ${columns} ON ${table} FOR EACH ROW WHEN (${changed}) EXECUTE FUNCTION gp_refuse_unreferencing()`,
    );
  }
}

/** @param {import('knex').Knex} knex */
export async function down(knex) {
  for (const [table, , changed] of KEYS) {
    await knex.raw(`DROP TRIGGER ${table}_rekey_refused ON ${table}`);
    await knex.raw(`CREATE TRIGGER ${table}_rekey_refused AFTER UPDATE ON ${table} FOR EACH ROW WHEN (${changed}) EXECUTE FUNCTION gp_refuse_unreferencing()`);
  }
}
