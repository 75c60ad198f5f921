// The bet's hot path (issue 14): every write of a round or a callback changes its status, so
// PostgreSQL writes a new entry into every index of the table (no HOT update is possible while
// the status is indexed). Three indexes paid that on every bet without serving it:
//
//  - rounds (operator_id, player_ref, status): no query needs it; a player's rounds are found
//    through rounds_player_recent (operator_id, player_ref, …) and a player's open Mines or
//    Blackjack round through rounds_one_open_per_player.
//  - rounds (status, updated_at) serves only the retry job and the abandoned-round sweep, which
//    look for rounds that are not final: now a partial index of those, so a round that becomes
//    final leaves it (most rounds are final within one request) instead of adding an entry.
//  - wallet_callbacks (callback_status, operation) serves only the look-up of pending rollbacks:
//    now a partial index of pending callbacks.
//
// Building the partial indexes scans each table once (writes wait for the scan); the indexes
// themselves hold only the rows in flight.

const OPEN = "'debit_requested', 'active', 'credit_pending', 'rollback_pending'";

/** @param {import('knex').Knex} knex */
export async function up(knex) {
  await knex.raw('DROP INDEX IF EXISTS rounds_operator_id_player_ref_status_index');
  await knex.raw('DROP INDEX IF EXISTS rounds_status_updated_at_index');
  await knex.raw(`CREATE INDEX rounds_in_flight ON rounds (status, updated_at) WHERE status IN (${OPEN})`);
  await knex.raw('DROP INDEX IF EXISTS wallet_callbacks_callback_status_operation_index');
  await knex.raw(`CREATE INDEX wallet_callbacks_pending ON wallet_callbacks (operation) WHERE callback_status = 'pending'`);
}

/** @param {import('knex').Knex} knex */
export async function down(knex) {
  await knex.raw('DROP INDEX IF EXISTS wallet_callbacks_pending');
  await knex.raw('CREATE INDEX wallet_callbacks_callback_status_operation_index ON wallet_callbacks (callback_status, operation)');
  await knex.raw('DROP INDEX IF EXISTS rounds_in_flight');
  await knex.raw('CREATE INDEX rounds_status_updated_at_index ON rounds (status, updated_at)');
  await knex.raw('CREATE INDEX rounds_operator_id_player_ref_status_index ON rounds (operator_id, player_ref, status)');
}
