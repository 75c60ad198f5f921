// Two money rules of the security review (issue 9), held by the database:
//  - an operator profile's currency cannot change once it has sessions: every session, limit,
//    round and callback of a profile is in its one currency (SPEC.md), so a profile that took
//    USD bets stays USD; a casino adds a profile for another currency;
//  - the latest balance the casino reported for each player, kept so that every answer to a
//    round's POST can carry it, also when that request moved no money (CONTRACT.md §12).

/** @param {import('knex').Knex} knex */
export async function up(knex) {
  await knex.raw(`CREATE FUNCTION operators_currency_fixed() RETURNS trigger AS $$
    BEGIN
      IF NEW.currency <> OLD.currency AND EXISTS (SELECT 1 FROM sessions WHERE operator_id = OLD.operator_id) THEN
        RAISE EXCEPTION 'operators_currency_fixed: profile % has sessions in %', OLD.operator_id, OLD.currency;
      END IF;
      RETURN NEW;
    END $$ LANGUAGE plpgsql`);
  await knex.raw(`CREATE TRIGGER operators_currency_fixed BEFORE UPDATE OF currency ON operators
    FOR EACH ROW EXECUTE FUNCTION operators_currency_fixed()`);

  await knex.schema.createTable('player_balances', (t) => {
    t.text('operator_id').notNullable().references('operators.operator_id');
    t.text('player_ref').notNullable();
    t.text('currency').notNullable();
    t.decimal('balance', 40, 0).notNullable();
    t.timestamp('reported_at', { useTz: true }).notNullable().defaultTo(knex.fn.now());
    t.primary(['operator_id', 'player_ref']);
  });
}

/** @param {import('knex').Knex} knex */
export async function down(knex) {
  await knex.schema.dropTableIfExists('player_balances');
  await knex.raw('DROP TRIGGER IF EXISTS operators_currency_fixed ON operators');
  await knex.raw('DROP FUNCTION IF EXISTS operators_currency_fixed()');
}
