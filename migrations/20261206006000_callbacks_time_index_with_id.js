// Issue 25 (the seventh session): the reconciliation pages order each operator's callbacks by
// (created_at, id) (migration 20261206004000 dropped the id key). With the index on (operator_id,
// created_at) PostgreSQL had to sort the rows of one time by id (an incremental sort), and whether it
// chose that or a sort of the whole history depended on its estimate of how many rows share a time —
// on the 10-million-round bench database a first page took over 60 s. The same index with id as its
// last column gives the rows in the pages' order: no sort at all, whatever the statistics. One index
// replaces the other (one entry per callback, as before); every query on (operator_id, created_at)
// uses it as a prefix. Building it holds off writes to wallet_callbacks while it runs (2.9 s for 2
// million callbacks on the bench's cluster, so about 30 s for 20 million): on a large production
// history run it in a quiet window, or build each partition's index CONCURRENTLY first and attach
// them (docs/operations.md, migrations).

/** @param {import('knex').Knex} knex */
export async function up(knex) {
  await knex.raw('CREATE INDEX wallet_callbacks_operator_time_id ON wallet_callbacks (operator_id, created_at, id)');
  await knex.raw('DROP INDEX wallet_callbacks_operator_id_created_at_index');
}

/** @param {import('knex').Knex} knex */
export async function down(knex) {
  await knex.raw('CREATE INDEX wallet_callbacks_operator_id_created_at_index ON wallet_callbacks (operator_id, created_at)');
  await knex.raw('DROP INDEX wallet_callbacks_operator_time_id');
}
