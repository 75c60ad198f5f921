// Issue 25: every round a bet inserts was written into six indexes; two of them served only the
// console's searches across operators: (created_at DESC, round_id DESC) and (player_ref,
// created_at DESC, round_id DESC). The console now reads those per operator (round-store/reports.ts
// `searchRounds`: each operator's newest rounds from its own index, merged; the figures over a
// time range name every operator), from the indexes that stay:
//  - (operator_id, created_at DESC, round_id DESC): the console's lists and figures, promotions;
//  - (operator_id, player_ref, created_at DESC, round_id DESC): My bets, game recall, the console's
//    search by player.
// Two fewer index entries (and B-tree inserts) per round; partition pruning is unchanged (every
// query still bounds created_at or names the round).

/** @param {import('knex').Knex} knex */
export async function up(knex) {
  await knex.raw('DROP INDEX IF EXISTS rounds_created_desc');
  await knex.raw('DROP INDEX IF EXISTS rounds_player_created_desc');
}

/** @param {import('knex').Knex} knex */
export async function down(knex) {
  await knex.raw('CREATE INDEX rounds_created_desc ON rounds (created_at DESC, round_id DESC)');
  await knex.raw('CREATE INDEX rounds_player_created_desc ON rounds (player_ref, created_at DESC, round_id DESC)');
}
