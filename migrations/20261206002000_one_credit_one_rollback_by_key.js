// Issue 25 (the fifth session): "one credit per round" and "one rollback per debit" were two partial
// unique indexes on wallet_callbacks — (round_id) WHERE operation = 'credit' and
// (debit_idempotency_key) WHERE operation = 'rollback'. Every credit wrote an entry in the first (one
// WAL record a bet), and PostgreSQL prepared both predicates again for every statement that inserted
// a callback (two a dice bet). The code has always given a round's credit the key `<round id>:credit`
// and a debit's rollback the key `<debit key>:rollback` (money-path/callbacks.ts `creditKey`,
// `rollbackKey`); the database now requires it (two rules of wallet_callbacks_rules, by name:
// wallet_callbacks_credit_key, wallet_callbacks_rollback_key), so the unique key (idempotency_key,
// round_created_at) is what refuses a second credit of a round or a second rollback of a debit:
// same key, same round, same time. The indexes go. Existing rows are checked first: a row that does
// not keep the new rules stops the migration.

const rowsOf = (r) => r.rows ?? r;

const FAST = `operation IN ('debit', 'credit', 'rollback')
        AND amount >= 0 AND (operation = 'credit' OR amount > 0)
        AND (operation = 'rollback') = (debit_idempotency_key IS NOT NULL)
        AND callback_status IN ('pending', 'succeeded', 'failed')
        AND starts_with(idempotency_key, round_id || ':') AND (debit_idempotency_key IS NULL OR starts_with(debit_idempotency_key, round_id || ':'))`;

const RULES = [
  ['wallet_callbacks_operation_check', `operation IN ('debit', 'credit', 'rollback')`],
  ['wallet_callbacks_amount_check', `amount >= 0 AND (operation = 'credit' OR amount > 0)`],
  ['wallet_callbacks_rollback_check', `(operation = 'rollback') = (debit_idempotency_key IS NOT NULL)`],
  ['wallet_callbacks_status_check', `callback_status IN ('pending', 'succeeded', 'failed')`],
  [
    'wallet_callbacks_key_of_round',
    `starts_with(idempotency_key, round_id || ':') AND (debit_idempotency_key IS NULL OR starts_with(debit_idempotency_key, round_id || ':'))`,
  ],
];
const KEYED = [
  ['wallet_callbacks_credit_key', `operation <> 'credit' OR idempotency_key = round_id || ':credit'`],
  ['wallet_callbacks_rollback_key', `operation <> 'rollback' OR idempotency_key = debit_idempotency_key || ':rollback'`],
];

const rulesFunction = (rules, fast) => `CREATE OR REPLACE FUNCTION gp_wallet_callbacks_rules(round_id text, operation text, idempotency_key text,
    debit_idempotency_key text, amount numeric, callback_status text) RETURNS boolean LANGUAGE plpgsql IMMUTABLE PARALLEL SAFE AS $$
  BEGIN
    IF ${fast} THEN
      RETURN true;
    END IF;
${rules.map(([name, rule]) => `    IF NOT (${rule}) THEN\n      RETURN gp_check_violation('wallet_callbacks', '${name}');\n    END IF;`).join('\n')}
    RETURN true;
  END $$`;

/** @param {import('knex').Knex} knex */
export async function up(knex) {
  const bad = rowsOf(await knex.raw(`SELECT count(*)::int AS n FROM wallet_callbacks WHERE NOT (${KEYED.map(([, rule]) => `(${rule})`).join(' AND ')})`))[0].n;
  if (bad > 0) throw new Error(`${bad} wallet callback(s) have a credit or rollback key other than their round's: fix them before this migration`);
  await knex.raw(rulesFunction([...RULES, ...KEYED], `${FAST}\n        AND (${KEYED[0][1]}) AND (${KEYED[1][1]})`));
  await knex.raw('DROP INDEX wallet_callbacks_one_credit');
  await knex.raw('DROP INDEX wallet_callbacks_one_rollback');
}

/** @param {import('knex').Knex} knex */
export async function down(knex) {
  await knex.raw(`CREATE UNIQUE INDEX wallet_callbacks_one_credit ON wallet_callbacks (round_id, round_created_at) WHERE operation = 'credit'`);
  await knex.raw(
    `CREATE UNIQUE INDEX wallet_callbacks_one_rollback ON wallet_callbacks (debit_idempotency_key, round_created_at) WHERE operation = 'rollback'`,
  );
  await knex.raw(rulesFunction(RULES, FAST));
}
