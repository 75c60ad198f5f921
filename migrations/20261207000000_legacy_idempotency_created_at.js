// Issue 25 (the thirteenth session): the retention pass of the idempotency records of sessions from
// before their partitioning (round-store/work.ts purgeLegacyIdempotencyRecords, every
// WALLET_RETRY_SWEEP_S) picks the legacy partition's records older than the retention by
// `created_at`, which had no index there: every pass read the whole partition, and with a long
// retention (nothing old enough) it did so for nothing — on the bench's 10-million-round history
// (its year of records in this partition) 7 to 48 s a pass, beside the bets. With the index a pass
// reads only the records it removes. The partition gets no new rows (every later session's records
// go to their week's partition), so the index costs no bet anything; building it holds off the
// purge's deletes on this one partition while it runs (seconds for millions of rows).

/** @param {import('knex').Knex} knex */
export async function up(knex) {
  await knex.raw('CREATE INDEX IF NOT EXISTS idempotency_records_legacy_created_at ON idempotency_records_legacy (created_at)');
}

/** @param {import('knex').Knex} knex */
export async function down(knex) {
  await knex.raw('DROP INDEX IF EXISTS idempotency_records_legacy_created_at');
}
