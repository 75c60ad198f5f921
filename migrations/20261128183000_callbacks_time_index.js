// Issue 25: every callback a bet records (a debit and a credit) was written into two time indexes,
// (operator_id, created_at) and (created_at). The queries over a time range of callbacks (the
// console's money figures and callback health, the reconciliation page and totals, the GGR report)
// now name every operator when the caller does not limit them to some (round-store/reports.ts
// `everyOperator`), so (operator_id, created_at) serves them all: two fewer index entries per bet.

/** @param {import('knex').Knex} knex */
export async function up(knex) {
  await knex.raw('DROP INDEX IF EXISTS wallet_callbacks_created');
}

/** @param {import('knex').Knex} knex */
export async function down(knex) {
  await knex.raw('CREATE INDEX wallet_callbacks_created ON wallet_callbacks (created_at)');
}
