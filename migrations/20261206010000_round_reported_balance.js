// Issue 25 (the ninth session): the balance the casino reported when a round finished is kept in
// the round's row, written by the statement that stores its credit's answer (round-store/writes.ts
// `storeCreditAndFinish`), instead of a second table's row in that statement. player_balances
// stayed one row a player, updated in place by every bet: one more table the settling statement
// opened, a row update and its dead version (≈ 1.4 WAL records a dice bet). The round's row is
// updated by that statement anyway (a HOT update: the new column is in no index), so the balance
// costs no record of its own. The player's latest balance is the newer of their player_balances row
// (a launch, a Mines or Blackjack debit, the retry job's answers) and their latest round's balance
// (sessions/player-balances.ts `latestBalanceSql`).
//
// A nullable column without a default: PostgreSQL adds it to the partitioned table and every
// partition in the catalogue only, without reading or rewriting a row (instant at any size).

/** @param {import('knex').Knex} knex */
export async function up(knex) {
  await knex.raw('ALTER TABLE rounds ADD COLUMN IF NOT EXISTS reported_balance numeric(40,0)');
}

/** @param {import('knex').Knex} knex */
export async function down(knex) {
  await knex.raw('ALTER TABLE rounds DROP COLUMN IF EXISTS reported_balance');
}
