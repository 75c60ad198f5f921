// My bets (issue 12): the game page lists a player's recent rounds, newest first
// (GET /api/player/bets). One index serves the player filter, the order and the cursor.

/** @param {import('knex').Knex} knex */
export async function up(knex) {
  await knex.raw('CREATE INDEX rounds_player_recent ON rounds (operator_id, player_ref, created_at DESC, round_id DESC)');
}

/** @param {import('knex').Knex} knex */
export async function down(knex) {
  await knex.raw('DROP INDEX IF EXISTS rounds_player_recent');
}
